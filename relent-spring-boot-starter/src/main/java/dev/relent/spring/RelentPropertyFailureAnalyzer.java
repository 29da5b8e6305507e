package dev.relent.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link RelentPropertyException} that stopped the application into Spring Boot's start-up
 * report: the description names the property, its value and what is allowed; the action says what
 * to change. Registered in {@code META-INF/spring.factories}; stateless and thread-safe.
 */
public final class RelentPropertyFailureAnalyzer
    extends AbstractFailureAnalyzer<RelentPropertyException> {

  /** Created by Spring Boot. */
  public RelentPropertyFailureAnalyzer() {}

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, RelentPropertyException cause) {
    return new FailureAnalysis(
        cause.getMessage(),
        "Change "
            + cause.property()
            + " in the application's configuration (application.properties or .yml, an"
            + " environment variable, a command-line argument), or remove it for Relent's"
            + " default; every relent.* key and its default is listed in docs/spring-boot.md.",
        cause);
  }
}
