package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * A refused property stops the application with Spring Boot's report naming it; so does a key or a
 * value Spring's binder cannot use, named with the nearest key there is and without the binder's
 * internals.
 */
@ExtendWith(OutputCaptureExtension.class)
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
  void anUnknownKeyIsReportedWithTheNearestKnownOneAndNoBinderInternals(CapturedOutput output) {
    Throwable failure =
        start(
            "--relent.clients.payments.base-url=https://api.example.com",
            "--relent.clients.payments.max-retires=3",
            "--relent.clients.payments.api-key=sk_live_secret");

    // What Spring Boot prints: this analyzer's report, not the binder's.
    assertThat(output)
        .contains(
            "relent.clients.payments.max-retires is not a Relent property; the nearest is"
                + " relent.clients.payments.max-retries")
        .contains("relent.clients.payments.api-key is not a Relent property")
        .doesNotContain("Bindable@")
        .doesNotContain("sk_live_secret");
    FailureAnalysis analysis = new RelentPropertyFailureAnalyzer().analyze(failure);
    assertThat(analysis.getDescription())
        .isEqualTo(
            "relent.clients.payments.api-key is not a Relent property; no key of Relent's is near"
                + " it (from \"relent.clients.payments.api-key\" from property source"
                + " \"commandLineArgs\")\n"
                + "relent.clients.payments.max-retires is not a Relent property; the nearest is"
                + " relent.clients.payments.max-retries (from \"relent.clients.payments.max-retires\""
                + " from property source \"commandLineArgs\")");
    assertThat(analysis.getAction())
        .startsWith(
            "Rename or remove relent.clients.payments.api-key, relent.clients.payments.max-retires;"
                + " every relent.* key and its default is listed in docs/spring-boot.md");
  }

  @Test
  void aTypoInANestedKeyOrInDefaultsGetsItsNearestKey() {
    assertThat(
            new RelentPropertyFailureAnalyzer()
                .analyze(
                    start(
                        "--relent.defaults.breakr.enabled=true",
                        "--relent.clients.payments.base-url=https://api.example.com"))
                .getDescription())
        .startsWith(
            "relent.defaults.breakr.enabled is not a Relent property; the nearest is"
                + " relent.defaults.breaker.enabled");
    assertThat(
            new RelentPropertyFailureAnalyzer()
                .analyze(
                    start(
                        "--relent.client.payments.base-url=https://api.example.com",
                        "--relent.clients.search.base-url=https://search.example.com"))
                .getDescription())
        .startsWith(
            "relent.client.payments.base-url is not a Relent property; the nearest is"
                + " relent.clients.payments.base-url");
  }

  @Test
  void aValueOfTheWrongTypeIsReportedWithWhatIsAllowed(CapturedOutput output) {
    Throwable failure =
        start(
            "--relent.clients.payments.base-url=https://api.example.com",
            "--relent.clients.payments.deadline=thirty seconds");

    assertThat(output).doesNotContain("Bindable@").doesNotContain("java.time.Duration");
    FailureAnalysis analysis = new RelentPropertyFailureAnalyzer().analyze(failure);
    assertThat(analysis.getDescription())
        .isEqualTo(
            "relent.clients.payments.deadline: \"thirty seconds\" is not a duration: write it as"
                + " 500ms, 30s, 1m or PT30S (from \"relent.clients.payments.deadline\" from"
                + " property source \"commandLineArgs\")");
    assertThat(analysis.getAction()).startsWith("Change relent.clients.payments.deadline in");

    assertThat(
            new RelentPropertyFailureAnalyzer()
                .analyze(
                    start(
                        "--relent.clients.payments.base-url=https://api.example.com",
                        "--relent.clients.payments.backoff.jitter=fulll"))
                .getDescription())
        .startsWith(
            "relent.clients.payments.backoff.jitter: \"fulll\" is not one of none, full, equal,"
                + " decorrelated");
    assertThat(
            new RelentPropertyFailureAnalyzer()
                .analyze(
                    start(
                        "--relent.clients.payments.base-url=https://api.example.com",
                        "--relent.clients.payments.max-retries=three"))
                .getDescription())
        .startsWith("relent.clients.payments.max-retries: \"three\" is not a whole number");
  }

  /** Starts the application with these arguments, which must stop it; returns what stopped it. */
  private static Throwable start(String... args) {
    SpringApplication app = new SpringApplication(App.class);
    app.setWebApplicationType(WebApplicationType.NONE);
    String[] all = new String[args.length + 1];
    all[0] = "--spring.config.name=none";
    System.arraycopy(args, 0, all, 1, args.length);
    Throwable[] failure = new Throwable[1];
    assertThatThrownBy(
            () -> {
              try {
                app.run(all);
              } catch (RuntimeException e) {
                failure[0] = e;
                throw e;
              }
            })
        .isNotNull();
    return failure[0];
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
