package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.CircuitBreaker;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/** The properties as Spring binds them, what start-up refuses, and what is wired when. */
class RelentAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
          .withBean(TimeSource.class, FakeTime::new);

  @Test
  void everyPropertyIsBoundToTheNamedClient() {
    runner
        .withPropertyValues(
            "relent.clients.payments.base-url=https://api.example.com/v1",
            "relent.clients.payments.max-retries=3",
            "relent.clients.payments.deadline=5s",
            "relent.clients.payments.attempt-timeout=2s",
            "relent.clients.payments.max-server-wait=4s",
            "relent.clients.payments.backoff.base=100ms",
            "relent.clients.payments.backoff.cap=1s",
            "relent.clients.payments.backoff.jitter=none",
            "relent.clients.payments.idempotency-keys=true",
            "relent.clients.payments.breaker.enabled=true",
            "relent.clients.payments.breaker.open-duration=10s",
            "relent.clients.payments.budget.enabled=true",
            "relent.clients.payments.budget.ratio=0.2",
            "relent.clients.payments.pacer.permits=90",
            "relent.clients.payments.pacer.per=1m",
            "relent.clients.payments.max-concurrent=8",
            "relent.clients.payments.attempt-body-limit=64KB",
            "relent.clients.payments.scopes.routes=/v1/payments/{id}",
            "relent.clients.search.base-url=http://search.internal")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              RelentClients clients = context.getBean(RelentClients.class);
              assertThat(clients.names()).containsExactly("payments", "search");
              RelentClient payments = clients.client("payments");
              assertThat(payments.baseUrl())
                  .hasValueSatisfying(u -> assertThat(u).hasToString("https://api.example.com/v1"));
              var policy = payments.policy().config();
              assertThat(policy.maxRetries()).isEqualTo(3);
              assertThat(policy.deadline()).isEqualTo(Duration.ofSeconds(5));
              assertThat(policy.attemptTimeout()).isEqualTo(Duration.ofSeconds(2));
              assertThat(policy.maxServerWait()).contains(Duration.ofSeconds(4));
              assertThat(policy.backoff().toString()).contains("100").contains("NONE");
              assertThat(payments.idempotencyKeys()).isTrue();
              assertThat(payments.attemptBodyLimit()).isEqualTo(64 * 1024);
              assertThat(payments.circuitBreaker())
                  .hasValueSatisfying(
                      b -> assertThat(b.state()).isEqualTo(CircuitBreaker.State.CLOSED));
              assertThat(payments.retryBudget()).isPresent();
              assertThat(payments.pacer())
                  .hasValueSatisfying(
                      p -> assertThat(p.interval()).isEqualTo(Duration.ofNanos(666_666_667)));
              assertThat(payments.concurrencyLimit())
                  .hasValueSatisfying(l -> assertThat(l.maxConcurrent()).isEqualTo(8));
              assertThat(payments.registry()).isPresent();

              RelentClient search = clients.client("search");
              assertThat(search.policy().config().maxRetries()).isEqualTo(5);
              assertThat(search.circuitBreaker()).isEmpty();
              assertThat(search.retryBudget()).isEmpty();
              assertThat(search.pacer()).isEmpty();
              assertThat(search.registry()).isEmpty();
              assertThat(search.idempotencyKeys()).isFalse();
              assertThat(search.attemptBodyLimit()).isEqualTo(1024 * 1024);
            });
  }

  @Test
  void everyClientStartsFromTheDefaultsAndOverridesThem() {
    runner
        .withPropertyValues(
            "relent.defaults.max-retries=2",
            "relent.defaults.breaker.enabled=true",
            "relent.defaults.scopes.routes=/v1/items/{id}",
            "relent.clients.a.base-url=https://a.example.com",
            "relent.clients.b.base-url=https://b.example.com",
            "relent.clients.b.max-retries=7",
            "relent.clients.b.breaker.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              RelentClients clients = context.getBean(RelentClients.class);
              assertThat(clients.client("a").policy().config().maxRetries()).isEqualTo(2);
              assertThat(clients.client("a").circuitBreaker()).isPresent();
              assertThat(clients.client("a").registry()).isPresent();
              assertThat(clients.client("b").policy().config().maxRetries()).isEqualTo(7);
              assertThat(clients.client("b").circuitBreaker()).isEmpty();
              assertThat(clients.client("b").registry()).isPresent();
            });
  }

  @Test
  void aRefusedDefaultFailsStartUpNamingIt() {
    runner
        .withPropertyValues(
            "relent.defaults.max-retries=-2", "relent.clients.a.base-url=https://a.example.com")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .isInstanceOf(RelentPropertyException.class)
                  .hasMessageStartingWith("relent.defaults.max-retries: -2 is refused");
            });
  }

  @Test
  void aRefusedValueFailsStartUpNamingTheProperty() {
    assertRefused(
        "relent.clients.payments.max-retries=-1",
        "relent.clients.payments.max-retries: -1 is refused (maxRetries must be >= 0");
    assertRefused("relent.clients.payments.deadline=0s", "relent.clients.payments.deadline: PT0S");
    assertRefused(
        "relent.clients.payments.breaker.enabled=true",
        "relent.clients.payments.breaker.open-duration: PT0S",
        "relent.clients.payments.breaker.open-duration=0s");
    assertRefused(
        "relent.clients.payments.pacer.permits=0", "relent.clients.payments.pacer.permits: 0");
    assertRefused(
        "relent.clients.payments.max-concurrent=0", "relent.clients.payments.max-concurrent: 0");
    assertRefused(
        "relent.clients.payments.attempt-body-limit=2GB",
        "relent.clients.payments.attempt-body-limit: 2147483648B is refused (attemptBodyLimit must"
            + " be between 0 and 1 GiB");
    assertRefused(
        "relent.clients.payments.base-url=ftp://files.example.com",
        "relent.clients.payments.base-url: ftp://files.example.com is refused (an absolute http or"
            + " https URL is needed");
  }

  @Test
  void aConflictOfTwoPropertiesNamesTheOneSetWithItsOwnValue() {
    assertRefused(
        "relent.clients.payments.max-server-wait=20s",
        "relent.clients.payments.max-server-wait: PT20S is refused (it cannot exceed"
            + " relent.clients.payments.deadline, which is PT10S (set by"
            + " relent.clients.payments.deadline): a wait past the deadline always fails); lower"
            + " relent.clients.payments.max-server-wait or raise relent.clients.payments.deadline",
        "relent.clients.payments.deadline=10s");
    assertRefused(
        "relent.clients.payments.max-server-wait=1m",
        "relent.clients.payments.max-server-wait: PT1M is refused (it cannot exceed"
            + " relent.clients.payments.deadline, which is PT30S (Relent's default)");
    assertRefused(
        "relent.clients.payments.deadline=1s",
        "relent.clients.payments.deadline: PT1S is refused (it cannot be below"
            + " relent.clients.payments.max-server-wait, which is PT2S (set by"
            + " relent.defaults.max-server-wait)",
        "relent.defaults.max-server-wait=2s");
    assertRefused(
        "relent.clients.payments.backoff.base=60s",
        "relent.clients.payments.backoff.base: PT1M is refused (it cannot exceed"
            + " relent.clients.payments.backoff.cap, which is PT30S (Relent's default)");
    assertRefused(
        "relent.clients.payments.backoff.cap=100ms",
        "relent.clients.payments.backoff.cap: PT0.1S is refused (it cannot be below"
            + " relent.clients.payments.backoff.base, which is PT0.5S (Relent's default)");
  }

  @Test
  void aCountWindowSetAloneBelowTheDefaultMinimumCallsIsBlamedNotMinimumCalls() {
    assertRefused(
        "relent.clients.payments.breaker.count-window=10",
        "relent.clients.payments.breaker.count-window: 10 is refused (it cannot be below"
            + " relent.clients.payments.breaker.minimum-calls, which is 20 (Relent's default): the"
            + " breaker judges its failure rate only once its window holds minimum-calls calls, so"
            + " it could never open); raise relent.clients.payments.breaker.count-window, or set"
            + " relent.clients.payments.breaker.minimum-calls to at most 10",
        "relent.clients.payments.breaker.enabled=true");
    assertRefused(
        "relent.clients.payments.breaker.minimum-calls=200",
        "relent.clients.payments.breaker.minimum-calls: 200 is refused (it cannot exceed"
            + " relent.clients.payments.breaker.count-window, which is 100 (Relent's default)",
        "relent.clients.payments.breaker.enabled=true");
  }

  @Test
  void aClientWithoutBaseUrlFailsStartUpNamingIt() {
    runner
        .withPropertyValues("relent.clients.payments.max-retries=3")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .isInstanceOf(RelentPropertyException.class)
                  .hasMessage(
                      "relent.clients.payments.base-url is required: every client needs the"
                          + " absolute http or https URL its relative paths resolve against, e.g."
                          + " relent.clients.payments.base-url=https://api.example.com (or"
                          + " relent.defaults.base-url for every client)");
            });
    runner
        .withPropertyValues(
            "relent.defaults.base-url=https://api.example.com",
            "relent.clients.payments.max-retries=3")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aPasswordInTheBaseUrlIsRefusedWithoutShowingIt() {
    runner
        .withPropertyValues("relent.clients.payments.base-url=https://user:hunter2@api.example.com")
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable root = rootCause(context.getStartupFailure());
              assertThat(root)
                  .isInstanceOf(RelentPropertyException.class)
                  .hasMessageContaining("relent.clients.payments.base-url")
                  .hasMessageContaining("credentials do not belong in the base URL")
                  .hasMessageNotContaining("hunter2");
            });
  }

  @Test
  void anUnknownKeyFailsStartUpNamingIt() {
    runner
        .withPropertyValues(
            "relent.clients.payments.base-url=https://api.example.com",
            "relent.clients.payments.max-retires=3")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains("relent.clients.payments.max-retires");
            });
  }

  @Test
  void aTypoInAValueFailsStartUpNamingTheProperty() {
    runner
        .withPropertyValues("relent.clients.payments.deadline=thirty seconds")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains("relent.clients.payments.deadline");
            });
  }

  @Test
  void anUnknownClientNameSaysWhichClientsThereAre() {
    runner
        .withPropertyValues("relent.clients.payments.base-url=https://api.example.com")
        .run(
            context -> {
              RelentClients clients = context.getBean(RelentClients.class);
              org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                  .isThrownBy(() -> clients.client("paymnets"))
                  .withMessage(
                      "no Relent client named \"paymnets\": the clients are [payments]; add one"
                          + " with relent.clients.paymnets.base-url=...");
            });
  }

  @Test
  void restAndWebHelpersComeWithTheirLibraries() {
    runner
        .withPropertyValues("relent.clients.payments.base-url=https://api.example.com")
        .run(
            context -> {
              assertThat(context).hasSingleBean(RelentRestClients.class);
              assertThat(context).hasSingleBean(RelentWebClients.class);
              assertThat(context.getBean(RelentRestClients.class).interceptor("payments"))
                  .isSameAs(context.getBean(RelentRestClients.class).interceptor("payments"));
            });
    runner
        .withClassLoader(new FilteredClassLoader(RestClient.class, WebClient.class))
        .withPropertyValues("relent.clients.payments.base-url=https://api.example.com")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(RelentClients.class);
              assertThat(context).doesNotHaveBean(RelentRestClients.class);
              assertThat(context).doesNotHaveBean(RelentWebClients.class);
            });
  }

  @Test
  void aFreshApplicationWithoutActuatorMetricsOrTracingStartsWithTheClientsAlone() {
    // relent-micrometer comes with the starter; Micrometer does not.
    runner
        .withClassLoader(
            new FilteredClassLoader(
                "org.springframework.boot.health",
                "org.springframework.boot.actuate",
                "io.micrometer",
                "io.opentelemetry",
                "dev.relent.opentelemetry"))
        .withPropertyValues(
            "relent.clients.payments.base-url=https://api.example.com",
            "relent.clients.payments.max-retries=3")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(RelentClients.class);
              assertThat(context).hasSingleBean(RelentRestClients.class);
              assertThat(context).doesNotHaveBean(RelentHealthIndicator.class);
              assertThat(context).doesNotHaveBean(RelentEndpoint.class);
              assertThat(context).doesNotHaveBean(RelentClientMetrics.class);
            });
  }

  @Test
  void metricsAndTracingAreWiredWhenTheirBeansExist() {
    runner
        .withPropertyValues("relent.clients.payments.base-url=https://api.example.com")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(RelentClientMetrics.class);
              assertThat(context).doesNotHaveBean("relentTracingCustomizer");
            });
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(OpenTelemetry.class, OpenTelemetry::noop)
        .withPropertyValues("relent.clients.payments.base-url=https://api.example.com")
        .run(
            context -> {
              assertThat(context).hasSingleBean(RelentClientMetrics.class);
              assertThat(context).hasBean("relentTracingCustomizer");
              // The gauges of the client's guards are registered once bound.
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              context.getBean(RelentClientMetrics.class).bindTo(registry);
              assertThat(context.getBean(RelentClientMetrics.class).metrics("payments").name())
                  .isEqualTo("payments");
            });
  }

  private void assertRefused(String property, String message, String... more) {
    runner
        .withPropertyValues("relent.clients.payments.base-url=https://api.example.com", property)
        .withPropertyValues(more)
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable root = rootCause(context.getStartupFailure());
              assertThat(root).isInstanceOf(RelentPropertyException.class);
              assertThat(root.getMessage()).startsWith(message);
            });
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && !(c instanceof RelentPropertyException)) {
      c = c.getCause();
    }
    return c;
  }

  private static String messages(Throwable t) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      out.append(c.getMessage()).append('\n');
    }
    return out.toString();
  }
}
