package dev.relent.http.contract;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.QuotaExhaustedException;
import dev.relent.RelentException;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.ServerWaitTooLongException;
import dev.relent.Verdict;
import dev.relent.http.AttemptRecord;
import dev.relent.http.CallOptions;
import dev.relent.http.Fault;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.UnresolvedWriteException;
import dev.relent.http.adapter.CallObserver;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.ServerClock;
import dev.relent.time.FakeTime;
import dev.relent.time.RecordingSleeper;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every HTTP client integration must show, run against the project's mock server: the
 * JDK wrapper ({@code JdkClientContractTest}), the OkHttp interceptor and the Apache HttpClient 5
 * exec-chain handler each extend it with a {@link Client} that sends one request through their
 * client. Every test asserts what the <em>server</em> saw (the journal), so a client that retries
 * silently beneath Relent, or a Relent that re-sends a write, fails here.
 *
 * <p>Waits go through a {@link RecordingSleeper} on {@link FakeTime}: a backoff takes no real time
 * and is asserted exactly. Only the read-timeout test waits for real, 300 ms per attempt; the
 * others allow 5 s.
 *
 * <p>A subclass normalises nothing: every adapter throws the same type for the same situation (a
 * give-up as the executor's {@link RelentException}, {@link NotRetriedWriteException}, {@code
 * HttpFaultException}), and its {@link Client} lets it through as the client threw it.
 */
public abstract class HttpClientContract {
  /** The clock the client's executor and the server share; only sleeping moves it. */
  protected final FakeTime time = new FakeTime();

  /** Records every backoff; advances {@link #time}. */
  protected final RecordingSleeper sleeper = time.sleeper();

  private final List<MockServer> servers = new ArrayList<>();
  private final List<Client> clients = new ArrayList<>();

  /**
   * One request as the suite sends it.
   *
   * @param method the method
   * @param uri the URI
   * @param headers request headers
   * @param body the body as UTF-8 text, or null for none
   * @param options per-request options: key and decision table
   */
  public record TestRequest(
      String method, URI uri, Map<String, String> headers, String body, CallOptions options) {
    public TestRequest {
      Objects.requireNonNull(method, "method cannot be null");
      Objects.requireNonNull(uri, "uri cannot be null");
      headers = Map.copyOf(headers);
      Objects.requireNonNull(options, "options cannot be null");
    }
  }

  /**
   * The response the caller received, read completely.
   *
   * @param status the status code
   * @param body the body as UTF-8 text
   * @param attempts the attempts the integration reports
   * @param idempotencyKey the key the call carried, or null
   * @param records the attempt records the integration reports for the call
   */
  public record Reply(
      int status, String body, int attempts, String idempotencyKey, List<AttemptRecord> records) {}

  /**
   * How the suite configures a client: the retry counts and times, the shared fake time (with its
   * seeded random source).
   *
   * @param maxRetries retries after the first attempt
   * @param attemptTimeout the time limit of one attempt
   * @param deadline the time limit of the whole call
   * @param time the fake time: ticker, clock, sleeper and seeded randomness
   * @param observers the call observers the client's builder gets ({@code withCallObserver})
   */
  public record Settings(
      int maxRetries,
      Duration attemptTimeout,
      Duration deadline,
      FakeTime time,
      List<CallObserver.Factory> observers) {

    /**
     * Returns these settings with one more call observer.
     *
     * @param observer the observer's factory
     * @return new settings
     */
    public Settings withObserver(CallObserver.Factory observer) {
      List<CallObserver.Factory> all = new ArrayList<>(observers);
      all.add(observer);
      return new Settings(maxRetries, attemptTimeout, deadline, time, List.copyOf(all));
    }

    /**
     * Builds the retry policy these settings describe, for any response type: no jitter, 500 ms
     * base, so the waits are exactly 500 ms, 1 s, 2 s.
     *
     * @return a policy; the decision table classifies
     */
    public RetryPolicy policy() {
      return RetryPolicy.builder()
          .withMaxRetries(maxRetries)
          .withAttemptTimeout(attemptTimeout)
          .withDeadline(deadline)
          .withBackoff(
              Backoff.builder().withBase(Duration.ofMillis(500)).withJitter(Jitter.NONE).build())
          .build();
    }
  }

  /** One client integration under test. Implementations read the whole body before returning. */
  public interface Client extends AutoCloseable {
    /**
     * Sends a request through the integration.
     *
     * @param request the request
     * @return the final response
     * @throws Exception as the integration throws; a give-up as {@link RelentException}
     */
    Reply send(TestRequest request) throws Exception;

    @Override
    default void close() throws java.io.IOException {}
  }

  /**
   * Creates the client under test. Its own silent retries must be off, as the integration's
   * installer turns them off.
   *
   * @param settings the policy and time
   * @return a client
   * @throws Exception if it cannot be created
   */
  protected abstract Client newClient(Settings settings) throws Exception;

  /**
   * How many times the client library itself re-sends a GET whose connection was reset before any
   * response byte, inside one Relent attempt, even when set up as documented: the JDK client does
   * once (JDK 17 to 25; only the JVM-wide {@code -Djdk.httpclient.redirects.retrylimit=1} stops it,
   * see docs/http.md), OkHttp and Apache HttpClient 5 do not.
   *
   * @return 0 or 1
   */
  protected abstract int hiddenResendsOfResetGet();

  /**
   * Returns the default settings: 3 retries, 5 s per attempt (a cold JVM's first exchange may take
   * a while), 30 s in all.
   *
   * @return the settings
   */
  protected Settings settings() {
    return settings(Duration.ofSeconds(5));
  }

  /**
   * Returns settings with the given attempt timeout, otherwise as {@link #settings()}.
   *
   * @param attemptTimeout the time limit of one attempt
   * @return the settings
   */
  protected Settings settings(Duration attemptTimeout) {
    return new Settings(3, attemptTimeout, Duration.ofSeconds(30), time, List.of());
  }

  /**
   * Creates a client with the default settings and closes it after the test.
   *
   * @return the client
   * @throws Exception if it cannot be created
   */
  protected final Client client() throws Exception {
    return client(settings());
  }

  /**
   * Creates a client and closes it after the test.
   *
   * @param settings the settings
   * @return the client
   * @throws Exception if it cannot be created
   */
  protected final Client client(Settings settings) throws Exception {
    Client c = newClient(settings);
    clients.add(c);
    return c;
  }

  /**
   * Starts a mock server on the shared fake time and closes it after the test.
   *
   * @param json the scenario
   * @return the running server
   */
  protected final MockServer server(String json) {
    MockServer s = MockServer.builder(Scenario.parse(json)).withClock(ServerClock.of(time)).start();
    servers.add(s);
    return s;
  }

  @AfterEach
  final void closeAll() throws java.io.IOException {
    for (Client c : clients) {
      c.close();
    }
    for (MockServer s : servers) {
      s.close();
    }
  }

  /**
   * A GET without headers or options.
   *
   * @param uri the URI
   * @return the request
   */
  protected static TestRequest get(URI uri) {
    return new TestRequest("GET", uri, Map.of(), null, CallOptions.ofDefaults());
  }

  /**
   * A JSON POST.
   *
   * @param uri the URI
   * @param options per-request options
   * @return the request
   */
  protected static TestRequest post(URI uri, CallOptions options) {
    return new TestRequest(
        "POST", uri, Map.of("Content-Type", "application/json"), "{\"amount\":100}", options);
  }

  private Throwable payment(MockServer server, CallOptions options) {
    return catchThrowable(() -> client().send(post(server.uri("/payments"), options)));
  }

  private static CallOptions keyed() {
    return CallOptions.builder().withIdempotencyKey().build();
  }

  private static List<String> keys(MockServer server, String path) {
    return server.journal().stream()
        .filter(e -> e.target().equals(path))
        .map(e -> e.header("Idempotency-Key"))
        .collect(Collectors.toList());
  }

  // ------------------------------------------------------------------------------ the tests

  @Test
  void transientFailuresAreRetriedUntilSuccess() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"GET\",\"path\":\"/flaky\",\"steps\":["
                + "{\"status\":503},{\"status\":503},{\"status\":200,\"body\":\"ok\"}]}]}");
    Reply reply = client().send(get(server.uri("/flaky")));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.body()).isEqualTo("ok");
    assertThat(reply.attempts()).isEqualTo(3);
    assertThat(reply.idempotencyKey()).isNull();
    assertThat(server.journal()).onPath("/flaky").hasAttempts(3);
    assertThat(sleeper.waits()).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1));
  }

  @Test
  void aClientErrorIsReturnedAtOnce() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"path\":\"/missing\",\"steps\":["
                + "{\"status\":404,\"body\":\"no such item\"},{\"status\":200}]}]}");
    Reply reply = client().send(get(server.uri("/missing")));
    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.body()).isEqualTo("no such item");
    assertThat(reply.attempts()).isEqualTo(1);
    assertThat(server.journal()).onPath("/missing").hasAttempts(1);
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void retriesEndWhenThePolicySaysSo() throws Exception {
    MockServer server =
        server("{\"routes\":[{\"path\":\"/down\",\"steps\":[{\"status\":503,\"body\":\"x\"}]}]}");
    Throwable thrown = catchThrowable(() -> client().send(get(server.uri("/down"))));
    assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
    RelentException e = (RelentException) thrown;
    assertThat(e.attempts()).isEqualTo(4);
    // The message names the request: method and redacted endpoint.
    assertThat(e.lastOutcome()).contains("HTTP 503 from GET " + server.uri("/down"));
    assertThat(e.getMessage())
        .startsWith(
            "gave up after 4 attempts in 3.5 s (last: HTTP 503 from GET " + server.uri("/down"));
    assertThat(server.journal()).onPath("/down").hasAttempts(4);
    assertThat(sleeper.waits())
        .containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2));
  }

  @Test
  void aHostileRetryAfterFailsFast() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"path\":\"/busy\",\"steps\":["
                + "{\"status\":503,\"headers\":{\"Retry-After\":\"86400\"}},{\"status\":200}]}]}");
    Throwable thrown = catchThrowable(() -> client().send(get(server.uri("/busy"))));
    assertThat(thrown).isInstanceOf(ServerWaitTooLongException.class);
    ServerWaitTooLongException e = (ServerWaitTooLongException) thrown;
    assertThat(e.attempts()).isEqualTo(1);
    assertThat(e.serverWait()).contains(Duration.ofSeconds(86400));
    assertThat(e.getMessage())
        .contains("server asked to wait 86400 s (Retry-After: 86400), more than the 30 s allowed");
    assertThat(server.journal()).onPath("/busy").hasAttempts(1);
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void aKeyedPostUnderA504AfterCreatingMakesExactlyOnePayment() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[],\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                + "\"idPrefix\":\"pay_\",\"steps\":[{\"status\":504},{\"status\":504},{}]}]}");
    Reply reply = client().send(post(server.uri("/payments"), keyed()));
    assertThat(reply.status()).isEqualTo(201);
    assertThat(reply.body()).contains("\"id\":\"pay_1\"");
    assertThat(reply.attempts()).isEqualTo(3);
    assertThat(reply.idempotencyKey())
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(server.journal())
        .onPath("/payments")
        .hasAttempts(3)
        .allCarrySameHeader("Idempotency-Key");
    assertThat(keys(server, "/payments")).containsOnly(reply.idempotencyKey());
    assertThat(server).createdExactlyOnePerKey("payments").createdResources("payments", 1);
  }

  @Test
  void aKeyedPostThatRunsOutOfRetriesAfterCreatingIsUnresolvedAndCarriesItsKey() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[],\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                + "\"steps\":[{\"status\":504},{\"fault\":\"reset\"}],\"cycle\":true}]}");
    Throwable thrown =
        payment(server, CallOptions.builder().withIdempotencyKey("order-4711-b").build());

    // Not a failure: the payment exists, and the same key would get the server's first answer.
    assertThat(thrown).isInstanceOf(UnresolvedWriteException.class);
    UnresolvedWriteException e = (UnresolvedWriteException) thrown;
    assertThat(e.idempotencyKey()).isEqualTo("order-4711-b");
    assertThat(e.reason()).isEqualTo(RelentException.Reason.RETRIES_EXHAUSTED);
    assertThat(e.attempts()).isEqualTo(4);
    assertThat(e.method()).isEqualTo("POST");
    assertThat(e.endpoint()).isEqualTo(server.uri("/payments").toString());
    assertThat(e.getMessage())
        .startsWith("gave up after 4 attempts in 3.5 s (last: connection reset (")
        .endsWith(
            "; unresolved: the write may have taken effect; safe to send again with key"
                + " order-47…")
        .doesNotContain("order-4711-b");
    assertThat(e.attemptRecords()).hasSize(4).allMatch(AttemptRecord::ambiguous);
    assertThat(e.attemptRecords().get(3).gaveUp())
        .contains(RelentException.Reason.RETRIES_EXHAUSTED);
    assertThat(keys(server, "/payments")).hasSize(4).containsOnly("order-4711-b");
    assertThat(server).createdExactlyOnePerKey("payments").createdResources("payments", 1);
  }

  @Test
  void aKeyedPostThatNeverReachedTheServerIsNotUnresolved() throws Exception {
    URI closed;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, null)) {
      closed = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/payments");
    }
    Throwable thrown = catchThrowable(() -> client().send(post(closed, keyed())));
    // Every attempt was refused: nothing can have taken effect, so the give-up is plain.
    assertThat(thrown)
        .isInstanceOf(RetriesExhaustedException.class)
        .isNotInstanceOf(UnresolvedWriteException.class);
    assertThat(((RelentException) thrown).lastRule()).contains("retry: io-connect-refused");
  }

  @Test
  void anUnkeyedPostStaysHeldBackRatherThanUnresolved() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[],\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                + "\"steps\":[{\"status\":504}]}]}");
    Throwable thrown = payment(server, CallOptions.builder().withoutIdempotencyKey().build());
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    NotRetriedWriteException e = (NotRetriedWriteException) thrown;
    assertThat(e.attemptRecords()).singleElement().matches(AttemptRecord::ambiguous);
    assertThat(server).createdResources("payments", 1);
  }

  @Test
  void aCallersOwnKeyIsSentUnchanged() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[],\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                + "\"steps\":[{\"status\":503},{}]}]}");
    Reply reply =
        client()
            .send(
                post(
                    server.uri("/payments"),
                    CallOptions.builder().withIdempotencyKey("order-4711").build()));
    assertThat(reply.status()).isEqualTo(201);
    assertThat(reply.attempts()).isEqualTo(2);
    assertThat(reply.idempotencyKey()).isEqualTo("order-4711");
    assertThat(keys(server, "/payments")).containsExactly("order-4711", "order-4711");
    assertThat(server.stats().resourcesCreatedPerKey("payments"))
        .isEqualTo(Map.of("order-4711", 1L));
  }

  @Test
  void anUnkeyedPostUnder503IsNotSentAgain() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"POST\",\"path\":\"/charge\",\"steps\":["
                + "{\"status\":503,\"headers\":{\"X-Request-Id\":\"r-9\"}},{\"status\":200}]}]}");
    Throwable thrown =
        catchThrowable(() -> client().send(post(server.uri("/charge"), CallOptions.ofDefaults())));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    NotRetriedWriteException e = (NotRetriedWriteException) thrown;
    assertThat(e.method()).isEqualTo("POST");
    assertThat(e.endpoint()).isEqualTo(server.uri("/charge").toString());
    assertThat(e.status()).isEqualTo(503);
    assertThat(e.rule()).isEqualTo("http-503-unkeyed-write");
    assertThat(e.attempts()).isEqualTo(1);
    assertThat(e.requestId()).contains("X-Request-Id: r-9");
    assertThat(e.getMessage())
        .startsWith(
            "POST "
                + server.uri("/charge")
                + " was not re-sent after HTTP 503 (rule http-503-unkeyed-write; 1 attempt;"
                + " X-Request-Id: r-9)");
    assertThat(server.journal()).onPath("/charge").hasAttempts(1);
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void anUnkeyedPostUnder504AfterCreatingIsNotSentAgain() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[],\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                + "\"steps\":[{\"status\":504},{}]}]}");
    Throwable thrown =
        catchThrowable(
            () -> client().send(post(server.uri("/payments"), CallOptions.ofDefaults())));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    assertThat(((NotRetriedWriteException) thrown).rule()).isEqualTo("http-504-unkeyed-write");
    assertThat(server.journal()).onPath("/payments").hasAttempts(1);
    assertThat(server).createdResources("payments", 1);
  }

  @Test
  void aResetIsRetriedForAKeyedPostAndNotForAnUnkeyedOne() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"POST\",\"path\":\"/charge\",\"steps\":["
                + "{\"fault\":\"reset\"},{\"status\":200}]}],"
                + "\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                + "\"steps\":[{\"fault\":\"reset\"},{}]}]}");
    Reply reply = client().send(post(server.uri("/payments"), keyed()));
    assertThat(reply.status()).isEqualTo(201);
    assertThat(reply.attempts()).isEqualTo(2);
    assertThat(server.journal()).onPath("/payments").hasAttempts(2);
    assertThat(server).createdResources("payments", 1);

    Throwable thrown =
        catchThrowable(() -> client().send(post(server.uri("/charge"), CallOptions.ofDefaults())));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    NotRetriedWriteException e = (NotRetriedWriteException) thrown;
    assertThat(e.fault()).contains(Fault.RESET);
    assertThat(e.status()).isEqualTo(-1);
    assertThat(e.rule()).isEqualTo("io-reset-unkeyed-write");
    assertThat(e.attempts()).isEqualTo(1);
    assertThat(server.journal()).onPath("/charge").hasAttempts(1);
  }

  @Test
  void aResetGetIsRetriedAndTheServerSeesEveryRequest() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"path\":\"/items\",\"steps\":["
                + "{\"fault\":\"reset\"},{\"status\":200,\"body\":\"ok\"}]}]}");
    Reply reply = client().send(get(server.uri("/items")));
    assertThat(reply.body()).isEqualTo("ok");
    // Two requests reach the server either way; the JDK client makes the second one itself.
    assertThat(server.journal()).onPath("/items").hasAttempts(2);
    assertThat(reply.attempts()).isEqualTo(2 - hiddenResendsOfResetGet());
  }

  @Test
  void aResetOnAPooledConnectionLeavesNoRequestOnTheWireUncounted() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"path\":\"/ping\",\"steps\":[{\"status\":200,\"body\":\"pong\"}]},"
                + "{\"path\":\"/items\",\"steps\":["
                + "{\"fault\":\"reset\"},{\"status\":200,\"body\":\"ok\"}]}],"
                + "\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
                + "\"steps\":[{\"fault\":\"reset\"},{}]}]}");
    Client client = client();
    // A first exchange leaves its kept-alive connection in the pool; the next GET takes it, and
    // the server resets it after reading the request, before any response byte.
    assertThat(client.send(get(server.uri("/ping"))).body()).isEqualTo("pong");
    Reply reply = client.send(get(server.uri("/items")));
    assertThat(reply.body()).isEqualTo("ok");
    List<JournalEntry> items = onPath(server, "/items");
    assertThat(items.get(0).remoteAddress())
        .isEqualTo(onPath(server, "/ping").get(0).remoteAddress());
    assertThat(items.get(1).remoteAddress()).isNotEqualTo(items.get(0).remoteAddress());
    // Every request the server saw is one of Relent's attempts, except the JDK's own re-send.
    assertThat(items).hasAttempts(reply.attempts() + hiddenResendsOfResetGet());
    assertThat(reply.records()).hasSize(reply.attempts());
    assertThat(reply.records().get(reply.attempts() - 1).status()).isEqualTo(200);
    if (reply.attempts() == 2) {
      assertThat(reply.records().get(0).fault()).isPresent();
      assertThat(reply.records().get(0).verdict().kind()).isEqualTo(Verdict.Kind.RETRY);
    }

    // No client library re-sends a write on its own: a keyed POST on a pooled connection that is
    // reset is two requests at the server and two attempts in Relent, whichever the adapter.
    String pooled = items.get(1).remoteAddress();
    Reply created = client.send(post(server.uri("/payments"), keyed()));
    assertThat(created.status()).isEqualTo(201);
    List<JournalEntry> payments = onPath(server, "/payments");
    assertThat(payments.get(0).remoteAddress()).isEqualTo(pooled);
    assertThat(payments).hasAttempts(2);
    assertThat(created.attempts()).isEqualTo(2);
    assertThat(created.records()).hasSize(2);
    assertThat(server).createdResources("payments", 1);
  }

  private static List<JournalEntry> onPath(MockServer server, String path) {
    return server.journal().stream()
        .filter(e -> e.target().equals(path))
        .collect(Collectors.toList());
  }

  @Test
  void aReadTimeoutIsRetriedForAGetAndHeldBackForAnUnkeyedPost() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"GET\",\"path\":\"/slow\",\"steps\":["
                + "{\"delay\":\"2s\",\"status\":200,\"body\":\"late\"},"
                + "{\"status\":200,\"body\":\"ok\"}]},"
                + "{\"method\":\"POST\",\"path\":\"/slow-write\",\"steps\":["
                + "{\"delay\":\"2s\",\"status\":200},{\"status\":200}]}]}");
    Client client = client(settings(Duration.ofMillis(300)));
    Reply reply = client.send(get(server.uri("/slow")));
    assertThat(reply.body()).isEqualTo("ok");
    assertThat(reply.attempts()).isEqualTo(2);
    assertThat(server.journal()).onPath("/slow").hasAttempts(2);

    Throwable thrown =
        catchThrowable(
            () -> client.send(post(server.uri("/slow-write"), CallOptions.ofDefaults())));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    NotRetriedWriteException e = (NotRetriedWriteException) thrown;
    assertThat(e.fault()).contains(Fault.READ_TIMEOUT);
    assertThat(e.rule()).isEqualTo("io-read-timeout-unkeyed-write");
    assertThat(server.journal()).onPath("/slow-write").hasAttempts(1);
  }

  @Test
  void aRequestsOwnDecisionTableWins() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"POST\",\"path\":\"/charge\",\"steps\":["
                + "{\"status\":503},{\"status\":200,\"body\":\"ok\"}]}]}");
    CallOptions trusting =
        CallOptions.builder()
            .withDecisionTable(
                dev.relent.http.DecisionTable.ofDefaults()
                    .with(503, dev.relent.http.DecisionTable.Rule.RETRY_ANY_METHOD))
            .build();
    Reply reply = client().send(post(server.uri("/charge"), trusting));
    assertThat(reply.body()).isEqualTo("ok");
    assertThat(reply.attempts()).isEqualTo(2);
    assertThat(server.journal()).onPath("/charge").hasAttempts(2);
  }

  @Test
  void secretsInHeadersReachTheServerButNoMessage() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"POST\",\"path\":\"/charge\",\"steps\":[{\"status\":503}]}]}");
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Authorization", "Bearer s3cr3t-t0ken");
    headers.put("Content-Type", "application/json");
    TestRequest request =
        new TestRequest(
            "POST",
            server.uri("/charge?api_key=k3y-123&page=2"),
            headers,
            "{}",
            CallOptions.ofDefaults());
    Throwable thrown = catchThrowable(() -> client().send(request));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    assertThat(thrown.getMessage())
        .doesNotContain("s3cr3t-t0ken")
        .doesNotContain("k3y-123")
        .contains("api_key=REDACTED&page=2");
    List<JournalEntry> journal = server.journal();
    assertThat(journal).hasAttempts(1);
    assertThat(journal.get(0).header("Authorization")).isEqualTo("REDACTED");
  }

  @Test
  void everyAttemptIsRecordedForItsCallWithoutSecrets() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"GET\",\"path\":\"/flaky\",\"steps\":["
                + "{\"status\":503,\"headers\":{\"X-Request-Id\":\"r-1\"}},"
                + "{\"status\":200,\"body\":\"ok\"}]}]}");
    List<AttemptRecord> heard = new ArrayList<>();
    CallOptions options =
        CallOptions.builder()
            .withIdempotencyKey("order-4711-s3cr3t")
            .withAttemptListener(heard::add)
            .build();
    URI uri = server.uri("/flaky?api_key=k3y-123&page=2");
    Reply reply = client().send(new TestRequest("GET", uri, Map.of(), null, options));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.records()).hasSize(2).isEqualTo(heard);
    String endpoint = server.uri("/flaky?api_key=REDACTED&page=2").toString();

    AttemptRecord first = reply.records().get(0);
    assertThat(first.number()).isEqualTo(1);
    assertThat(first.start()).isEqualTo(Duration.ZERO);
    assertThat(first.duration()).isPresent();
    assertThat(first.method()).isEqualTo("GET");
    assertThat(first.endpoint()).isEqualTo(endpoint);
    assertThat(first.status()).isEqualTo(503);
    assertThat(first.fault()).isEmpty();
    assertThat(first.outcome()).isEqualTo("HTTP 503");
    assertThat(first.verdict()).isEqualTo(Verdict.retry("http-503"));
    assertThat(first.rule()).isEqualTo("http-503");
    assertThat(first.heldBack()).isFalse();
    assertThat(first.waitTime()).contains(Duration.ofMillis(500));
    assertThat(first.requestId()).contains("X-Request-Id: r-1");
    assertThat(first.replayed()).isFalse();
    assertThat(first.key()).contains("order-47…");
    assertThat(first.gaveUp()).isEmpty();

    AttemptRecord second = reply.records().get(1);
    assertThat(second.number()).isEqualTo(2);
    assertThat(second.start()).isGreaterThanOrEqualTo(Duration.ofMillis(500));
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.verdict()).isEqualTo(Verdict.success("http-2xx"));
    assertThat(second.waitTime()).isEmpty();
    assertThat(second.gaveUp()).isEmpty();
    assertThat(reply.records().toString()).doesNotContain("k3y-123").doesNotContain("s3cr3t");
  }

  @Test
  void aHeldBackWriteCarriesItsRecords() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"POST\",\"path\":\"/charge\",\"steps\":["
                + "{\"fault\":\"reset\"},{\"status\":200}]}]}");
    List<AttemptRecord> heard = new ArrayList<>();
    CallOptions options = CallOptions.builder().withAttemptListener(heard::add).build();
    Throwable thrown = catchThrowable(() -> client().send(post(server.uri("/charge"), options)));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    List<AttemptRecord> records = ((NotRetriedWriteException) thrown).attemptRecords();
    assertThat(records).hasSize(1).isEqualTo(heard);
    AttemptRecord only = records.get(0);
    assertThat(only.method()).isEqualTo("POST");
    assertThat(only.status()).isEqualTo(-1);
    assertThat(only.fault()).contains(Fault.RESET);
    assertThat(only.rule()).isEqualTo("io-reset-unkeyed-write");
    assertThat(only.heldBack()).isTrue();
    assertThat(only.key()).isEmpty();
    // The executor stopped at a fault it may not retry; the adapter then held the write back.
    assertThat(only.gaveUp()).contains(RelentException.Reason.NOT_RETRYABLE);
  }

  @Test
  void aGiveUpNamesTheRequestAndItsRecordsReachTheListener() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"path\":\"/busy\",\"steps\":["
                + "{\"status\":429,\"headers\":{\"Retry-After\":\"86400\"}}]}]}");
    List<AttemptRecord> heard = new ArrayList<>();
    CallOptions options = CallOptions.builder().withAttemptListener(heard::add).build();
    URI uri = server.uri("/busy?token=t0k3n");
    Throwable thrown =
        catchThrowable(() -> client().send(new TestRequest("GET", uri, Map.of(), null, options)));
    // A day-long wait after a 429 is a spent quota: the same type through every adapter.
    assertThat(thrown).isInstanceOf(QuotaExhaustedException.class);
    assertThat(thrown.getMessage())
        .contains("last: HTTP 429 from GET " + server.uri("/busy?token=REDACTED"))
        .doesNotContain("t0k3n");
    assertThat(heard).hasSize(1);
    assertThat(heard.get(0).status()).isEqualTo(429);
    assertThat(heard.get(0).serverHint()).isPresent();
    assertThat(heard.get(0).gaveUp()).contains(RelentException.Reason.QUOTA_EXHAUSTED);
  }

  // ------------------------------------------------------------------ call observers

  /** Writes down what a call observer is told, one line per callback, and sets X-Attempt. */
  private static CallObserver.Factory recording(List<String> heard) {
    return call ->
        new CallObserver() {
          {
            heard.add("call " + call.method() + " " + call.endpoint());
          }

          @Override
          public void attemptStarted(int attempt, java.util.function.BiConsumer<String, String> h) {
            heard.add("start " + attempt);
            h.accept("X-Attempt", Integer.toString(attempt));
          }

          @Override
          public void attemptEnded(int attempt, int status, Throwable failure) {
            heard.add(
                "end "
                    + attempt
                    + " "
                    + (failure == null ? status : failure.getClass().getSimpleName()));
          }

          @Override
          public void onEvent(dev.relent.RelentEvent<?> e) {
            if (e.type() == dev.relent.RelentEvent.Type.RETRY
                || e.type() == dev.relent.RelentEvent.Type.FAILURE) {
              heard.add(e.type() + " " + e.attempt() + " " + e.waitTime().orElse(null));
            }
          }

          @Override
          public void callEnded(int status, Throwable failure) {
            heard.add("done " + (failure == null ? status : failure.getClass().getSimpleName()));
          }
        };
  }

  @Test
  void aCallObserverSeesEachRequestInOrderAndItsHeadersReachTheServer() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"path\":\"/flaky\",\"steps\":["
                + "{\"status\":503},{\"status\":503},{\"status\":200,\"body\":\"ok\"}]}]}");
    List<String> heard = java.util.Collections.synchronizedList(new ArrayList<>());
    URI uri = server.uri("/flaky?api_key=s3cr3t");
    Reply reply = client(settings().withObserver(recording(heard))).send(get(uri));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(heard)
        .containsExactly(
            "call GET " + server.uri("/flaky?api_key=REDACTED"),
            "start 1",
            "end 1 503",
            "RETRY 1 PT0.5S",
            "start 2",
            "end 2 503",
            "RETRY 2 PT1S",
            "start 3",
            "end 3 200",
            "done 200");
    // Each physical request carried the header its own attempt set.
    assertThat(
            server.journal().stream().map(e -> e.header("X-Attempt")).collect(Collectors.toList()))
        .containsExactly("1", "2", "3");
  }

  @Test
  void aCallObserverSeesTheGiveUp() throws Exception {
    MockServer server = server("{\"routes\":[{\"path\":\"/down\",\"steps\":[{\"status\":503}]}]}");
    List<String> heard = java.util.Collections.synchronizedList(new ArrayList<>());
    Client client =
        client(
            new Settings(1, Duration.ofSeconds(5), Duration.ofSeconds(30), time, List.of())
                .withObserver(recording(heard)));
    Throwable thrown = catchThrowable(() -> client.send(get(server.uri("/down"))));
    assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
    assertThat(heard)
        .containsExactly(
            "call GET " + server.uri("/down"),
            "start 1",
            "end 1 503",
            "RETRY 1 PT0.5S",
            "start 2",
            "end 2 503",
            "FAILURE 2 null",
            "done RetriesExhaustedException");
  }

  /** The executor's end of each call a client made: SUCCESS, or FAILURE with its reason. */
  private static CallObserver.Factory endings(List<String> heard) {
    return call ->
        new CallObserver() {
          @Override
          public void onEvent(dev.relent.RelentEvent<?> e) {
            if (e.type() == dev.relent.RelentEvent.Type.SUCCESS) {
              heard.add(call.endpoint() + " SUCCESS");
            } else if (e.type() == dev.relent.RelentEvent.Type.FAILURE) {
              heard.add(
                  call.endpoint()
                      + " FAILURE "
                      + e.exception().map(x -> x.reason().slug()).orElse("(no exception)"));
            }
          }

          @Override
          public void callEnded(int status, Throwable failure) {
            heard.add(
                call.endpoint()
                    + " ended "
                    + (failure == null ? status : failure.getClass().getSimpleName()));
          }
        };
  }

  @Test
  void aHeldBackWriteIsOneFailureForTheExecutorWhetherItGotAnAnswerOrAFault() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"method\":\"POST\",\"path\":\"/answered\",\"steps\":["
                + "{\"status\":503},{\"status\":200}]},"
                + "{\"method\":\"POST\",\"path\":\"/reset\",\"steps\":["
                + "{\"fault\":\"reset\"},{\"status\":200}]}]}");
    List<String> heard = java.util.Collections.synchronizedList(new ArrayList<>());
    Client client = client(settings().withObserver(endings(heard)));
    for (String path : List.of("/answered", "/reset")) {
      Throwable thrown =
          catchThrowable(() -> client.send(post(server.uri(path), CallOptions.ofDefaults())));
      assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
      assertThat(server.journal()).onPath(path).hasAttempts(1);
    }
    // The caller got an exception both times; the executor, whose events feed the meters, the
    // spans and the logs, must say the same: a failure, not a success, and for the same reason.
    assertThat(heard)
        .containsExactly(
            server.uri("/answered") + " FAILURE not-retryable",
            server.uri("/answered") + " ended NotRetriedWriteException",
            server.uri("/reset") + " FAILURE not-retryable",
            server.uri("/reset") + " ended NotRetriedWriteException");
  }

  @Test
  void aFailingCallObserverChangesNothing() throws Exception {
    MockServer server =
        server(
            "{\"routes\":[{\"path\":\"/flaky\",\"steps\":["
                + "{\"status\":503},{\"status\":200,\"body\":\"ok\"}]}]}");
    CallObserver failing =
        new CallObserver() {
          @Override
          public void attemptStarted(int attempt, java.util.function.BiConsumer<String, String> h) {
            h.accept("X-Before", "set");
            h.accept("X-Null", null); // refused at once, never handed to the client
            throw new IllegalStateException("observer broke");
          }

          @Override
          public void attemptEnded(int attempt, int status, Throwable failure) {
            throw new IllegalStateException("observer broke");
          }

          @Override
          public void onEvent(dev.relent.RelentEvent<?> event) {
            throw new IllegalStateException("observer broke");
          }

          @Override
          public void callEnded(int status, Throwable failure) {
            throw new IllegalStateException("observer broke");
          }
        };
    Settings settings =
        settings()
            .withObserver(
                call -> {
                  throw new IllegalStateException("factory broke");
                })
            .withObserver(call -> failing);
    Reply reply = client(settings).send(get(server.uri("/flaky")));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.attempts()).isEqualTo(2);
    assertThat(server.journal()).onPath("/flaky").hasAttempts(2);
    // What it set before it threw still went out: the header, not the exception, is its effect.
    assertThat(server.journal().get(1).header("X-Before")).isEqualTo("set");
    assertThat(server.journal().get(1).header("X-Null")).isNull();
  }
}
