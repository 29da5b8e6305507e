package dev.relent.testing.docs;

import static dev.relent.testing.RelentAssertions.assertThat;

import dev.relent.Backoff;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.ServerHint;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.Envelope;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lower-bound examples of docs/testing.md, compiled and run. */
class TestingDocsLowerBoundsTest {
  private final FakeTime time = new FakeTime();
  private final HttpClient client = HttpClient.newHttpClient();

  // --- begin lower bounds scenario
  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/limited")
                  .steps(Step.status(429).withHeader("Retry-After", "2"), Step.status(200))
                  .route("/jobs")
                  .steps(Step.status(503).times(3), Step.status(200))
                  .withSequencePer("header:X-Request-Id") // each request sees 503 x3, then 200
                  .build())
          .withClock(time);

  // --- end

  /** A client on the shared fake time that retries 429 and 503 and honours Retry-After. */
  private RelentExecutor<HttpResponse<Void>> retryingClient(Backoff backoff) {
    return RelentExecutor.<HttpResponse<Void>>builder(
            RetryPolicy.builder().withBackoff(backoff).build())
        .retryIf(r -> r.statusCode() == 429 || r.statusCode() == 503)
        .withHintExtractor(
            (r, failure) ->
                r == null
                    ? null
                    : r.headers()
                        .firstValue("Retry-After")
                        // the scenario sends delta-seconds; relent-http reads every form
                        .map(v -> Duration.ofSeconds(Long.parseLong(v.trim())))
                        .map(wait -> ServerHint.retryAfter(wait, "Retry-After"))
                        .orElse(null))
        .withTime(time)
        .build();
  }

  @Test
  void retryAfterIsHonoured(MockServer server) {
    HttpRequest limited = HttpRequest.newBuilder(server.uri("/limited")).build();
    retryingClient(Backoff.ofDefaults()).get(() -> client.send(limited, BodyHandlers.discarding()));

    // --- begin honours retry-after
    assertThat(server.journal())
        .onPath("/limited")
        .hasAttempts(2)
        .honoursRetryAfter(429, Duration.ofSeconds(2)); // what the scenario sends with a 429
    // --- end
  }

  @Test
  void gapsLookJittered(MockServer server) {
    // --- begin gaps look jittered
    Backoff backoff = Backoff.ofDefaults();
    RelentExecutor<HttpResponse<Void>> executor = retryingClient(backoff);
    for (int i = 0; i < 7; i++) { // 7 requests x 3 retries: at least 20 gaps to judge
      HttpRequest job =
          HttpRequest.newBuilder(server.uri("/jobs")).header("X-Request-Id", "job-" + i).build();
      executor.get(() -> client.send(job, BodyHandlers.discarding()));
    }

    assertThat(server.journal())
        .onPath("/jobs")
        .spacedWithin(Envelope.of(backoff)) // no gap too long
        .gapsLookJittered(Envelope.of(backoff), "X-Request-Id"); // nor bunched at zero
    // --- end
  }
}
