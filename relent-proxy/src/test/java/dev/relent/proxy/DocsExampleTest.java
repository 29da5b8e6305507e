package dev.relent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RetryPolicy;
import dev.relent.guard.Pacer;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** docs/proxy.md's Java example, with the mock server as the upstream and a free port. */
class DocsExampleTest {
  @Test
  void theJavaExampleRunsAsWritten() throws Exception {
    try (MockServer api =
        MockServer.start(
            Scenario.builder()
                .route("POST", "/v1/payments")
                .steps(Step.status(503), Step.ok("paid"))
                .build())) {
      try (RelentProxy proxy =
          RelentProxy.builder()
              .withReverse("127.0.0.1:0", api.baseUri())
              .withKeyedRoutes("POST /v1/payments")
              .withPolicy(
                  RetryPolicy.builder()
                      .withMaxRetries(4)
                      .withBackoff(
                          dev.relent.Backoff.builder().withBase(Duration.ofMillis(10)).build())
                      .build())
              .withExecutor(x -> x.withPacer(Pacer.of(90, Duration.ofMinutes(1))))
              .withLogSink(null)
              .start()) {
        HttpResponse<String> r =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create(proxy.baseUri() + "/v1/payments"))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("2");
        assertThat(r.headers().firstValue("Relent-Idempotency-Key")).isPresent();
      }
    }
  }
}
