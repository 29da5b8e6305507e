package dev.relent.okhttp;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.ServerWaitTooLongException;
import dev.relent.Verdict;
import dev.relent.http.CallOptions;
import dev.relent.http.CallResult;
import dev.relent.http.HttpFaultException;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.ServerClock;
import dev.relent.time.FakeTime;
import dev.relent.time.RecordingSleeper;
import java.io.IOException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What is particular to OkHttp: its own silent retries, one-shot bodies, async calls, settings. */
class RelentInterceptorTest {
  private static final MediaType JSON = MediaType.get("application/json");

  private final FakeTime time = new FakeTime();
  private final RecordingSleeper sleeper = time.sleeper();
  private MockServer server;

  @AfterEach
  void close() {
    if (server != null) {
      server.close();
    }
  }

  private MockServer server(String json) {
    server = MockServer.builder(Scenario.parse(json)).withClock(ServerClock.of(time)).start();
    return server;
  }

  private RelentInterceptor.Builder relent() {
    return RelentInterceptor.builder()
        .withPolicy(
            RetryPolicy.builder()
                .withMaxRetries(3)
                .withAttemptTimeout(Duration.ofSeconds(5))
                .withBackoff(
                    Backoff.builder()
                        .withBase(Duration.ofMillis(500))
                        .withJitter(Jitter.NONE)
                        .build())
                .build())
        .withTime(time.withSeed(7));
  }

  private static Request post(String url) {
    return new Request.Builder()
        .url(url)
        .post(RequestBody.create("{\"amount\":100}", JSON))
        .build();
  }

  @Test
  void installTurnsOffRetryOnConnectionFailureAndAddsTheInterceptor() {
    RelentInterceptor relent = relent().build();
    OkHttpClient client = relent.install(new OkHttpClient.Builder()).build();
    assertThat(client.retryOnConnectionFailure()).isFalse();
    assertThat(client.interceptors()).containsExactly(relent);
    assertThat(new OkHttpClient().retryOnConnectionFailure()).isTrue();
  }

  @Test
  void aClientThatRetriesOnItsOwnIsRefusedBeforeAnythingIsSentAndInstallStopsThoseRetries()
      throws Exception {
    String scenario =
        "{\"routes\":[{\"path\":\"/ping\",\"steps\":[{\"status\":200}]}],"
            + "\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
            + "\"steps\":[{\"fault\":\"reset\"},{}]}]}";
    // Added by hand, retryOnConnectionFailure still on (OkHttp's default): when a pooled
    // connection breaks, OkHttp itself would send the unkeyed POST again on a new one, and the
    // server would create the payment twice inside one Relent attempt. The interceptor refuses
    // such a client on its first call, before any request leaves.
    server(scenario);
    OkHttpClient leftOn = new OkHttpClient.Builder().addInterceptor(relent().build()).build();
    Throwable refused = catchThrowable(() -> sendPingThenPay(leftOn));
    assertThat(refused)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "RelentInterceptor is on an OkHttpClient with retryOnConnectionFailure(true), OkHttp's"
                + " default: OkHttp would send a request again on its own after a failed"
                + " connection or a reset, POSTs included, and Relent would neither count nor log"
                + " it. Add the interceptor with relent.install(builder), which turns that off, or"
                + " call retryOnConnectionFailure(false) on the builder");
    assertThat(server.journal()).hasAttempts(0);
    leftOn.connectionPool().evictAll();
    server.close();

    // Installed: the one request the server saw is the one Relent reports, and it is not re-sent.
    server(scenario);
    RelentInterceptor relent = relent().build();
    OkHttpClient installed = relent.install(new OkHttpClient.Builder()).build();
    Throwable thrown = catchThrowable(() -> sendPingThenPay(installed));
    assertThat(thrown).isInstanceOf(NotRetriedWriteException.class);
    assertThat(((NotRetriedWriteException) thrown).attempts()).isEqualTo(1);
    assertThat(server.journal()).onPath("/payments").hasAttempts(1);
    assertThat(server).createdResources("payments", 1);
    assertThat(relent.counters().firstAttempts()).isEqualTo(2);
    assertThat(relent.counters().retries()).isZero();

    // Turned off by hand, without install, is as good.
    OkHttpClient byHand =
        new OkHttpClient.Builder()
            .retryOnConnectionFailure(false)
            .addInterceptor(relent().build())
            .build();
    try (Response ping =
        byHand
            .newCall(new Request.Builder().url(server.uri("/ping").toString()).build())
            .execute()) {
      assertThat(ping.code()).isEqualTo(200);
    }
  }

  /** A GET leaves a pooled connection, which the POST then uses; returns the POST's attempts. */
  private int sendPingThenPay(OkHttpClient client) throws IOException {
    try (Response ping =
        client
            .newCall(new Request.Builder().url(server.uri("/ping").toString()).build())
            .execute()) {
      assertThat(ping.code()).isEqualTo(200);
    }
    try (Response response = client.newCall(post(server.uri("/payments").toString())).execute()) {
      assertThat(response.code()).isEqualTo(201);
      return RelentInterceptor.callResult(response).orElseThrow().attempts();
    }
  }

  @Test
  void okHttpStillResendsA503WithRetryAfterZeroOnce() throws Exception {
    // OkHttp's own follow-up rule, which no setting turns off: docs/http.md says so.
    server(
        "{\"routes\":[{\"path\":\"/busy\",\"steps\":["
            + "{\"status\":503,\"headers\":{\"Retry-After\":\"0\"}},{\"status\":200,\"body\":\"ok\"}]}]}");
    OkHttpClient client = relent().build().install(new OkHttpClient.Builder()).build();
    try (Response response =
        client
            .newCall(new Request.Builder().url(server.uri("/busy").toString()).build())
            .execute()) {
      assertThat(response.body().string()).isEqualTo("ok");
      assertThat(RelentInterceptor.callResult(response).orElseThrow().attempts()).isEqualTo(1);
    }
    assertThat(server.journal()).onPath("/busy").hasAttempts(2);
  }

  @Test
  void aOneShotBodyIsNeverSentTwice() throws Exception {
    server(
        "{\"routes\":[{\"method\":\"PUT\",\"path\":\"/doc\",\"steps\":["
            + "{\"status\":503},{\"status\":200}]}]}");
    RequestBody oneShot =
        new RequestBody() {
          @Override
          public MediaType contentType() {
            return JSON;
          }

          @Override
          public long contentLength() {
            return 2;
          }

          @Override
          public boolean isOneShot() {
            return true;
          }

          @Override
          public void writeTo(BufferedSink sink) throws IOException {
            sink.writeUtf8("{}");
          }
        };
    OkHttpClient client = relent().build().install(new OkHttpClient.Builder()).build();
    Request put = new Request.Builder().url(server.uri("/doc").toString()).put(oneShot).build();
    try (Response response = client.newCall(put).execute()) {
      // A PUT is idempotent, but its body cannot be read twice: the 503 is final.
      assertThat(response.code()).isEqualTo(503);
      CallResult result = RelentInterceptor.callResult(response).orElseThrow();
      assertThat(result.attempts()).isEqualTo(1);
      assertThat(result.decision().verdict()).isEqualTo(Verdict.abortFailure("http-503"));
    }
    assertThat(server.journal()).onPath("/doc").hasAttempts(1);
  }

  @Test
  void everyWriteGetsAKeyWhenTheClientSaysSo() throws Exception {
    server(
        "{\"routes\":[],\"resources\":[{\"name\":\"payments\",\"path\":\"/payments\","
            + "\"steps\":[{\"status\":502},{}]}]}");
    OkHttpClient client =
        relent().withIdempotencyKeys(true).build().install(new OkHttpClient.Builder()).build();
    try (Response response = client.newCall(post(server.uri("/payments").toString())).execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(RelentInterceptor.callResult(response).orElseThrow().idempotencyKey()).isPresent();
    }
    assertThat(server.journal())
        .onPath("/payments")
        .hasAttempts(2)
        .allCarrySameHeader("Idempotency-Key");
    assertThat(server).createdExactlyOnePerKey("payments");

    // A request can opt out.
    Request optOut =
        post(server.uri("/payments").toString())
            .newBuilder()
            .tag(CallOptions.class, CallOptions.builder().withoutIdempotencyKey().build())
            .build();
    try (Response response = client.newCall(optOut).execute()) {
      assertThat(RelentInterceptor.callResult(response).orElseThrow().idempotencyKey()).isEmpty();
    }
  }

  @Test
  void anAsynchronousCallGetsTheGiveUpInItsCallback() throws Exception {
    server(
        "{\"routes\":[{\"path\":\"/busy\",\"steps\":["
            + "{\"status\":503,\"headers\":{\"Retry-After\":\"86400\"}}]}]}");
    OkHttpClient client = relent().build().install(new OkHttpClient.Builder()).build();
    CompletableFuture<IOException> failure = new CompletableFuture<>();
    client
        .newCall(new Request.Builder().url(server.uri("/busy").toString()).build())
        .enqueue(
            new Callback() {
              @Override
              public void onFailure(Call call, IOException e) {
                failure.complete(e);
              }

              @Override
              public void onResponse(Call call, Response response) {
                response.close();
                failure.complete(null);
              }
            });
    IOException e = failure.get(10, TimeUnit.SECONDS);
    // OkHttp hands the callback an IOException caused by the interceptor's exception.
    Exception thrown = RelentInterceptor.failureOf(e);
    assertThat(thrown).isInstanceOf(ServerWaitTooLongException.class);
    assertThat(thrown.getMessage()).contains("server asked to wait 86400 s");
    client.dispatcher().executorService().shutdown();
  }

  @Test
  void aRetriedBodyIsKeptUpToTheLimit() throws Exception {
    server(
        "{\"routes\":[{\"path\":\"/big\",\"steps\":[{\"status\":503,\"body\":\"0123456789abcdef\"}]}]}");
    OkHttpClient client =
        relent().withMaxBufferedBody(10).build().install(new OkHttpClient.Builder()).build();
    Throwable thrown =
        catchThrowable(
            () ->
                client
                    .newCall(new Request.Builder().url(server.uri("/big").toString()).build())
                    .execute());
    assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
    RetriesExhaustedException e = (RetriesExhaustedException) thrown;
    try (Response last = (Response) e.lastResult().orElseThrow()) {
      assertThat(last.body().string()).isEqualTo("0123456789");
    }
    assertThat(server.journal()).onPath("/big").hasAttempts(4);
  }

  @Test
  void aFaultTheTableDoesNotRetryIsThrownAsItIs() {
    OkHttpClient client =
        relent()
            .build()
            .install(new OkHttpClient.Builder())
            .dns(
                host -> {
                  throw new UnknownHostException("no such host: " + host);
                })
            .build();
    Throwable thrown =
        catchThrowable(
            () ->
                client
                    .newCall(new Request.Builder().url("http://relent-test.invalid/x").build())
                    .execute());
    assertThat(thrown).isInstanceOf(HttpFaultException.class);
    assertThat(((HttpFaultException) thrown).fault()).hasToString("UNKNOWN_HOST");
    assertThat(thrown.getMessage()).startsWith("unknown host: GET http://relent-test.invalid/x (");
  }

  @Test
  void aFailureThatIsNoNetworkFaultPassesThroughUnchangedAndIsNotRetried() {
    server("{\"routes\":[{\"path\":\"/x\",\"steps\":[{\"status\":200}]}]}");
    IllegalStateException bug = new IllegalStateException("a bug in a network interceptor");
    OkHttpClient client =
        relent()
            .build()
            .install(new OkHttpClient.Builder())
            .addNetworkInterceptor(
                chain -> {
                  throw bug;
                })
            .build();
    Throwable thrown =
        catchThrowable(
            () ->
                client
                    .newCall(new Request.Builder().url(server.uri("/x").toString()).build())
                    .execute());
    assertThat(thrown).isSameAs(bug);
    assertThat(sleeper.waits()).isEmpty();
  }

  @Test
  void settingsAreValidated() {
    assertThatThrownBy(() -> RelentInterceptor.builder().withMaxBufferedBody(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBufferedBody must be >= 0: -1 bytes");
    assertThatThrownBy(() -> RelentInterceptor.builder().withPolicy(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("policy cannot be null");
    assertThatThrownBy(() -> RelentInterceptor.ofDefaults().install(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("builder cannot be null");
    assertThatThrownBy(() -> RelentInterceptor.callResult(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("response cannot be null");
  }
}
