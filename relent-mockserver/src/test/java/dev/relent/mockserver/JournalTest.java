package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JournalTest {

  private final HttpClient client = HttpClient.newHttpClient();

  private HttpResponse<String> send(HttpRequest request) throws Exception {
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void plantedSecretsNeverReachTheJournal() throws Exception {
    Scenario scenario = Scenario.builder().route("/charge").steps(Step.status(201)).build();
    try (MockServer server = MockServer.start(scenario)) {
      send(
          HttpRequest.newBuilder(
                  server.uri("/charge?api_key=s3cr3t-query&page=2&access_token=s3cr3t-t"))
              .header("Authorization", "Bearer s3cr3t-bearer")
              .header("Cookie", "session=s3cr3t-cookie")
              .header("X-Api-Key", "s3cr3t-api-key")
              .header("X-Request-Id", "req-7")
              .POST(HttpRequest.BodyPublishers.ofString("card=s3cr3t-card"))
              .build());
      String overHttp =
          send(HttpRequest.newBuilder(server.uri("/__relent/journal")).build()).body();
      for (String json : List.of(overHttp, server.journalJson(), server.journal().toString())) {
        assertThat(json).doesNotContain("s3cr3t").contains("REDACTED").contains("req-7");
      }
      JournalEntry e = server.journal().get(0);
      assertThat(e.target()).isEqualTo("/charge?api_key=REDACTED&page=2&access_token=REDACTED");
      assertThat(e.header("authorization")).isEqualTo("REDACTED");
      assertThat(e.header("Cookie")).isEqualTo("REDACTED");
      assertThat(e.header("X-Api-Key")).isEqualTo("REDACTED");
      assertThat(e.header("X-Request-Id")).isEqualTo("req-7");
      byte[] body = "card=s3cr3t-card".getBytes(StandardCharsets.UTF_8);
      assertThat(e.bodyBytes()).isEqualTo(body.length);
      assertThat(e.bodySha256())
          .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
    }
  }

  @Test
  void authHeadersOfAnyNameAndAFragmentAreRedactedButTheIdempotencyKeyIsKept() throws Exception {
    Scenario scenario = Scenario.builder().route("/charge").steps(Step.status(201)).build();
    try (MockServer server = MockServer.start(scenario);
        RawHttp raw = new RawHttp(server)) {
      raw.send(
          "POST /charge?page=2&code=s3cr3t-code#access_token=s3cr3t-fragment&x=1 HTTP/1.1\r\n"
              + "Host: localhost\r\n"
              + "X-Auth: s3cr3t-x-auth\r\n"
              + "X-Auth-Key: s3cr3t-x-auth-key\r\n"
              + "Proxy-Authorization: Basic s3cr3t-proxy\r\n"
              + "X-Shopify-Access-Token: s3cr3t-access-token\r\n"
              + "Idempotency-Key: order-17\r\n"
              + "Content-Length: 0\r\n\r\n");
      assertThat(raw.response().status).isEqualTo(201);
      JournalEntry e = server.journal().get(0);
      assertThat(server.journalJson()).doesNotContain("s3cr3t");
      assertThat(e.target()).isEqualTo("/charge?page=2&code=REDACTED#REDACTED");
      for (String name :
          List.of("X-Auth", "X-Auth-Key", "Proxy-Authorization", "X-Shopify-Access-Token")) {
        assertThat(e.header(name)).as(name).isEqualTo("REDACTED");
      }
      assertThat(e.header("Idempotency-Key")).isEqualTo("order-17");
    }
  }

  @Test
  void redactionOfATargetIsStableAndKeepsWhatIsNoSecret() {
    assertThat(Redaction.redactUri("/a?b=1&&token=t&")).isEqualTo("/a?b=1&&token=REDACTED&");
    assertThat(Redaction.redactUri("/a#frag?token=t")).isEqualTo("/a#REDACTED");
    assertThat(Redaction.redactUri("/a#")).isEqualTo("/a#REDACTED");
    assertThat(Redaction.redactUri("/a#REDACTED")).isEqualTo("/a#REDACTED");
    assertThat(Redaction.redactUri("/plain/path")).isEqualTo("/plain/path");
    assertThat(Redaction.isSecretHeader("X-Idempotency-Key")).isFalse();
    assertThat(Redaction.isSecretHeader("X-Request-Id")).isFalse();
  }

  @Test
  void entriesSayWhichRouteAndStepAnsweredAndHow() throws Exception {
    FakeClock clock = new FakeClock(Instant.parse("2025-01-01T00:00:00Z"));
    Scenario scenario =
        Scenario.builder()
            .route("GET", "/flaky")
            .steps(Step.status(503), Step.fault(InjectedFault.CLOSE), Step.ok("ok"))
            .build();
    try (MockServer server = MockServer.builder(scenario).withClock(clock).start();
        RawHttp raw = new RawHttp(server)) {
      raw.send(RawHttp.get("/flaky"));
      raw.response();
      raw.send(RawHttp.get("/flaky"));
      assertThat(raw.read()).isEqualTo(-1);
      send(HttpRequest.newBuilder(server.uri("/flaky")).build());
      send(HttpRequest.newBuilder(server.uri("/nothing")).build());
      List<JournalEntry> journal = server.journal();
      assertThat(journal)
          .extracting(
              JournalEntry::sequence,
              JournalEntry::endpoint,
              JournalEntry::step,
              JournalEntry::status,
              JournalEntry::fault,
              JournalEntry::outcome)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(1L, "GET /flaky", 0, 503, null, "step"),
              org.assertj.core.groups.Tuple.tuple(2L, "GET /flaky", 1, 0, "close", "step"),
              org.assertj.core.groups.Tuple.tuple(3L, "GET /flaky", 2, 200, null, "step"),
              org.assertj.core.groups.Tuple.tuple(4L, null, -1, 404, null, "no-route"));
      assertThat(journal.get(0).arrivedAt()).isEqualTo(Instant.parse("2025-01-01T00:00:00Z"));
      assertThat(journal.get(0).remoteAddress()).startsWith("127.0.0.1:");
      assertThat(server.stats().requestsPerEndpoint())
          .isEqualTo(Map.of("GET /flaky", 3L, "(no route)", 1L));
    }
  }

  @Test
  void theJournalIsABoundedRingAndResetStartsOver() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .withJournalCapacity(3)
            .route("/r")
            .steps(Step.status(503), Step.status(200))
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      for (int i = 1; i <= 5; i++) {
        send(HttpRequest.newBuilder(server.uri("/r?i=" + i)).build());
      }
      assertThat(server.journal())
          .extracting(JournalEntry::sequence, JournalEntry::target)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(3L, "/r?i=3"),
              org.assertj.core.groups.Tuple.tuple(4L, "/r?i=4"),
              org.assertj.core.groups.Tuple.tuple(5L, "/r?i=5"));
      String json = send(HttpRequest.newBuilder(server.uri("/__relent/journal")).build()).body();
      assertThat(json)
          .startsWith("{\"capacity\":3,\"total\":5,\"dropped\":2,\"entries\":[{\"sequence\":3,");

      HttpResponse<String> reset =
          send(
              HttpRequest.newBuilder(server.uri("/__relent/reset"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build());
      assertThat(reset.statusCode()).isEqualTo(204);
      assertThat(server.journal()).isEmpty();
      assertThat(server.stats().requests()).isZero();
      // The step sequence starts over too.
      assertThat(send(HttpRequest.newBuilder(server.uri("/r")).build()).statusCode())
          .isEqualTo(503);
      assertThat(server.journal()).extracting(JournalEntry::sequence).containsExactly(1L);
    }
  }

  @Test
  void statsAreReadableOverHttpAsJson() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .route("GET", "/a")
            .steps(Step.normal())
            .resource("/payments")
            .steps(Step.normal())
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      send(HttpRequest.newBuilder(server.uri("/a")).build());
      send(
          HttpRequest.newBuilder(server.uri("/payments"))
              .header("Idempotency-Key", "k")
              .POST(HttpRequest.BodyPublishers.ofString("{}"))
              .build());
      HttpResponse<String> stats =
          send(HttpRequest.newBuilder(server.uri("/__relent/stats")).build());
      assertThat(stats.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(stats.body())
          .isEqualTo(
              "{\"requests\":2,\"active\":0,\"peakActive\":1,\"endpoints\":{\"GET /a\":{\"requests\":1,\"outcomes\":{\"step\":1}},"
                  + "\"/payments\":{\"requests\":1,\"outcomes\":{\"created\":1}}},"
                  + "\"resources\":{\"/payments\":{\"created\":1,\"createdPerKey\":{\"k\":1}}}}");
      assertThat(send(HttpRequest.newBuilder(server.uri("/__relent/health")).build()).body())
          .isEqualTo("{\"status\":\"ok\"}");
      assertThat(send(HttpRequest.newBuilder(server.uri("/__relent/nope")).build()).statusCode())
          .isEqualTo(404);
      assertThat(send(HttpRequest.newBuilder(server.uri("/__relent/reset")).build()).statusCode())
          .isEqualTo(405);
      // Admin requests are neither journaled nor counted.
      assertThat(server.stats().requests()).isEqualTo(2);
    }
  }

  @Test
  void stepSequencesCanBeKeptPerKey() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .route("/seq")
            .withSequencePer("header:X-Test")
            .steps(Step.status(503), Step.status(200))
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      HttpRequest a = HttpRequest.newBuilder(server.uri("/seq")).header("X-Test", "a").build();
      HttpRequest b = HttpRequest.newBuilder(server.uri("/seq")).header("X-Test", "b").build();
      assertThat(send(a).statusCode()).isEqualTo(503);
      assertThat(send(b).statusCode()).isEqualTo(503);
      assertThat(send(a).statusCode()).isEqualTo(200);
      assertThat(send(b).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void cyclingStartsOverAfterTheLastStep() throws Exception {
    Scenario scenario =
        Scenario.builder()
            .route("/c")
            .cycling()
            .steps(Step.status(500).times(2), Step.status(200))
            .build();
    try (MockServer server = MockServer.start(scenario)) {
      int[] statuses = new int[7];
      for (int i = 0; i < statuses.length; i++) {
        statuses[i] = send(HttpRequest.newBuilder(server.uri("/c")).build()).statusCode();
      }
      assertThat(statuses).containsExactly(500, 500, 200, 500, 500, 200, 500);
    }
  }
}
