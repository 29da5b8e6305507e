package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.Scope;
import dev.relent.mockserver.MockServer;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What the starter wires around the calls: meters and spans when their beans exist, and the health
 * contributor's verdict on a paused scope.
 */
class ObservabilityTest {
  private final FakeTime time = new FakeTime();
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.fromResource("/sample-scenario.json").withClock(time);

  private ApplicationContextRunner runner(MockServer server) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
        .withBean(TimeSource.class, () -> time)
        .withPropertyValues("relent.clients.payments.base-url=" + server.baseUri());
  }

  @Test
  void aRetriedCallIsMeteredAndTraced(MockServer server) {
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    runner(server)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(OpenTelemetry.class, () -> otel)
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              context
                  .getBean(RelentClientMetrics.class)
                  .bindTo(registry); // Boot's post-processor does this in an application

              String body =
                  context
                      .getBean(RelentRestClients.class)
                      .restClient("payments")
                      .get()
                      .uri("/v1/balance")
                      .retrieve()
                      .body(String.class);

              assertThat(body).isEqualTo("{\"balance\":42}");
              assertThat(
                      registry
                          .get("relent.calls")
                          .tags("name", "payments", "outcome", "success", "retried", "true")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
              assertThat(
                      registry
                          .get("relent.attempts")
                          .tags("name", "payments", "kind", "retry")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
              List<SpanData> finished = spans.getFinishedSpanItems();
              assertThat(finished.stream().map(SpanData::getName).collect(Collectors.toList()))
                  .contains("relent GET");
              List<SpanData> requests =
                  finished.stream()
                      .filter(s -> s.getKind() == SpanKind.CLIENT)
                      .collect(Collectors.toList());
              assertThat(requests).hasSize(2);
              assertThat(
                      requests.stream()
                          .map(
                              s ->
                                  s.getAttributes()
                                      .get(AttributeKey.longKey("http.request.resend_count")))
                          .collect(Collectors.toList()))
                  .containsExactlyInAnyOrder(null, 1L);
              // Each request carried its own traceparent.
              assertThat(server.journal())
                  .allSatisfy(e -> assertThat(e.header("traceparent")).isNotBlank());
            });
  }

  @Test
  void aPausedScopeTakesTheClientOutOfService(MockServer server) {
    runner(server)
        .withPropertyValues(
            "relent.clients.payments.scopes.enabled=true",
            "management.health.relent.affects-status=true")
        .run(
            context -> {
              RelentClient payments = context.getBean(RelentClients.class).client("payments");
              RelentHealthIndicator health = context.getBean(RelentHealthIndicator.class);
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);

              payments
                  .registry()
                  .orElseThrow()
                  .guards(Scope.account("127.0.0.1"))
                  .pause(Duration.ofMinutes(5), "HTTP 429 from GET http://127.0.0.1/v1/balance");

              Health paused = health.health();
              assertThat(paused.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
              @SuppressWarnings("unchecked")
              Map<String, Object> detail =
                  (Map<String, Object>) paused.getDetails().get("payments");
              assertThat(detail).containsEntry("status", "OUT_OF_SERVICE");
              assertThat(detail.get("pausedScopes").toString())
                  .contains("account 127.0.0.1")
                  .contains("pausedUntil=2026-01-01T00:05:00Z")
                  .contains("HTTP 429 from GET");
            });
  }
}
