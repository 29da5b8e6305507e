package dev.relent.httpclient5;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.Verdict;
import dev.relent.http.CallResult;
import dev.relent.http.Fault;
import dev.relent.http.HttpFaultException;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.ServerClock;
import dev.relent.time.FakeTime;
import dev.relent.time.RecordingSleeper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPut;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What is particular to Apache HttpClient 5: its default retry strategy, non-repeatable entities,
 * the buffering limit, settings.
 */
class RelentExecChainHandlerTest {
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

  private RelentExecChainHandler.Builder relent() {
    return RelentExecChainHandler.builder()
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

  private static CallResult get(CloseableHttpClient client, String uri, StringBuilder body)
      throws Exception {
    HttpClientContext context = HttpClientContext.create();
    return client.execute(
        new HttpGet(uri),
        context,
        response -> {
          body.append(response.getCode()).append(' ');
          body.append(EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8));
          return RelentExecChainHandler.callResult(context).orElseThrow();
        });
  }

  @Test
  void leftOnTheDefaultRetryStrategyResendsAResetGetOutOfSightAndInstallStopsIt() throws Exception {
    String scenario =
        "{\"routes\":[{\"path\":\"/items\",\"steps\":["
            + "{\"fault\":\"reset\"},{\"status\":200,\"body\":\"ok\"}]}]}";
    server(scenario);
    // Added by hand as the first element, with HttpClient's default retry strategy still on: that
    // re-sends the GET itself, inside one Relent attempt, so Relent counts one where the server
    // saw two. (Where install puts the handler, the strategy would instead repeat Relent's own
    // failures: attempts multiply either way.)
    RelentExecChainHandler handler = relent().build();
    StringBuilder body = new StringBuilder();
    try (CloseableHttpClient leftOn =
        HttpClients.custom().addExecInterceptorFirst("relent", handler).build()) {
      assertThat(get(leftOn, server.uri("/items").toString(), body).attempts()).isEqualTo(1);
    }
    assertThat(body).hasToString("200 ok");
    assertThat(server.journal()).onPath("/items").hasAttempts(2);
    server.close();

    server(scenario);
    body.setLength(0);
    try (CloseableHttpClient installed = relent().build().install(HttpClients.custom()).build()) {
      assertThat(get(installed, server.uri("/items").toString(), body).attempts()).isEqualTo(2);
    }
    assertThat(body).hasToString("200 ok");
    assertThat(server.journal()).onPath("/items").hasAttempts(2);
    assertThat(sleeper.waits()).containsExactly(Duration.ofMillis(500));
  }

  @Test
  void aNonRepeatableEntityIsNeverSentTwice() throws Exception {
    server(
        "{\"routes\":[{\"method\":\"PUT\",\"path\":\"/doc\",\"steps\":["
            + "{\"status\":503},{\"fault\":\"reset\"},{\"status\":200}]}]}");
    try (CloseableHttpClient client = relent().build().install(HttpClients.custom()).build()) {
      HttpClientContext context = HttpClientContext.create();
      HttpPut put = new HttpPut(server.uri("/doc"));
      put.setEntity(
          new InputStreamEntity(
              new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8)),
              2,
              ContentType.APPLICATION_JSON));
      // A PUT is idempotent, but a stream cannot be sent twice: the 503 is final.
      int status = client.execute(put, context, ClassicHttpResponse::getCode);
      assertThat(status).isEqualTo(503);
      CallResult result = RelentExecChainHandler.callResult(context).orElseThrow();
      assertThat(result.attempts()).isEqualTo(1);
      assertThat(result.decision().verdict()).isEqualTo(Verdict.abortFailure("http-503"));

      HttpPut again = new HttpPut(server.uri("/doc"));
      again.setEntity(
          new InputStreamEntity(
              new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8)),
              2,
              ContentType.APPLICATION_JSON));
      Throwable thrown = catchThrowable(() -> client.execute(again, r -> r.getCode()));
      assertThat(thrown).isInstanceOf(HttpFaultException.class);
      assertThat(((HttpFaultException) thrown).fault()).isEqualTo(Fault.RESET);
    }
    assertThat(server.journal()).onPath("/doc").hasAttempts(2);
  }

  @Test
  void aRetriedBodyIsKeptUpToTheLimitAndTheConnectionDropped() throws Exception {
    server(
        "{\"routes\":[{\"path\":\"/big\",\"steps\":[{\"status\":503,\"body\":\"0123456789abcdef\"}]}]}");
    try (CloseableHttpClient client =
        relent().withMaxBufferedBody(10).build().install(HttpClients.custom()).build()) {
      Throwable thrown =
          catchThrowable(() -> client.execute(new HttpGet(server.uri("/big")), r -> r.getCode()));
      assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
      ClassicHttpResponse last =
          (ClassicHttpResponse) ((RetriesExhaustedException) thrown).lastResult().orElseThrow();
      assertThat(EntityUtils.toString(last.getEntity(), StandardCharsets.UTF_8))
          .isEqualTo("0123456789");
    }
    assertThat(server.journal()).onPath("/big").hasAttempts(4);
  }

  @Test
  void aFailureThatIsNoNetworkFaultPassesThroughUnchangedAndIsNotRetried() throws Exception {
    server("{\"routes\":[{\"path\":\"/x\",\"steps\":[{\"status\":200}]}]}");
    IllegalStateException bug = new IllegalStateException("a bug further down the chain");
    RelentExecChainHandler relent = relent().build();
    try (CloseableHttpClient client =
        relent
            .install(HttpClients.custom())
            .addExecInterceptorBefore(
                ChainElement.PROTOCOL.name(),
                "bug",
                (request, scope, chain) -> {
                  throw bug;
                })
            .build()) {
      Throwable thrown =
          catchThrowable(() -> client.execute(new HttpGet(server.uri("/x")), r -> r.getCode()));
      assertThat(thrown).isSameAs(bug);
    }
    assertThat(sleeper.waits()).isEmpty();
    assertThat(relent.counters().retries()).isZero();
  }

  @Test
  void settingsAreValidated() {
    assertThatThrownBy(() -> RelentExecChainHandler.builder().withMaxBufferedBody(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBufferedBody must be >= 0: -1 bytes");
    assertThatThrownBy(() -> RelentExecChainHandler.ofDefaults().install(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("builder cannot be null");
    assertThatThrownBy(() -> RelentExecChainHandler.setOptions(HttpClientContext.create(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("options cannot be null");
    assertThatThrownBy(() -> RelentExecChainHandler.callResult(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("context cannot be null");
  }
}
