package dev.relent.scenarios;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.Backoff;
import dev.relent.RelentEvent;
import dev.relent.RetryPolicy;
import dev.relent.http.CallOptions;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.RelentHttpResponse;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.mockserver.MockServer;
import dev.relent.testing.Envelope;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.RecordingSleeper;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The retry scenarios, end to end: Relent's JDK client against the fault-injecting mock server.
 * Client and server share one {@link FakeTime}, so every backoff and {@code Retry-After} wait is
 * virtual (the client's sleeper advances the time the server stamps its journal with): the spacing
 * assertions are exact and nothing waits for real, except the attempt timeout of scenario 3, scaled
 * down to 150 ms.
 */
class RetryScenariosTest {
  private final FakeTime time = new FakeTime();
  private final RecordingSleeper sleeper = time.sleeper();
  private final List<RelentEvent<HttpResponse<?>>> events =
      Collections.synchronizedList(new ArrayList<>());

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.fromResource("/scenarios/payments-api.json").withClock(time);

  private RelentHttpClient client(RetryPolicy policy) {
    return RelentHttpClient.builder(HttpClient.newHttpClient())
        .withPolicy(policy)
        .withTime(time.withSeed(7))
        .withExecutor(x -> x.onEvent(events::add))
        .build();
  }

  private RelentHttpClient client() {
    return client(RetryPolicy.builder().build());
  }

  @Test
  void scenario1_twoUnavailablesThenSuccessWithinTheFullJitterEnvelope(MockServer server)
      throws Exception {
    RelentHttpResponse<String> response =
        client()
            .send(HttpRequest.newBuilder(server.uri("/flaky")).build(), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("ok");
    assertThat(response.attempts()).isEqualTo(3);
    assertThat(server.journal())
        .onPath("/flaky")
        .hasAttempts(3)
        .spacedWithin(Envelope.of(Backoff.ofDefaults()));
    // Full jitter, base 500 ms: at most 0.5 s + 1 s in all.
    assertThat(time.elapsed()).isLessThanOrEqualTo(Duration.ofMillis(1500));
    assertThat(sleeper.waits()).hasSize(2);
  }

  @Test
  void scenario2_retryAfterFiveSecondsIsAMinimum(MockServer server) throws Exception {
    RelentHttpResponse<String> response =
        client()
            .send(HttpRequest.newBuilder(server.uri("/limited")).build(), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(server.journal())
        .onPath("/limited")
        .hasAttempts(2)
        .spacedAtLeast(Duration.ofSeconds(5));
    // The spread on top of a server's wait is at most 10 %.
    assertThat(time.elapsed()).isBetween(Duration.ofSeconds(5), Duration.ofMillis(5500));
  }

  @Test
  void scenario3_aSlowAnswerPastTheAttemptTimeoutIsRetried(MockServer server) throws Exception {
    RelentHttpClient http =
        client(
            RetryPolicy.builder()
                .withAttemptTimeout(Duration.ofMillis(150)) // the server stalls 1.5 s first
                .build());

    RelentHttpResponse<String> response =
        http.send(HttpRequest.newBuilder(server.uri("/slow")).build(), BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("fast");
    assertThat(response.attempts()).isEqualTo(2);
    assertThat(server.journal()).onPath("/slow").hasAttempts(2);
    assertThat(events.get(0).type()).isEqualTo(RelentEvent.Type.ATTEMPT_STARTED);
    RelentEvent<HttpResponse<?>> first = events.get(1);
    assertThat(first.type()).isEqualTo(RelentEvent.Type.ATTEMPT);
    assertThat(first.failure())
        .get()
        .satisfies(f -> assertThat(f).hasRootCauseInstanceOf(HttpTimeoutException.class));
    assertThat(first.verdict().orElseThrow().rule()).contains("timeout");
  }

  @Test
  void scenario4_aKeyedPaymentSurvivesA504AfterCreateAndAResetAndExistsOnce(MockServer server)
      throws Exception {
    HttpRequest pay =
        HttpRequest.newBuilder(server.uri("/payments"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":4200,\"currency\":\"EUR\"}"))
            .build();

    RelentHttpResponse<String> response =
        client()
            .send(pay, BodyHandlers.ofString(), CallOptions.builder().withIdempotencyKey().build());

    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(response.attempts()).isEqualTo(3);
    assertThat(server.journal())
        .onPath("/payments")
        .hasAttempts(3)
        .allCarrySameHeader("Idempotency-Key");
    assertThat(server).createdExactlyOnePerKey("payments").createdResources("payments", 1);
  }

  @Test
  void scenario4_anUnkeyedPaymentIsNotResentAndTheErrorSaysWhy(MockServer server) {
    HttpRequest pay =
        HttpRequest.newBuilder(server.uri("/charges"))
            .header("X-Request-Id", "req-77")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":4200}"))
            .build();

    assertThatThrownBy(() -> client().send(pay, BodyHandlers.ofString()))
        .isInstanceOfSatisfying(
            NotRetriedWriteException.class,
            e -> {
              assertThat(e.method()).isEqualTo("POST");
              assertThat(e.status()).isEqualTo(504);
              assertThat(e.attempts()).isEqualTo(1);
              assertThat(e.getMessage()).contains("not re-sent", "Idempotency-Key");
            });
    // It was created once and the client got a 504: a person or a reconciliation job decides.
    assertThat(server.journal()).onPath("/charges").hasAttempts(1);
    assertThat(server).createdResources("charges", 1);
  }
}
