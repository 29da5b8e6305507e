package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An adaptive pacer that has learned no rate yet is shown as learning, not as a 1 ns interval in
 * health and NaN in the meters; once the server's rate-limit headers teach it a rate, both show the
 * interval it keeps.
 */
class AdaptivePacerStateTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.parse(
                  "{\"routes\": [{\"method\": \"GET\", \"path\": \"/v1/items\", \"steps\": ["
                      + "{\"status\": 200, \"headers\": {\"RateLimit-Remaining\": \"9\","
                      + " \"RateLimit-Reset\": \"10\"}, \"body\": \"ok\"}]}]}"))
          .withClock(time);

  @Test
  void aPacerWithoutARateIsLearningInHealthAndNoGaugeReadsNaN(MockServer server) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
        .withBean(TimeSource.class, () -> time)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(
            "relent.clients.items.base-url=" + server.baseUri(),
            "relent.clients.items.pacer.adaptive=true")
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              context.getBean(RelentClientMetrics.class).bindTo(registry);
              RelentHealthIndicator health = context.getBean(RelentHealthIndicator.class);

              assertThat(pacer(health))
                  .containsEntry("learning", true)
                  .doesNotContainKey("interval");
              assertThat(interval(registry)).isZero();
              assertNoGaugeReadsNaN(registry);

              String body =
                  context
                      .getBean(RelentRestClients.class)
                      .restClient("items")
                      .get()
                      .uri("/v1/items")
                      .retrieve()
                      .body(String.class);

              assertThat(body).isEqualTo("ok");
              // 9 more in the next 10 s: a start every 10/9 s, rounded up to the nanosecond.
              Duration learned = Duration.parse((String) pacer(health).get("interval"));
              assertThat(learned).isBetween(Duration.ofMillis(1100), Duration.ofMillis(1200));
              assertThat(pacer(health)).doesNotContainKey("learning");
              assertThat(interval(registry)).isEqualTo(learned.toNanos() / 1e9);
              assertNoGaugeReadsNaN(registry);
            });
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> pacer(RelentHealthIndicator health) {
    Map<String, Object> client = (Map<String, Object>) health.health().getDetails().get("items");
    return (Map<String, Object>) client.get("pacer");
  }

  private static double interval(MeterRegistry registry) {
    return registry
        .get("relent.pacer.interval")
        .tag("name", "items")
        .timeGauge()
        .value(TimeUnit.SECONDS);
  }

  private static void assertNoGaugeReadsNaN(MeterRegistry registry) {
    assertThat(registry.find("relent.pacer.rate").meters()).isEmpty();
    assertThat(registry.getMeters())
        .allSatisfy(
            m -> {
              if (m instanceof TimeGauge) {
                assertThat(((TimeGauge) m).value(TimeUnit.SECONDS))
                    .as(m.getId().getName())
                    .isNotNaN();
              } else if (m instanceof Gauge) {
                assertThat(((Gauge) m).value()).as(m.getId().getName()).isNotNaN();
              }
            });
  }
}
