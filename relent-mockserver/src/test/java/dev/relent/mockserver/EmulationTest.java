package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rate limit, daily quota, concurrency limit and latency, with a fake clock where time matters. */
class EmulationTest {

  private final HttpClient client = HttpClient.newHttpClient();

  private HttpResponse<String> get(MockServer server, String path, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(server.uri(path));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String h(HttpResponse<?> r, String name) {
    return r.headers().firstValue(name).orElse(null);
  }

  @Test
  void tokenBucketRateLimitAnswers429WithExactHeaders() throws Exception {
    FakeClock clock = new FakeClock(Instant.parse("2025-01-01T10:00:00Z"));
    Scenario scenario =
        Scenario.builder()
            .route("GET", "/api")
            .withRateLimit(RateLimit.of(10, Duration.ofMinutes(1)).withKey("header:X-Client"))
            .steps(Step.ok("ok"))
            .build();
    try (MockServer server = MockServer.builder(scenario).withClock(clock).start()) {
      for (int i = 1; i <= 10; i++) {
        HttpResponse<String> r = get(server, "/api", "X-Client", "a");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(h(r, "RateLimit-Policy")).isEqualTo("\"default\";q=10;w=60");
        // One token refills every 6 s: the bucket is full again 6 s per missing token later.
        assertThat(h(r, "RateLimit")).isEqualTo("\"default\";r=" + (10 - i) + ";t=" + (6 * i));
        assertThat(h(r, "X-RateLimit-Limit")).isEqualTo("10");
        assertThat(h(r, "X-RateLimit-Remaining")).isEqualTo(Integer.toString(10 - i));
        assertThat(h(r, "X-RateLimit-Reset")).isEqualTo(Integer.toString(6 * i));
      }
      HttpResponse<String> limited = get(server, "/api", "X-Client", "a");
      assertThat(limited.statusCode()).isEqualTo(429);
      assertThat(h(limited, "Retry-After")).isEqualTo("6");
      assertThat(h(limited, "RateLimit")).isEqualTo("\"default\";r=0;t=60");
      assertThat(limited.body())
          .isEqualTo("{\"error\":\"rate_limited\",\"policy\":\"default\",\"retryAfterSeconds\":6}");
      assertThat(h(limited, "Content-Type")).isEqualTo("application/json");

      // Another key has its own bucket.
      assertThat(get(server, "/api", "X-Client", "b").statusCode()).isEqualTo(200);

      clock.advance(Duration.ofSeconds(5));
      HttpResponse<String> stillLimited = get(server, "/api", "X-Client", "a");
      assertThat(stillLimited.statusCode()).isEqualTo(429);
      assertThat(h(stillLimited, "Retry-After")).isEqualTo("1");
      clock.advance(Duration.ofSeconds(1));
      HttpResponse<String> again = get(server, "/api", "X-Client", "a");
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(h(again, "X-RateLimit-Remaining")).isEqualTo("0");

      assertThat(server.stats().outcomes("GET /api"))
          .containsEntry("step", 12L)
          .containsEntry("rate-limited", 2L);
    }
  }

  @Test
  void burstAllowsMoreAtOnceThanTheSteadyRate() throws Exception {
    FakeClock clock = new FakeClock(Instant.parse("2025-01-01T10:00:00Z"));
    Scenario scenario =
        Scenario.builder()
            .withRateLimit(RateLimit.of(1, Duration.ofSeconds(1)).withBurst(3).withName("burst"))
            .route("/a")
            .steps(Step.normal())
            .build();
    try (MockServer server = MockServer.builder(scenario).withClock(clock).start()) {
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        statuses.add(get(server, "/a").statusCode());
      }
      assertThat(statuses).containsExactly(200, 200, 200, 429);
      clock.advance(Duration.ofMillis(999));
      assertThat(get(server, "/a").statusCode()).isEqualTo(429);
      clock.advance(Duration.ofMillis(1));
      HttpResponse<String> r = get(server, "/a");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(h(r, "RateLimit-Policy")).isEqualTo("\"burst\";q=1;w=1");
      assertThat(h(r, "RateLimit")).isEqualTo("\"burst\";r=0;t=3");
    }
  }

  @Test
  void dailyQuotaAnswers429UntilTheNextUtcMidnight() throws Exception {
    FakeClock clock = new FakeClock(Instant.parse("2025-03-01T22:00:00Z"));
    Scenario scenario =
        Scenario.builder()
            .route("/quota")
            .withDailyQuota(DailyQuota.of(2))
            .steps(Step.normal())
            .build();
    try (MockServer server = MockServer.builder(scenario).withClock(clock).start()) {
      HttpResponse<String> first = get(server, "/quota");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(h(first, "RateLimit-Policy")).isEqualTo("\"daily\";q=2;w=86400");
      assertThat(h(first, "RateLimit")).isEqualTo("\"daily\";r=1;t=7200");
      assertThat(get(server, "/quota").statusCode()).isEqualTo(200);
      HttpResponse<String> over = get(server, "/quota");
      assertThat(over.statusCode()).isEqualTo(429);
      assertThat(h(over, "Retry-After")).isEqualTo("7200");
      assertThat(h(over, "X-RateLimit-Remaining")).isEqualTo("0");
      assertThat(h(over, "X-RateLimit-Reset")).isEqualTo("7200");
      assertThat(over.body())
          .isEqualTo(
              "{\"error\":\"daily_quota_exceeded\",\"limit\":2,\"resetAt\":\"2025-03-02T00:00:00Z\"}");

      clock.advance(Duration.ofSeconds(7199));
      HttpResponse<String> lastSecond = get(server, "/quota");
      assertThat(lastSecond.statusCode()).isEqualTo(429);
      assertThat(h(lastSecond, "Retry-After")).isEqualTo("1");
      clock.advance(Duration.ofSeconds(1));
      assertThat(get(server, "/quota").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void dailyQuotaCanResetAtAnotherUtcTime() throws Exception {
    FakeClock clock = new FakeClock(Instant.parse("2025-03-01T05:00:00Z"));
    Scenario scenario =
        Scenario.builder()
            .route("/quota")
            .withDailyQuota(DailyQuota.of(1).withResetAt(LocalTime.of(6, 0)).withKey("token"))
            .steps(Step.normal())
            .build();
    try (MockServer server = MockServer.builder(scenario).withClock(clock).start()) {
      assertThat(get(server, "/quota", "Authorization", "Bearer one").statusCode()).isEqualTo(200);
      HttpResponse<String> over = get(server, "/quota", "Authorization", "Bearer one");
      assertThat(h(over, "Retry-After")).isEqualTo("3600");
      assertThat(get(server, "/quota", "Authorization", "Bearer two").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void concurrencyLimitRejectsBeyondMaxActiveRequests() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .route("/busy")
            .withConcurrencyLimit(
                ConcurrentRequestLimit.of(1).withRetryAfter(Duration.ofSeconds(2)))
            .steps(
                Step.fault(InjectedFault.STALL)
                    .withBody("abcdef")
                    // long enough that B surely arrives while A holds the slot, on a busy machine
                    .withStallFor(Duration.ofSeconds(2)),
                Step.ok("free"))
            .build();
    try (MockServer server = MockServer.start(scenario);
        RawHttp a = new RawHttp(server)) {
      a.send(RawHttp.get("/busy"));
      RawHttp.Response head = a.head();
      assertThat(head.status).isEqualTo(200);
      // A is now stalled mid-body, holding the only slot.
      HttpResponse<String> b = get(server, "/busy");
      assertThat(b.statusCode()).isEqualTo(503);
      assertThat(h(b, "Retry-After")).isEqualTo("2");
      assertThat(b.body()).isEqualTo("{\"error\":\"too_many_concurrent_requests\",\"max\":1}");
      assertThat(new String(a.bodyBytes(6), java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo("abcdef");
      // A is complete, so its slot is free again.
      HttpResponse<String> c = get(server, "/busy");
      assertThat(c.statusCode()).isEqualTo(200);
      assertThat(c.body()).isEqualTo("free");
      assertThat(server.stats().outcomes("/busy"))
          .containsEntry("step", 2L)
          .containsEntry("concurrency-limited", 1L);
    }
  }

  @Test
  void concurrencyLimitCanAnswer429AndIsFreedWhenAClientHangsUp() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .withConcurrencyLimit(ConcurrentRequestLimit.of(2).withStatus(429))
            .route("/hold")
            .steps(Step.fault(InjectedFault.STALL))
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      try (RawHttp a = new RawHttp(server);
          RawHttp b = new RawHttp(server)) {
        a.send(RawHttp.get("/hold"));
        b.send(RawHttp.get("/hold"));
        a.head();
        b.head();
        assertThat(server.stats().active()).isEqualTo(2);
        assertThat(get(server, "/hold").statusCode()).isEqualTo(429);
      }
      // Both clients hung up; their slots come back when the server sees the connections end.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (server.stats().active() > 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(server.stats().active()).isZero();
    }
  }

  @Test
  void latencyIsSeededAndWithinBounds() {
    Latency latency = Latency.between(Duration.ofMillis(10), Duration.ofMillis(20)).withSeed(42);
    long[] first = new long[1_000];
    for (int n = 0; n < first.length; n++) {
      first[n] = latency.nanosFor(n);
      assertThat(first[n]).isBetween(10_000_000L, 20_000_000L);
      assertThat(latency.nanosFor(n)).isEqualTo(first[n]);
    }
    assertThat(java.util.Arrays.stream(first).distinct().count()).isGreaterThan(900);
    // SplitMix64 of (seed, n), checked against an independent implementation.
    assertThat(java.util.Arrays.copyOf(first, 6))
        .containsExactly(14330220L, 14312577L, 14440405L, 18513231L, 18691652L, 19707944L);
    Latency other = Latency.between(Duration.ofMillis(10), Duration.ofMillis(20)).withSeed(43);
    assertThat(other.nanosFor(0)).isNotEqualTo(first[0]);
    assertThat(Latency.between(Duration.ofMillis(5), Duration.ofMillis(5)).nanosFor(7))
        .isEqualTo(5_000_000L);
    assertThat(new long[] {latency.nanosFor(0), latency.nanosFor(1), latency.nanosFor(2)})
        .containsExactly(first[0], first[1], first[2]);
  }

  @Test
  void latencyDelaysTheAnswer() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .route("/lag")
            .withLatency(Latency.between(Duration.ofMillis(40), Duration.ofMillis(60)).withSeed(7))
            .steps(Step.ok("done"))
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      long start = System.nanoTime();
      assertThat(get(server, "/lag").body()).isEqualTo("done");
      assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(40_000_000L);
    }
  }
}
