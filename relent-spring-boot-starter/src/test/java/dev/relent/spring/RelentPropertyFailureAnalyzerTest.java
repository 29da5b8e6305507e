package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** A refused property stops the application with Spring Boot's report naming it. */
class RelentPropertyFailureAnalyzerTest {

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(RelentAutoConfiguration.class)
  static class App {}

  @Test
  void theStartUpReportNamesThePropertyAndWhatToDo() {
    SpringApplication app = new SpringApplication(App.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    Throwable[] failure = new Throwable[1];
    assertThatThrownBy(
            () -> {
              try {
                app.run(
                    "--spring.config.name=none",
                    "--relent.clients.payments.base-url=https://api.example.com",
                    "--relent.clients.payments.max-retries=-1");
              } catch (RuntimeException e) {
                failure[0] = e;
                throw e;
              }
            })
        .hasRootCauseInstanceOf(IllegalArgumentException.class);

    FailureAnalysis analysis = new RelentPropertyFailureAnalyzer().analyze(failure[0]);

    assertThat(analysis).isNotNull();
    assertThat(analysis.getDescription())
        .startsWith("relent.clients.payments.max-retries: -1 is refused (maxRetries must be >= 0");
    assertThat(analysis.getAction())
        .startsWith(
            "Change relent.clients.payments.max-retries in the application's configuration");
  }

  @Test
  void springBootFindsTheAnalyzer() {
    List<FailureAnalyzer> analyzers =
        SpringFactoriesLoader.forDefaultResourceLocation()
            .load(
                FailureAnalyzer.class,
                (type, name, failure) -> {}); // Boot's own need the bean factory: skip them
    assertThat(analyzers).anyMatch(a -> a instanceof RelentPropertyFailureAnalyzer);
  }
}
