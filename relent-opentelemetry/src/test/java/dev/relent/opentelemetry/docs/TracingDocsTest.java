package dev.relent.opentelemetry.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RetryPolicy;
import dev.relent.http.RelentHttpResponse;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.opentelemetry.RelentTracing;
import dev.relent.testing.MockServerExtension;
import dev.relent.testing.docs.DocSnippets;
import dev.relent.time.FakeTime;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples of docs/tracing.md, compiled and run against the mock server. */
class TracingDocsTest {
  private static final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/flaky")
                  .steps(Step.status(503), Step.status(503), Step.ok("ok"))
                  .route("/payments/{id}")
                  .steps(Step.ok("paid"))
                  .build())
          .withClock(time);

  @Test
  void thePageShowsTheseExamples() {
    DocSnippets.assertPageShowsSnippetsOf("../docs/tracing.md", TracingDocsTest.class);
  }

  @Test
  void aRetriedCallIsTraced(MockServer server) throws Exception {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    // --- begin sdk (with imports)
    SdkTracerProvider tracerProvider =
        SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)) // production: a batch one
            .build();
    OpenTelemetry openTelemetry =
        OpenTelemetrySdk.builder()
            .setTracerProvider(tracerProvider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    // --- end
    URI uri = server.uri("/flaky");

    // --- begin client (with imports)
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient())
            .withPolicy(RetryPolicy.builder().withMaxRetries(3).build())
            .withTime(time) // test only
            .withCallObserver(RelentTracing.of(openTelemetry))
            .build();

    HttpRequest request = HttpRequest.newBuilder(uri).GET().build();
    RelentHttpResponse<String> response = http.send(request, BodyHandlers.ofString());
    // one span "relent GET" over three client spans "GET": 503, 503 (resend 1), 200 (resend 2)
    // --- end

    assertThat(response.statusCode()).isEqualTo(200);
    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).hasSize(4);
    assertThat(spans.stream().filter(s -> s.getKind() == SpanKind.CLIENT)).hasSize(3);
    assertThat(spans.stream().filter(s -> s.getName().equals("relent GET"))).hasSize(1);
    assertThat(server.journal()).allSatisfy(e -> assertThat(e.header("traceparent")).isNotNull());
    tracerProvider.close();
  }

  // --- begin spring
  // With Spring: annotate it @Bean, and Spring passes the application's OpenTelemetry bean.
  static RelentHttpClient paymentsClient(OpenTelemetry openTelemetry) {
    RelentTracing tracing =
        RelentTracing.builder(openTelemetry)
            .withRoute(call -> call.uri().contains("/payments/") ? "/payments/{id}" : null)
            .build();
    return RelentHttpClient.builder(HttpClient.newHttpClient())
        .withTime(time) // test only
        .withCallObserver(tracing)
        .build();
  }

  // --- end

  @Test
  void aRouteKeepsIdentifiersOutOfSpanNames(MockServer server) throws Exception {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    OpenTelemetry otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    paymentsClient(otel)
        .send(
            HttpRequest.newBuilder(server.uri("/payments/pay_8812")).build(),
            BodyHandlers.ofString());
    assertThat(exporter.getFinishedSpanItems())
        .extracting(SpanData::getName)
        .containsExactlyInAnyOrder("GET /payments/{id}", "relent GET /payments/{id}");
    provider.close();
  }
}
