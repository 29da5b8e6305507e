package dev.relent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reverse mode end to end against the mock server: the proxy's answers, headers and give-ups, and
 * what the upstream saw. Waits between attempts pass on virtual time ({@link VirtualWaits}).
 */
class ReverseModeTest {

  @Test
  void aGetIsRetriedOn503UntilItSucceedsAndTheAnswerSaysHowManyAttempts() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/items")
                .steps(Step.status(503), Step.status(503), Step.ok("three"))
                .build())) {
      HttpResponse<String> r = f.get("/items?page=2");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("three");
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("3");
      assertThat(r.headers().firstValue("Relent-Give-Up")).isEmpty();
      assertThat(f.journal()).hasSize(3);
      assertThat(f.journal().get(2).target()).isEqualTo("/items?page=2");
      // Backoff 100 ms, then 200 ms, on virtual time.
      assertThat(f.waits.waits).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
      assertThat(f.log).filteredOn(l -> l.contains(" attempt=")).hasSize(3);
      assertThat(f.log.get(0)).contains("attempt=1", "method=GET", "outcome=\"HTTP 503\"");
    }
  }

  @Test
  void retryAfterIsWaitedAsTheServerAsked() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/slow")
                .steps(Step.status(429).withHeader("Retry-After", "2"), Step.ok("ok"))
                .build())) {
      HttpResponse<String> r = f.get("/slow");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("2");
      assertThat(f.waits.waits).containsExactly(Duration.ofSeconds(2));
      assertThat(f.log.get(0)).contains("hint=\"Retry-After: 2\"");
    }
  }

  @Test
  void aHostileRetryAfterFailsAtOnceWith503AProblemBodyAndWhenToRetry() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/day")
                .steps(Step.status(429).withHeader("Retry-After", "86400"))
                .build())) {
      HttpResponse<String> r = f.get("/day");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(r.headers().firstValue("Relent-Give-Up")).isPresent();
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("1");
      assertThat(r.headers().firstValue("Retry-After")).isPresent();
      assertThat(r.body()).contains("\"status\":503", "86400 s", "\"attempts\":1");
      assertThat(f.journal()).hasSize(1);
      assertThat(f.waits.waits).isEmpty();
      assertThat(f.log).anyMatch(l -> l.contains("give-up="));
    }
  }

  @Test
  void retriesUsedUpOn503Answer503WithTheReason() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(Scenario.builder().route("/down").steps(Step.status(503)).build())) {
      HttpResponse<String> r = f.get("/down");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Relent-Give-Up")).hasValue("retries-exhausted");
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("4");
      assertThat(r.body())
          .startsWith("{\"type\":\"urn:relent:give-up:retries-exhausted\"")
          .contains("gave up after 4 attempts");
      assertThat(f.journal()).hasSize(4);
    }
  }

  @Test
  void a500AfterEveryRetryIsA502() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(Scenario.builder().route("/bug").steps(Step.status(500)).build())) {
      HttpResponse<String> r = f.get("/bug");
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.headers().firstValue("Relent-Give-Up")).hasValue("retries-exhausted");
    }
  }

  @Test
  void a404IsPassedOnAtOnce() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/gone")
                .steps(Step.status(404).withBody("no such"))
                .build())) {
      HttpResponse<String> r = f.get("/gone");
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).isEqualTo("no such");
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("1");
      assertThat(f.journal()).hasSize(1);
    }
  }

  @Test
  void anUnkeyedPostIsSentOnceAndTheUpstreamAnswerPassedOnWithTheReason() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("POST", "/pay")
                .steps(Step.status(503).withBody("busy"), Step.ok("paid"))
                .build())) {
      HttpResponse<String> r =
          f.send(
              HttpRequest.newBuilder(f.uri("/pay"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}")));
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.body()).isEqualTo("busy");
      assertThat(r.headers().firstValue("Relent-Give-Up")).hasValue("write-not-resent");
      assertThat(f.journal()).hasSize(1);
      assertThat(f.log).anyMatch(l -> l.contains("held-back="));
    }
  }

  @Test
  void aKeyedPostIsRetriedWithTheCallersKeyOnEveryAttempt() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("POST", "/pay")
                .steps(Step.status(503), Step.ok("paid"))
                .build())) {
      HttpResponse<String> r =
          f.send(
              HttpRequest.newBuilder(f.uri("/pay"))
                  .header("Idempotency-Key", "order-4711")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}")));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("paid");
      assertThat(r.headers().firstValue("Relent-Idempotency-Key")).isEmpty();
      List<JournalEntry> j = f.journal();
      assertThat(j).hasSize(2);
      assertThat(j).allMatch(e -> "order-4711".equals(e.header("Idempotency-Key")));
      assertThat(j).allMatch(e -> e.bodyBytes() == 14);
      assertThat(j.get(0).bodySha256()).isEqualTo(j.get(1).bodySha256());
    }
  }

  @Test
  void aKeyedRouteGetsOneKeyFromTheProxyForEveryAttemptAndTheAnswerNamesIt() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("POST", "/v1/orders/7/pay")
                .steps(Step.status(503), Step.ok("paid"))
                .build(),
            b -> b.withKeyedRoutes("POST /v1/orders/{id}/pay"))) {
      HttpResponse<String> r =
          f.send(
              HttpRequest.newBuilder(f.uri("/v1/orders/7/pay"))
                  .POST(HttpRequest.BodyPublishers.ofString("{}")));
      assertThat(r.statusCode()).isEqualTo(200);
      String key = r.headers().firstValue("Relent-Idempotency-Key").orElseThrow();
      assertThat(f.journal()).hasSize(2).allMatch(e -> key.equals(e.header("Idempotency-Key")));
    }
  }

  @Test
  void hopByHopHeadersAndTheProxysOwnAreNotForwardedAndHostIsTheUpstreams() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(Scenario.builder().route("/h").steps(Step.ok("h")).build())) {
      String answer =
          Raw.exchange(
              f.address(),
              "GET /h HTTP/1.1\r\nHost: proxy.local\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\n"
                  + "Keep-Alive: timeout=5\r\nProxy-Authorization: Basic c2VjcmV0\r\n"
                  + "TE: trailers\r\nX-Relent-Deadline: 30s\r\nX-Kept: yes\r\n\r\n");
      assertThat(answer).startsWith("HTTP/1.1 200").contains("Relent-Attempts: 1");
      JournalEntry e = f.journal().get(0);
      assertThat(e.header("X-Kept")).isEqualTo("yes");
      assertThat(e.header("X-Hop")).isNull();
      assertThat(e.header("Keep-Alive")).isNull();
      assertThat(e.header("Proxy-Authorization")).isNull();
      assertThat(e.header("TE")).isNull();
      assertThat(e.header("X-Relent-Deadline")).isNull();
      assertThat(e.header("Host")).isEqualTo(f.server.host() + ":" + f.server.port());
    }
  }

  @Test
  void secretsNeverReachTheLog() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder().route("/s").steps(Step.status(503), Step.ok("s")).build())) {
      HttpResponse<String> r =
          f.send(
              HttpRequest.newBuilder(f.uri("/s?api_key=sk_live_query&page=1"))
                  .header("Authorization", "Bearer sk_live_header")
                  .header("X-Api-Key", "sk_live_apikey"));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(f.log).hasSizeGreaterThanOrEqualTo(2);
      assertThat(String.join("\n", f.log)).doesNotContain("sk_live").contains("page=1");
      // The upstream still gets them: the proxy only keeps them out of its own log.
      assertThat(f.journal().get(0).header("Authorization")).isEqualTo(JournalEntry.REDACTED);
    }
  }

  @Test
  void theDeadlineHeaderShortensTheWaitAndAnswers504() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/stuck")
                .steps(Step.ok("late").withDelay(Duration.ofSeconds(5)))
                .build())) {
      HttpResponse<String> r =
          f.send(HttpRequest.newBuilder(f.uri("/stuck")).header("X-Relent-Deadline", "300ms"));
      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(r.headers().firstValue("Relent-Give-Up")).hasValue("deadline");
      HttpResponse<String> bad =
          f.send(HttpRequest.newBuilder(f.uri("/stuck")).header("X-Relent-Deadline", "soon"));
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body()).contains("X-Relent-Deadline must be a positive duration");
    }
  }

  @Test
  void healthAndMetricsAreServedByTheProxy() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder().route("/m").steps(Step.status(503), Step.ok("m")).build())) {
      assertThat(f.get("/m").statusCode()).isEqualTo(200);
      HttpResponse<String> health = f.get("/__relent/health");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"up\"");
      HttpResponse<String> metrics = f.get("/__relent/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("text/plain");
      assertThat(metrics.body())
          .contains("relent_calls_total", "relent_attempts_total", "name=\"proxy\"");
      assertThat(f.journal()).hasSize(2);
    }
  }

  @Test
  void withoutAttemptLinesOnlyGiveUpsAreLogged() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/flaky")
                .steps(Step.status(503), Step.ok("ok"))
                .route("/down")
                .steps(Step.status(503))
                .build(),
            b -> b.withAttemptLines(false))) {
      assertThat(f.get("/flaky").statusCode()).isEqualTo(200);
      assertThat(f.get("/down").statusCode()).isEqualTo(503);
      assertThat(f.log)
          .noneMatch(l -> l.contains(" attempt="))
          .anyMatch(l -> l.contains("give-up="));
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInTurn() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/one")
                .steps(Step.status(503), Step.ok("first"))
                .route("/two")
                .steps(Step.ok("second"))
                .build())) {
      String answers =
          Raw.exchange(
              f.address(),
              "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n"
                  + "Connection: close\r\n\r\n");
      assertThat(answers.indexOf("first")).isPositive().isLessThan(answers.indexOf("second"));
      assertThat(answers).contains("Relent-Attempts: 2", "Relent-Attempts: 1");
    }
  }

  @Test
  void aLargeAnswerStreamsThroughWhole() throws Exception {
    String big = "x".repeat(3 * 1024 * 1024);
    try (ProxyFixture f =
        new ProxyFixture(Scenario.builder().route("/big").steps(Step.ok(big)).build())) {
      HttpResponse<String> r = f.get("/big");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).hasSize(big.length());
      // The connection is kept and serves the next request.
      assertThat(f.get("/big").body()).hasSize(big.length());
    }
  }
}
