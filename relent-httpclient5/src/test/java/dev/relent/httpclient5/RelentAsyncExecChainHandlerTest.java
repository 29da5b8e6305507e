package dev.relent.httpclient5;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.http.CallResult;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the async handler does beyond the shared contract: a body it does not retry streams to the
 * caller whole, a failure that is no network fault passes through, settings are validated. Waits
 * run on real time here, kept short (10 ms backoff), since no fake scheduler drives them.
 */
class RelentAsyncExecChainHandlerTest {
  private MockServer server;
  private CloseableHttpAsyncClient client;

  @AfterEach
  void close() {
    if (client != null) {
      client.close(CloseMode.IMMEDIATE);
    }
    if (server != null) {
      server.close();
    }
  }

  private MockServer server(String json) {
    server = MockServer.builder(Scenario.parse(json)).start();
    return server;
  }

  private static RelentAsyncExecChainHandler.Builder relent() {
    return RelentAsyncExecChainHandler.builder()
        .withPolicy(
            RetryPolicy.builder()
                .withMaxRetries(2)
                .withBackoff(
                    dev.relent.Backoff.builder()
                        .withBase(Duration.ofMillis(10))
                        .withJitter(dev.relent.Jitter.NONE)
                        .build())
                .build());
  }

  private CloseableHttpAsyncClient start(CloseableHttpAsyncClient built) {
    client = built;
    client.start();
    return client;
  }

  private static SimpleHttpResponse get(
      CloseableHttpAsyncClient client, String uri, HttpClientContext context) throws Exception {
    try {
      return client
          .execute(SimpleRequestBuilder.get(uri).build(), context, null)
          .get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }

  @Test
  void aBodyThatIsNotRetriedStreamsToTheCallerWholeAfterRetries() throws Exception {
    String body = "0123456789".repeat(10);
    server(
        "{\"routes\":[{\"path\":\"/big\",\"steps\":[{\"status\":503,\"body\":\"x\"},"
            + "{\"status\":200,\"body\":\""
            + body
            + "\"}]}]}");
    CloseableHttpAsyncClient http =
        start(relent().withMaxBufferedBody(10).build().install(HttpAsyncClients.custom()).build());
    HttpClientContext context = HttpClientContext.create();
    SimpleHttpResponse response = get(http, server.uri("/big").toString(), context);
    assertThat(response.getCode()).isEqualTo(200);
    assertThat(response.getBodyText()).isEqualTo(body);
    CallResult result = RelentExecChainHandler.callResult(context).orElseThrow();
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(result.attemptRecords()).hasSize(2);
    assertThat(server.journal()).onPath("/big").hasAttempts(2);
  }

  @Test
  void retriesEndWithTheExecutorsExceptionOnTheCallback() {
    server("{\"routes\":[{\"path\":\"/down\",\"steps\":[{\"status\":503}]}]}");
    CloseableHttpAsyncClient http =
        start(relent().build().install(HttpAsyncClients.custom()).build());
    Throwable thrown =
        catchThrowable(() -> get(http, server.uri("/down").toString(), HttpClientContext.create()));
    assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
    assertThat(thrown.getMessage()).contains("last: HTTP 503 from GET " + server.uri("/down"));
    assertThat(server.journal()).onPath("/down").hasAttempts(3);
  }

  @Test
  void aFailureThatIsNoNetworkFaultPassesThroughUnchangedAndIsNotRetried() {
    server("{\"routes\":[{\"path\":\"/x\",\"steps\":[{\"status\":200}]}]}");
    IllegalStateException bug = new IllegalStateException("a bug further down the chain");
    RelentAsyncExecChainHandler relent = relent().build();
    CloseableHttpAsyncClient http =
        start(
            relent
                .install(HttpAsyncClients.custom())
                .addExecInterceptorBefore(
                    ChainElement.PROTOCOL.name(),
                    "bug",
                    (request, producer, scope, chain, callback) -> {
                      throw bug;
                    })
                .build());
    Throwable thrown =
        catchThrowable(() -> get(http, server.uri("/x").toString(), HttpClientContext.create()));
    assertThat(thrown).isSameAs(bug);
    assertThat(relent.counters().retries()).isZero();
  }

  @Test
  void settingsAreValidated() {
    assertThatThrownBy(() -> RelentAsyncExecChainHandler.builder().withMaxBufferedBody(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBufferedBody must be >= 0: -1 bytes");
    assertThatThrownBy(() -> RelentAsyncExecChainHandler.builder().withExecutor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("configurer cannot be null");
    assertThatThrownBy(() -> RelentAsyncExecChainHandler.ofDefaults().install(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("builder cannot be null");
  }
}
