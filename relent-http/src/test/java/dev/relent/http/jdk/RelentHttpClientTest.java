package dev.relent.http.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.QuotaExhaustedException;
import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.ServerWaitTooLongException;
import dev.relent.guard.Pacer;
import dev.relent.http.AttemptRecord;
import dev.relent.http.CallOptions;
import dev.relent.http.DecisionTable;
import dev.relent.http.Fault;
import dev.relent.http.HttpFaultException;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.RelentHttpResponse;
import dev.relent.http.ServerHints;
import dev.relent.time.FakeTime;
import dev.relent.time.RecordingSleeper;
import dev.relent.time.Scheduler;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The JDK client wrapper against a real local server (a raw socket, scripted): every row of the
 * decision table over the wire, Retry-After in every form, idempotency keys seen from the server
 * side, resets, timeouts, truncation, the shared pacer, redaction. Waits go through a {@link
 * RecordingSleeper} on {@link FakeTime}, so they take no real time and are asserted exactly.
 */
class RelentHttpClientTest {
  private static final HttpClient JDK =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final String UUID_PATTERN =
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

  private final FakeTime time = new FakeTime();
  private final RecordingSleeper sleeper = time.sleeper();
  private final CapturingLogger log = new CapturingLogger();
  private final List<RelentEvent<HttpResponse<?>>> events =
      Collections.synchronizedList(new ArrayList<>());
  private final List<ScriptedServer> servers = new ArrayList<>();

  @AfterEach
  void closeServers() throws IOException {
    for (ScriptedServer s : servers) {
      s.close();
    }
  }

  private ScriptedServer server() throws IOException {
    ScriptedServer s = new ScriptedServer();
    servers.add(s);
    return s;
  }

  private static RetryPolicy.Builder policy() {
    // No jitter: the waits are exactly 500 ms, 1 s, 2 s.
    return RetryPolicy.builder()
        .withMaxRetries(3)
        .withBackoff(
            Backoff.builder().withBase(Duration.ofMillis(500)).withJitter(Jitter.NONE).build());
  }

  private RelentHttpClient client() {
    return client(b -> b);
  }

  private RelentHttpClient client(UnaryOperator<RelentHttpClient.Builder> custom) {
    return custom
        .apply(
            RelentHttpClient.builder(JDK)
                .withPolicy(policy().build())
                .withTime(time)
                .withLogger(log)
                .withExecutor(x -> x.onEvent(events::add)))
        .build();
  }

  private static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).GET().build();
  }

  private static HttpRequest post(URI uri) {
    return HttpRequest.newBuilder(uri)
        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
        .header("Content-Type", "application/json")
        .build();
  }

  private List<String> rules() {
    synchronized (events) {
      return events.stream()
          .filter(e -> e.type() == RelentEvent.Type.ATTEMPT)
          .map(e -> e.verdict().orElseThrow().toString())
          .collect(Collectors.toList());
    }
  }

  // ------------------------------------------------------------------ the decision table, rows

  @Test
  void retriedStatusesAreSentAgain() throws Exception {
    for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
      ScriptedServer server = server().respond(status, "body:busy").respond(200, "body:ok");
      events.clear();
      RelentHttpClient http = client();
      RelentHttpResponse<String> response =
          http.send(get(server.uri("/items")), BodyHandlers.ofString());
      assertThat(response.statusCode()).as("%d", status).isEqualTo(200);
      assertThat(response.body()).isEqualTo("ok");
      assertThat(response.attempts()).isEqualTo(2);
      assertThat(response.decision().verdict()).hasToString("success: http-2xx");
      assertThat(server.journal()).hasSize(2);
      assertThat(rules()).containsExactly("retry: http-" + status, "success: http-2xx");
      assertThat(http.counters().firstAttempts()).isEqualTo(1);
      assertThat(http.counters().retries()).isEqualTo(1);
    }
    assertThat(sleeper.waits()).containsOnly(Duration.ofMillis(500)).hasSize(6);
  }

  @Test
  void neverRetriedStatusesAreReturnedAtOnce() throws Exception {
    Object[][] rows = {
      {400, "abort: http-400"}, {401, "abort: http-401"}, {403, "abort: http-403"},
      {404, "abort: http-404"}, {405, "abort: http-405"}, {409, "abort: http-409"},
      {410, "abort: http-410"}, {413, "abort: http-413"}, {418, "abort: http-4xx"},
      {422, "abort: http-422"}, {501, "abort: http-5xx"}, {201, "success: http-2xx"},
    };
    for (Object[] row : rows) {
      int status = (Integer) row[0];
      ScriptedServer server = server().respond(status, "body:no").respond(200);
      RelentHttpResponse<String> response =
          client().send(get(server.uri("/items")), BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(status);
      assertThat(response.body()).isEqualTo("no");
      assertThat(response.attempts()).isEqualTo(1);
      assertThat(response.decision().verdict()).hasToString((String) row[1]);
      assertThat(server.journal()).as("%d", status).hasSize(1);
    }
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void payloadTooLargeIsRetriedOnlyWithRetryAfter() throws Exception {
    ScriptedServer server = server().respond(413, "Retry-After: 1").respond(200, "body:ok");
    RelentHttpResponse<String> response =
        client().send(get(server.uri("/upload")), BodyHandlers.ofString());
    assertThat(response.attempts()).isEqualTo(2);
    assertThat(rules()).containsExactly("retry: http-413-retry-after", "success: http-2xx");
    assertThat(sleeper.waits()).hasSize(1);
    assertThat(sleeper.waits().get(0)).isBetween(Duration.ofSeconds(1), Duration.ofMillis(1100));
  }

  // ------------------------------------------------------------------ idempotency

  @Test
  void anUnkeyedPostIsNotResentAfterAnAmbiguousOrBusyAnswer() throws Exception {
    for (int status : new int[] {503, 504, 429, 500, 502, 408}) {
      ScriptedServer server =
          server().respond(status, "X-Request-Id: req-" + status, "body:busy").respond(200);
      NotRetriedWriteException e =
          (NotRetriedWriteException)
              catchThrowable(
                  () -> client().send(post(server.uri("/payments")), BodyHandlers.ofString()));
      assertThat(server.journal()).as("%d", status).hasSize(1);
      assertThat(e.method()).isEqualTo("POST");
      assertThat(e.endpoint()).isEqualTo(server.uri("/payments").toString());
      assertThat(e.status()).isEqualTo(status);
      assertThat(e.fault()).isEmpty();
      assertThat(e.attempts()).isEqualTo(1);
      assertThat(e.rule()).isEqualTo("http-" + status + "-unkeyed-write");
      assertThat(e.requestId()).contains("X-Request-Id: req-" + status);
      assertThat(((HttpResponse<?>) e.response().orElseThrow()).body()).isEqualTo("busy");
    }
    ScriptedServer server = server().respond(503, "X-Request-Id: r-9");
    assertThatThrownBy(() -> client().send(post(server.uri("/payments")), BodyHandlers.ofString()))
        .isInstanceOf(NotRetriedWriteException.class)
        .hasMessage(
            "POST "
                + server.uri("/payments")
                + " was not re-sent after HTTP 503 (rule http-503-unkeyed-write; 1 attempt;"
                + " X-Request-Id: r-9): the request may have reached the server and carries no"
                + " Idempotency-Key, so sending it again could repeat its effect; check whether it"
                + " took effect before sending it again, or send it with an Idempotency-Key");
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void aKeyedPostIsRetriedWithTheSameKeyOnEveryAttempt() throws Exception {
    ScriptedServer server = server().respond(503).respond(504).respond(201, "body:created");
    RelentHttpClient http = client();
    RelentHttpResponse<String> response =
        http.send(
            post(server.uri("/payments")),
            BodyHandlers.ofString(),
            CallOptions.builder().withIdempotencyKey().build());
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(response.attempts()).isEqualTo(3);
    List<ScriptedServer.Request> seen = server.journal();
    assertThat(seen).hasSize(3);
    String key = seen.get(0).header("Idempotency-Key");
    assertThat(key).matches(UUID_PATTERN);
    assertThat(seen).allSatisfy(r -> assertThat(r.header("Idempotency-Key")).isEqualTo(key));
    assertThat(seen).allSatisfy(r -> assertThat(r.body()).isEqualTo("{\"amount\":100}"));
    assertThat(response.idempotencyKey()).contains(key);
    assertThat(rules()).containsExactly("retry: http-503", "retry: http-504", "success: http-2xx");
    assertThat(sleeper.waits()).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1));
    assertThat(http.counters().retries()).isEqualTo(2);

    // A second operation gets a new key.
    server.respond(200);
    http.send(
        post(server.uri("/payments")),
        BodyHandlers.ofString(),
        CallOptions.builder().withIdempotencyKey().build());
    assertThat(server.journal().get(3).header("Idempotency-Key"))
        .matches(UUID_PATTERN)
        .isNotEqualTo(key);
  }

  @Test
  void theCallersOwnKeyIsKept() throws Exception {
    ScriptedServer server = server().respond(503).respond(200).respond(502).respond(200);
    HttpRequest request =
        HttpRequest.newBuilder(server.uri("/orders"))
            .POST(HttpRequest.BodyPublishers.ofString("x"))
            .header("Idempotency-Key", "order-4711")
            .build();
    assertThat(client().send(request, BodyHandlers.ofString()).attempts()).isEqualTo(2);
    client()
        .send(
            post(server.uri("/orders")),
            BodyHandlers.ofString(),
            CallOptions.builder().withIdempotencyKey("order-4712").build());
    assertThat(server.journal())
        .extracting(r -> r.header("Idempotency-Key"))
        .containsExactly("order-4711", "order-4711", "order-4712", "order-4712");
  }

  @Test
  void theClientCanKeyEveryWrite() throws Exception {
    ScriptedServer server = server().respond(502).respond(200).respond(200).respond(503);
    RelentHttpClient http = client(b -> b.withIdempotencyKeys(true));
    assertThat(http.send(post(server.uri("/a")), BodyHandlers.ofString()).attempts()).isEqualTo(2);
    http.send(get(server.uri("/b")), BodyHandlers.ofString());
    assertThatThrownBy(
            () ->
                http.send(
                    post(server.uri("/c")),
                    BodyHandlers.ofString(),
                    CallOptions.builder().withoutIdempotencyKey().build()))
        .isInstanceOf(NotRetriedWriteException.class);
    List<ScriptedServer.Request> seen = server.journal();
    assertThat(seen.get(0).header("Idempotency-Key")).matches(UUID_PATTERN);
    assertThat(seen.get(1).header("Idempotency-Key"))
        .isEqualTo(seen.get(0).header("Idempotency-Key"));
    assertThat(seen.get(2).header("Idempotency-Key")).isNull();
    assertThat(seen.get(3).header("Idempotency-Key")).isNull();
  }

  @Test
  void aRequestCanHaveItsOwnTable() throws Exception {
    ScriptedServer server = server().respond(503).respond(200);
    RelentHttpResponse<String> response =
        client()
            .send(
                get(server.uri("/x")),
                BodyHandlers.ofString(),
                CallOptions.builder()
                    .withDecisionTable(
                        DecisionTable.ofDefaults().with(503, DecisionTable.Rule.NEVER))
                    .build());
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.attempts()).isEqualTo(1);
    assertThat(server.journal()).hasSize(1);
  }

  // ------------------------------------------------------------------ network faults

  @Test
  void aRefusedConnectionIsRetriedForEveryMethod() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0)) {
      port = closed.getLocalPort();
    }
    URI uri = URI.create("http://127.0.0.1:" + port + "/items");
    for (HttpRequest request : List.of(get(uri), post(uri))) {
      RetriesExhaustedException e =
          (RetriesExhaustedException)
              catchThrowable(() -> client().send(request, BodyHandlers.ofString()));
      assertThat(e.attempts()).isEqualTo(4);
      assertThat(e.getCause()).isInstanceOf(HttpFaultException.class);
      HttpFaultException fault = (HttpFaultException) e.getCause();
      assertThat(fault.fault()).isEqualTo(Fault.CONNECT_REFUSED);
      assertThat(fault.getMessage())
          .isEqualTo("connection refused: " + request.method() + " " + uri + " (ConnectException)");
      assertThat(e.getMessage())
          .contains(
              "last: connection refused (ConnectException) from "
                  + request.method()
                  + " "
                  + uri
                  + ", rule retry: io-connect-refused");
    }
  }

  @Test
  void aResetIsRetriedForGetButNotForAnUnkeyedPost() throws Exception {
    // JDK 17 itself re-sends a GET once, inside one attempt, when the connection dies before any
    // response byte (it takes the connection for a stale pooled one): three requests reach the
    // server in two of our attempts. Relent cannot see it; only the JVM-wide
    // jdk.httpclient.redirects.retrylimit=1 stops it (JdkResendTest, docs/http.md).
    ScriptedServer server = server().reset().reset().respond(200, "body:ok");
    RelentHttpResponse<String> response =
        client().send(get(server.uri("/x")), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("ok");
    assertThat(response.attempts()).isEqualTo(2);
    assertThat(server.journal()).hasSize(3);
    assertThat(rules()).containsExactly("retry: io-reset", "success: http-2xx");

    // It never re-sends a POST, and neither does Relent without a key.
    ScriptedServer writes = server().reset().respond(200);
    NotRetriedWriteException e =
        (NotRetriedWriteException)
            catchThrowable(() -> client().send(post(writes.uri("/pay")), BodyHandlers.ofString()));
    assertThat(writes.journal()).hasSize(1);
    assertThat(e.fault()).contains(Fault.RESET);
    assertThat(e.status()).isEqualTo(-1);
    assertThat(e.outcome()).isEqualTo("connection reset (IOException)");
    assertThat(e.rule()).isEqualTo("io-reset-unkeyed-write");
    assertThat(e.attempts()).isEqualTo(1);
    assertThat(e.getCause()).isInstanceOf(HttpFaultException.class);

    // With a key the POST is retried by Relent, once per attempt.
    ScriptedServer keyed = server().reset().respond(201);
    RelentHttpResponse<String> created =
        client()
            .send(
                post(keyed.uri("/pay")),
                BodyHandlers.ofString(),
                CallOptions.builder().withIdempotencyKey().build());
    assertThat(created.attempts()).isEqualTo(2);
    assertThat(keyed.journal()).hasSize(2);
  }

  @Test
  void aConnectionClosedWithoutAnswerOrATruncatedBodyIsRetried() throws Exception {
    ScriptedServer server =
        server()
            .closeWithoutResponse()
            .closeWithoutResponse()
            .truncate(200)
            .respond(200, "body:whole");
    RelentHttpResponse<String> response =
        client().send(get(server.uri("/x")), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("whole");
    assertThat(response.attempts()).isEqualTo(3);
    assertThat(server.journal()).hasSize(4);
    assertThat(rules())
        .containsExactly("retry: io-closed", "retry: io-truncated", "success: http-2xx");
  }

  @Test
  void aReadTimeoutIsRetriedForGetButNotForAnUnkeyedPost() throws Exception {
    UnaryOperator<RelentHttpClient.Builder> shortTimeout =
        b -> b.withPolicy(policy().withAttemptTimeout(Duration.ofMillis(250)).build());
    ScriptedServer server = server().stall().respond(200, "body:late");
    RelentHttpResponse<String> response =
        client(shortTimeout).send(get(server.uri("/slow")), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("late");
    assertThat(rules()).containsExactly("retry: io-read-timeout", "success: http-2xx");
    // The JDK request timeout was set from the attempt's time limit.
    assertThat(server.journal()).hasSize(2);

    ScriptedServer writes = server().stall().respond(200);
    NotRetriedWriteException e =
        (NotRetriedWriteException)
            catchThrowable(
                () -> client(shortTimeout).send(post(writes.uri("/pay")), BodyHandlers.ofString()));
    assertThat(e.fault()).contains(Fault.READ_TIMEOUT);
    assertThat(e.rule()).isEqualTo("io-read-timeout-unkeyed-write");
    assertThat(writes.journal()).hasSize(1);
  }

  @Test
  void aStalledBodyIsBoundedByTheAttemptTimeout() throws Exception {
    ScriptedServer server =
        server()
            .then(
                (s, out) -> {
                  out.write(
                      "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab"
                          .getBytes(StandardCharsets.ISO_8859_1));
                  out.flush();
                  // Blocks until the client gives up and closes, at most 5 s.
                  s.setSoTimeout(5000);
                  try {
                    s.getInputStream().read();
                  } catch (java.net.SocketTimeoutException ignored) {
                    // the client kept the connection open; the step ends anyway
                  }
                })
            .respond(200, "body:ok");
    RelentHttpResponse<String> response =
        client(b -> b.withPolicy(policy().withAttemptTimeout(Duration.ofMillis(250)).build()))
            .send(get(server.uri("/x")), BodyHandlers.ofString());
    assertThat(response.body()).isEqualTo("ok");
    assertThat(rules()).containsExactly("retry: io-read-timeout", "success: http-2xx");
  }

  // ------------------------------------------------------------------ server hints

  @Test
  void retryAfterInEveryForm() throws Exception {
    // FakeTime starts at 2026-01-01T00:00:00Z; the server's clock is an hour behind ours.
    String serverDate = "Wed, 31 Dec 2025 23:00:00 GMT";
    String[][] forms = {
      {"Thu, 01 Jan 2026 00:00:06 GMT", null, "6"},
      {"2", null, "2"},
      {"Wed, 31 Dec 2025 23:00:03 GMT", serverDate, "3"},
      {"Wednesday, 31-Dec-25 23:00:04 GMT", serverDate, "4"},
      {"Wed Dec 31 23:00:05 2025", serverDate, "5"},
    };
    for (String[] form : forms) {
      ScriptedServer server =
          form[1] == null
              ? server().respond(503, "Retry-After: " + form[0]).respond(200)
              : server().respond(503, "Retry-After: " + form[0], "Date: " + form[1]).respond(200);
      int before = sleeper.waits().size();
      client().send(get(server.uri("/x")), BodyHandlers.ofString());
      Duration wait = sleeper.waits().get(before);
      Duration asked = Duration.ofSeconds(Long.parseLong(form[2]));
      assertThat(wait).as(form[0]).isBetween(asked, asked.plus(asked.dividedBy(10)));
    }
  }

  @Test
  void aPastRetryAfterDateMeansNowWithTheBackoffAsFloor() throws Exception {
    ScriptedServer server =
        server()
            .respond(503, "Retry-After: Thu, 01 Jan 2015 00:00:00 GMT")
            .respond(503, "Retry-After: 0")
            .respond(200);
    client().send(get(server.uri("/x")), BodyHandlers.ofString());
    assertThat(sleeper.waits()).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1));
  }

  @Test
  void aHostileRetryAfterFailsFastSayingHowLong() throws Exception {
    ScriptedServer server = server().respond(503, "Retry-After: 86400").respond(200);
    ServerWaitTooLongException e =
        (ServerWaitTooLongException)
            catchThrowable(() -> client().send(get(server.uri("/x")), BodyHandlers.ofString()));
    assertThat(e.getMessage())
        .isEqualTo(
            "gave up after 1 attempt in 0 s (last: HTTP 503 from GET "
                + server.uri("/x")
                + ", not retried; server asked to"
                + " wait 86400 s (Retry-After: 86400), more than the 30 s allowed; retry at 2026-01-02T00:00:00Z)");
    assertThat(e.serverWait()).contains(Duration.ofDays(1));
    assertThat(e.retryAt()).contains(Instant.parse("2026-01-02T00:00:00Z"));
    assertThat(((HttpResponse<?>) e.lastResult().orElseThrow()).statusCode()).isEqualTo(503);
    assertThat(server.journal()).hasSize(1);
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void a429WithADayLongWaitIsAnExhaustedQuota() throws Exception {
    ScriptedServer server = server().respond(429, "Retry-After: 86400").respond(200);
    QuotaExhaustedException e =
        (QuotaExhaustedException)
            catchThrowable(() -> client().send(get(server.uri("/x")), BodyHandlers.ofString()));
    assertThat(e.getMessage()).contains("Retry-After: 86400");
    assertThat(e.retryAt()).contains(Instant.parse("2026-01-02T00:00:00Z"));
    assertThat(server.journal()).hasSize(1);
  }

  @Test
  void rateLimitHeadersPauseEveryCallerSharingThePacer() throws Exception {
    Pacer pacer = Pacer.of(100, Duration.ofSeconds(1));
    ScriptedServer server =
        server()
            .respond(200, "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 5", "body:last")
            .respond(200, "body:after");
    RelentHttpClient first = client(b -> b.withExecutor(x -> x.withPacer(pacer)));
    RelentHttpClient second = client(b -> b.withExecutor(x -> x.withPacer(pacer)));
    assertThat(first.send(get(server.uri("/a")), BodyHandlers.ofString()).body()).isEqualTo("last");
    assertThat(sleeper.waits()).isEmpty();
    // The second client has sent nothing yet, but the server's "0 left" holds it back 5 s.
    assertThat(second.send(get(server.uri("/b")), BodyHandlers.ofString()).body())
        .isEqualTo("after");
    assertThat(sleeper.waits()).containsExactly(Duration.ofSeconds(5));
    assertThat(events)
        .filteredOn(e -> e.type() == RelentEvent.Type.PACED)
        .extracting(e -> e.waitTime().orElseThrow())
        .containsExactly(Duration.ofSeconds(5));
  }

  // ------------------------------------------------------------------ logs and redaction

  @Test
  void oneLinePerAttemptWithTheFactsAPersonOnCallNeeds() throws Exception {
    ScriptedServer server =
        server()
            .respond(
                503,
                "X-Request-Id: r-1",
                "Retry-After: 1",
                "CF-Ray: 8a1b-FRA",
                "body:<h1>oops</h1>")
            .respond(200, "X-Request-Id: r-2");
    client().send(get(server.uri("/items?page=2")), BodyHandlers.ofString());
    String endpoint = server.uri("/items?page=2").toString();
    assertThat(log.lines())
        .containsExactly(
            "INFO at=2026-01-01T00:00:00Z attempt=1 method=GET endpoint="
                + endpoint
                + " outcome=\"HTTP 503\" request-id=\"X-Request-Id: r-1\""
                + " wait-headers=\"Retry-After: 1\" via=\"Cloudflare (CF-Ray)\""
                + " decision=\"retry: http-503\" wait=1.02 s hint=\"Retry-After: 1\" elapsed=0 s",
            "INFO at=2026-01-01T00:00:01.015Z attempt=2 method=GET endpoint="
                + endpoint
                + " outcome=\"HTTP 200\" request-id=\"X-Request-Id: r-2\""
                + " decision=\"success: http-2xx\" elapsed=1.02 s");
  }

  @Test
  void aHeldBackWriteIsAWarningAndKeyedLinesCarryTheShortKey() throws Exception {
    ScriptedServer server = server().respond(503).respond(503).respond(200);
    Throwable thrown =
        catchThrowable(() -> client().send(post(server.uri("/pay")), BodyHandlers.ofString()));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    assertThat(log.lines()).hasSize(1);
    assertThat(log.lines().get(0))
        .startsWith("WARN at=2026-01-01T00:00:00Z attempt=1 method=POST endpoint=")
        // The same give-up as a write held back after a reset: the call failed, one line says so.
        .contains(
            " outcome=\"HTTP 503\" decision=\"give up: not-retryable, last abort:"
                + " http-503-unkeyed-write\"")
        .contains(" held-back=\"not re-sent: may have reached the server\"");

    client()
        .send(
            post(server.uri("/pay")),
            BodyHandlers.ofString(),
            CallOptions.builder().withIdempotencyKey("order-4711-abcdef").build());
    assertThat(log.lines()).hasSize(3);
    assertThat(log.lines().get(1)).startsWith("INFO ").contains(" key=order-47… elapsed=");
    assertThat(log.lines().get(2)).startsWith("INFO ").contains(" key=order-47… elapsed=");
    Map<String, Object> retry = log.keyValues().get(1);
    assertThat(retry)
        .containsEntry("attempt", 1)
        .containsEntry("method", "POST")
        .containsEntry("endpoint", server.uri("/pay").toString())
        .containsEntry("status", 503)
        .containsEntry("rule", "http-503")
        .containsEntry("decision", "retry: http-503")
        .containsEntry("key", "order-47…")
        .containsKey("wait_ms")
        .containsKey("elapsed_ms");
    assertThat(log.keyValues().get(0)).containsEntry("held_back", true);
  }

  @Test
  void aFailureThatIsNoNetworkFaultPassesThroughUnchangedAndIsNotRetried() throws Exception {
    ScriptedServer server = server().respond(200).respond(200);
    IllegalStateException bug = new IllegalStateException("a bug in the body handler");
    HttpResponse.BodyHandler<String> broken =
        info -> {
          throw bug;
        };
    Throwable sync = catchThrowable(() -> client().send(get(server.uri("/x")), broken));
    assertThat(sync).isSameAs(bug);
    Throwable async =
        catchThrowable(() -> client().sendAsync(get(server.uri("/x")), broken).join());
    assertThat(async.getCause()).isSameAs(bug);
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void secretsNeverReachLogsExceptionsOrEvents() throws Exception {
    String query = "/items?token=SECRET-Q1&page=2&api_key=SECRET-Q2";
    ScriptedServer server = server();
    for (int i = 0; i < 4; i++) {
      server.respond(503, "Set-Cookie: session=SECRET-C", "X-Request-Id: r-" + i);
    }
    server.reset();
    HttpRequest secretGet =
        HttpRequest.newBuilder(server.uri(query))
            .header("Authorization", "Bearer SECRET-H1")
            .header("X-Api-Key", "SECRET-H2")
            .build();
    HttpRequest secretPost =
        HttpRequest.newBuilder(server.uri(query))
            .header("Authorization", "Bearer SECRET-H1")
            .POST(HttpRequest.BodyPublishers.ofString("card=SECRET-B"))
            .build();
    RelentHttpClient http = client();
    List<AttemptRecord> records = Collections.synchronizedList(new ArrayList<>());
    CallOptions recorded =
        CallOptions.builder()
            .withIdempotencyKey("k-0123456789-SECRET")
            .withAttemptListener(records::add)
            .build();
    CallOptions unkeyed = CallOptions.builder().withAttemptListener(records::add).build();
    List<Throwable> thrown = new ArrayList<>();
    thrown.add(catchThrowable(() -> http.send(secretGet, BodyHandlers.ofString(), recorded)));
    thrown.add(catchThrowable(() -> http.send(secretPost, BodyHandlers.ofString(), unkeyed)));
    int port;
    try (ServerSocket closed = new ServerSocket(0)) {
      port = closed.getLocalPort();
    }
    HttpRequest refused =
        HttpRequest.newBuilder(URI.create("http://u:SECRET-U@127.0.0.1:" + port + query)).build();
    thrown.add(catchThrowable(() -> http.send(refused, BodyHandlers.ofString(), recorded)));
    assertThat(thrown.get(0)).isInstanceOf(RetriesExhaustedException.class);
    assertThat(thrown.get(1)).isInstanceOf(NotRetriedWriteException.class);
    assertThat(thrown.get(2)).isInstanceOf(RetriesExhaustedException.class);

    StringBuilder everything = new StringBuilder(log.all());
    for (Throwable t : thrown) {
      StringWriter trace = new StringWriter();
      t.printStackTrace(new PrintWriter(trace));
      everything.append(trace);
    }
    synchronized (events) {
      events.forEach(e -> everything.append(e).append('\n'));
    }
    assertThat(records).hasSize(9);
    synchronized (records) {
      records.forEach(r -> everything.append(r).append('\n'));
    }
    log.keyValues().forEach(kv -> everything.append(kv).append('\n'));
    assertThat(everything.toString()).doesNotContain("SECRET").contains("token=REDACTED");
    assertThat(records.get(0).key()).contains("k-012345…");
    assertThat(log.all()).contains("api_key=REDACTED").contains("page=2");
    assertThat(((NotRetriedWriteException) thrown.get(1)).endpoint())
        .isEqualTo(server.uri("/items?token=REDACTED&page=2&api_key=REDACTED").toString());
  }

  // ------------------------------------------------------------------ resources

  @Test
  void aRetriedBodyIsReadBeforeTheWaitAndTheCallersHandlerStillWorks() throws Exception {
    ScriptedServer server =
        server().respond(503, "body:" + "x".repeat(100_000)).respond(200, "body:stream");
    RelentHttpResponse<InputStream> response =
        client(b -> b.withMaxBufferedBody(1024))
            .send(get(server.uri("/x")), BodyHandlers.ofInputStream());
    try (InputStream in = response.body()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("stream");
    }
    // A held-back write keeps the bounded, fully read body of the answer.
    ScriptedServer writes = server().respond(503, "body:" + "y".repeat(5000));
    NotRetriedWriteException e =
        (NotRetriedWriteException)
            catchThrowable(
                () ->
                    client(b -> b.withMaxBufferedBody(1024))
                        .send(post(writes.uri("/x")), BodyHandlers.ofString()));
    assertThat((String) ((HttpResponse<?>) e.response().orElseThrow()).body())
        .isEqualTo("y".repeat(1024));
  }

  // ------------------------------------------------------------------ asynchronous

  /** Fake time whose scheduler runs short waits at once; it never runs attempt-timeout timers. */
  private TimeSource fastTime() {
    Scheduler fast =
        (task, delayNanos) -> {
          if (delayNanos >= Duration.ofSeconds(5).toNanos()) {
            return new CompletableFuture<Void>();
          }
          time.advanceNanos(Math.max(0L, delayNanos));
          return CompletableFuture.runAsync(task);
        };
    return TimeSource.of(time, time, time.sleeper(), fast, time.random());
  }

  @Test
  void asyncSendRetriesAKeyedWriteAndHoldsBackAnUnkeyedOne() throws Exception {
    ScriptedServer server = server().respond(503).respond(200, "body:done").respond(503);
    RelentHttpClient http = client(b -> b.withTime(fastTime()));
    RelentHttpResponse<String> response =
        http.sendAsync(
                post(server.uri("/pay")),
                BodyHandlers.ofString(),
                CallOptions.builder().withIdempotencyKey().build())
            .get(10, TimeUnit.SECONDS);
    assertThat(response.body()).isEqualTo("done");
    assertThat(response.attempts()).isEqualTo(2);
    assertThat(server.journal().get(1).header("Idempotency-Key"))
        .isEqualTo(server.journal().get(0).header("Idempotency-Key"))
        .matches(UUID_PATTERN);

    Future<RelentHttpResponse<String>> unkeyed =
        http.sendAsync(post(server.uri("/pay")), BodyHandlers.ofString());
    assertThatThrownBy(() -> unkeyed.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(NotRetriedWriteException.class)
        .hasMessageStartingWith("POST " + server.uri("/pay") + " was not re-sent after HTTP 503");
    assertThat(server.journal()).hasSize(3);
  }

  @Test
  void asyncGiveUpsAreTheExecutorsExceptions() throws Exception {
    ScriptedServer server = server().respond(503, "Retry-After: 86400");
    CompletableFuture<RelentHttpResponse<String>> f =
        client(b -> b.withTime(fastTime()))
            .sendAsync(get(server.uri("/x")), BodyHandlers.ofString());
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(ServerWaitTooLongException.class);
  }

  // ------------------------------------------------------------------ configuration

  @Test
  void validation() {
    assertThatThrownBy(() -> RelentHttpClient.builder(JDK).withPolicy(null))
        .hasMessage("policy cannot be null");
    assertThatThrownBy(() -> RelentHttpClient.builder(JDK).withMaxBufferedBody(-1))
        .hasMessage("maxBufferedBody must be >= 0: -1 bytes");
    assertThatThrownBy(() -> RelentHttpClient.builder(null)).hasMessage("client cannot be null");
    assertThatThrownBy(() -> CallOptions.builder().withIdempotencyKey("has space"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idempotency key must be visible ASCII: character 3 is U+0020");
    assertThatThrownBy(() -> CallOptions.builder().withIdempotencyKey(""))
        .hasMessage("idempotency key must be 1 to 255 characters: 0");
    assertThat(RelentException.class).isAssignableFrom(ServerWaitTooLongException.class);
  }

  @Test
  void aLyingRateLimitHeaderIsReportedOnceNotPerResponseAndCounted() throws Exception {
    ScriptedServer server = server();
    for (int i = 0; i < 5; i++) {
      server.respond(
          200, "X-RateLimit-Limit: 100", "X-RateLimit-Remaining: 500", "X-RateLimit-Reset: 30");
    }
    RelentHttpClient http = client();
    for (int i = 0; i < 5; i++) {
      assertThat(
              http.send(get(server.uri("/x")), HttpResponse.BodyHandlers.discarding()).statusCode())
          .isEqualTo(200);
    }
    assertThat(log.lines().stream().filter(l -> l.contains("cannot be true")))
        .singleElement()
        .asString()
        .startsWith("WARN the server's rate-limit headers cannot be true: 500 remaining of a limit")
        .contains("reported once per client");
    assertThat(http.outcomes().headerDoubts())
        .containsExactly(Map.entry(ServerHints.Doubt.REMAINING_ABOVE_LIMIT, 5L));
  }
}
