package dev.relent.testing;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentExecutor;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.time.FakeTime;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lower bounds of the spacing assertions, each both ways: a correct client passes, one that
 * comes back too soon fails with a message giving the numbers. The server and the client share one
 * fake time, so the journal's gaps are the client's waits.
 */
class SpacingAssertTest {
  private static final Backoff FULL =
      Backoff.builder()
          .withBase(Duration.ofMillis(100))
          .withCap(Duration.ofSeconds(2))
          .withJitter(Jitter.FULL)
          .build();

  private final FakeTime time = new FakeTime();
  private final HttpClient client = HttpClient.newHttpClient();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/down")
                  .steps(Step.status(503).times(24), Step.status(200))
                  .route("/twice")
                  .steps(Step.status(503).times(2), Step.status(200))
                  .withSequencePer("header:X-Request-Id")
                  .route("/limited")
                  .steps(Step.status(429).withHeader("Retry-After", "2"), Step.status(200))
                  .build())
          .withClock(time);

  /** A client that retries 503s with the given backoff, waiting on the shared fake time. */
  private RelentExecutor<HttpResponse<Void>> retrying(Backoff backoff, int maxRetries) {
    RetryPolicy policy =
        RetryPolicy.builder()
            .withBackoff(backoff)
            .withMaxRetries(maxRetries)
            .withDeadline(Duration.ofHours(1))
            .build();
    return RelentExecutor.<HttpResponse<Void>>builder(policy)
        .retryIf(response -> response.statusCode() == 503)
        .withTime(time)
        .build();
  }

  @Test
  void aFullJitterClientPassesTheJitterCheck(MockServer server) {
    HttpRequest down = HttpRequest.newBuilder(server.uri("/down")).build();
    HttpResponse<Void> response =
        retrying(FULL, 24).get(() -> client.send(down, HttpResponse.BodyHandlers.discarding()));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(server.journal())
        .hasAttempts(25)
        .spacedWithin(Envelope.of(FULL))
        .gapsLookJittered(Envelope.of(FULL));
  }

  @Test
  void aClientThatRetriesAtOnceIsInsideTheFullJitterEnvelopeButFailsTheJitterCheck(
      MockServer server) throws Exception {
    for (int i = 0; i < 25; i++) {
      Requests.get(client, server, "/down"); // no wait at all between attempts
    }

    assertThat(server.journal()).hasAttempts(25).spacedWithin(Envelope.of(FULL));
    assertThatThrownBy(() -> assertThat(server.journal()).gapsLookJittered(Envelope.of(FULL)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the gaps do not look jittered: their mean position in Envelope[")
        .hasMessageContaining(
            "is 0.000 over 24 gaps, outside [0.25, 0.75] (0 = no wait, 1 = the whole window,")
        .hasMessageContaining("positions: [0.00, 0.00,");
  }

  @Test
  void aClientThatAlwaysWaitsTheWholeWindowFailsTheJitterCheck(MockServer server) throws Exception {
    Requests.get(client, server, "/down");
    for (int retry = 1; retry <= 24; retry++) {
      time.advanceNanos(FULL.windowNanos(retry, 0)); // inside the envelope, but never jittered
      Requests.get(client, server, "/down");
    }

    assertThat(server.journal()).spacedWithin(Envelope.of(FULL));
    assertThatThrownBy(() -> assertThat(server.journal()).gapsLookJittered(Envelope.of(FULL)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("is 1.000 over 24 gaps, outside [0.25, 0.75]");
  }

  @Test
  void tooFewGapsCannotBeJudged(MockServer server) {
    HttpRequest down = HttpRequest.newBuilder(server.uri("/down")).build();
    assertThatThrownBy(
            () ->
                retrying(FULL, 3)
                    .get(() -> client.send(down, HttpResponse.BodyHandlers.discarding())))
        .isInstanceOf(RetriesExhaustedException.class);

    assertThatThrownBy(() -> assertThat(server.journal()).gapsLookJittered(Envelope.of(FULL)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "judging jitter needs at least 20 gaps, but there are 3: make more requests or let"
                + " them retry more");
  }

  @Test
  void manyRequestsAreJudgedTogetherGroupedByTheirId(MockServer server) {
    RelentExecutor<HttpResponse<Void>> executor = retrying(FULL, 5);
    for (int i = 0; i < 10; i++) {
      HttpRequest twice =
          HttpRequest.newBuilder(server.uri("/twice")).header("X-Request-Id", "r" + i).build();
      executor.get(() -> client.send(twice, HttpResponse.BodyHandlers.discarding()));
    }

    assertThat(server.journal())
        .hasAttempts(30)
        .gapsLookJittered(Envelope.of(FULL), "X-Request-Id");
  }

  @Test
  void manyRequestsThatRetryAtOnceFailTheGroupedCheck(MockServer server) throws Exception {
    for (int i = 0; i < 10; i++) {
      for (int attempt = 0; attempt < 3; attempt++) {
        Requests.get(client, server, "/twice", "X-Request-Id", "r" + i);
      }
    }
    assertThatThrownBy(
            () -> assertThat(server.journal()).gapsLookJittered(Envelope.of(FULL), "X-Request-Id"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("is 0.000 over 20 gaps");

    Requests.get(client, server, "/twice");
    assertThatThrownBy(
            () -> assertThat(server.journal()).gapsLookJittered(Envelope.of(FULL), "X-Request-Id"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("request 31 carried no X-Request-Id header");
  }

  @Test
  void onlyFullAndEqualJitterCanBeJudged(MockServer server) {
    Backoff none = Backoff.builder(FULL).withJitter(Jitter.NONE).build();
    Backoff decorrelated = Backoff.builder(FULL).withJitter(Jitter.DECORRELATED).build();

    assertThatThrownBy(() -> assertThat(server.journal()).gapsLookJittered(Envelope.of(none)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "judging jitter needs full or equal jitter, whose waits are uniform in their window,"
                + " but the backoff's jitter is NONE: every gap is exact, and spacedWithin checks"
                + " it");
    assertThatThrownBy(
            () -> assertThat(server.journal()).gapsLookJittered(Envelope.of(decorrelated), "Id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("DECORRELATED: each wait's range depends on the wait before");
  }

  @Test
  void anEqualJitterClientIsJudgedAgainstItsOwnLowerBound(MockServer server) {
    Backoff equal = Backoff.builder(FULL).withJitter(Jitter.EQUAL).build();
    HttpRequest down = HttpRequest.newBuilder(server.uri("/down")).build();
    retrying(equal, 24).get(() -> client.send(down, HttpResponse.BodyHandlers.discarding()));

    assertThat(server.journal())
        .spacedWithin(Envelope.of(equal))
        .gapsLookJittered(Envelope.of(equal));
  }

  @Test
  void aWaitAsLongAsTheRetryAfterPasses(MockServer server) throws Exception {
    Requests.get(client, server, "/limited"); // 429, Retry-After: 2
    time.advance(Duration.ofSeconds(2));
    Requests.get(client, server, "/limited"); // 200
    Requests.get(client, server, "/limited"); // at once: only the gaps after a 429 are checked

    assertThat(server.journal()).hasAttempts(3).honoursRetryAfter(429, Duration.ofSeconds(2));
    assertThatThrownBy(() -> assertThat(server.journal()).spacedAtLeast(Duration.ofSeconds(2)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("request 3 came PT0S after the one before");
  }

  @Test
  void aRetrySoonerThanTheRetryAfterFails(MockServer server) throws Exception {
    Requests.get(client, server, "/limited");
    time.advance(Duration.ofMillis(100)); // a backoff that ignored the server's 2 s
    Requests.get(client, server, "/limited");

    assertThatThrownBy(
            () -> assertThat(server.journal()).honoursRetryAfter(429, Duration.ofSeconds(2)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "request 2 came PT0.1S after request 1 was answered 429, sooner than its Retry-After"
                + " of PT2S; gaps: [PT0.1S]");
  }

  @Test
  void aRetryAfterCheckWithNothingToCheckFails(MockServer server) throws Exception {
    Requests.get(client, server, "/down");
    Requests.get(client, server, "/down");
    assertThatThrownBy(
            () -> assertThat(server.journal()).honoursRetryAfter(429, Duration.ofSeconds(2)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "no answer 429 was followed by another request, so nothing shows whether its"
                + " Retry-After was honoured:");
  }
}
