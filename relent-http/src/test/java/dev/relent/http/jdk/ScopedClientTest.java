package dev.relent.http.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.DeadlineExceededException;
import dev.relent.QuotaExhaustedException;
import dev.relent.RelentException;
import dev.relent.RetryPolicy;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import dev.relent.http.HttpScopes;
import dev.relent.time.FakeTime;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A 429 pauses the scope it belongs to: the endpoint's by default, the account's when the server
 * says so. Against a real local server; waits on fake time.
 */
class ScopedClientTest {
  private static final HttpClient JDK =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private final FakeTime time = new FakeTime();
  private final CapturingLogger log = new CapturingLogger();
  private final GuardRegistry registry = GuardRegistry.builder().withTime(time).build();
  private ScriptedServer server;

  @AfterEach
  void close() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  private RelentHttpClient client(HttpScopes scopes) {
    return RelentHttpClient.builder(JDK)
        .withPolicy(RetryPolicy.builder().withMaxRetries(2).build())
        .withTime(time)
        .withLogger(log)
        .withExecutor(x -> x.withPacer(Pacer.of(100, Duration.ofSeconds(1))))
        .withScopes(scopes, registry)
        .build();
  }

  private static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).GET().build();
  }

  @Test
  void oneDayLongRetryAfterOnOneEndpointLeavesTheOthersAloneAndTheRefusalNamesIt()
      throws Exception {
    server = new ScriptedServer().respond(429, "Retry-After: 86400").respond(200, "body:users");
    RelentHttpClient http = client(HttpScopes.ofDefaults());
    String host = "127.0.0.1:" + server.port();
    Scope items = Scope.endpoint("GET " + host + "/v1/items/{id}");

    Throwable first =
        catchThrowable(() -> http.send(get(server.uri("/v1/items/7")), BodyHandlers.ofString()));
    assertThat(first)
        .isInstanceOf(QuotaExhaustedException.class)
        .hasMessageContaining("paused endpoint GET " + host + "/v1/items/{id} for 86400 s");

    // A healthy endpoint waits for the executor's pacer (100/s) alone, not for the pause.
    assertThat(http.send(get(server.uri("/v1/users/1")), BodyHandlers.ofString()).body())
        .isEqualTo("users");
    assertThat(time.sleeper().waits()).containsExactly(Duration.ofMillis(10));

    // The paused endpoint: refused at once, saying which scope, which request, which answer, when.
    Throwable refused =
        catchThrowable(() -> http.send(get(server.uri("/v1/items/8")), BodyHandlers.ofString()));
    assertThat(refused).isInstanceOf(DeadlineExceededException.class);
    assertThat(((RelentException) refused).reason())
        .isEqualTo(RelentException.Reason.RATE_LIMIT_WAIT);
    assertThat(refused.getMessage())
        .isEqualTo(
            "gave up before any attempt, 0 s in (endpoint GET "
                + host
                + "/v1/items/{id} is paused for 86399.99 s more (until 2026-01-02T00:00:00Z), past"
                + " the deadline (30 s left), by HTTP 429 from GET "
                + server.uri("/v1/items/7")
                + " (Retry-After: 86400); GuardRegistry.resume(scope) ends it; retry at"
                + " 2026-01-02T00:00:00Z)");
    assertThat(server.journal()).hasSize(2);

    ScopeGuards paused = registry.find(items).orElseThrow();
    assertThat(paused.pausedUntil()).contains(Instant.parse("2026-01-02T00:00:00Z"));
    assertThat(registry.find(Scope.account(host)).orElseThrow().isPaused()).isFalse();
    assertThat(log.lines())
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("WARN")
                    .contains(
                        "paused=\"endpoint GET "
                            + host
                            + "/v1/items/{id} until 2026-01-02T00:00:00Z by HTTP 429 from GET "));
  }

  @Test
  void aPartitionedPolicyPausesTheWholeAccount() throws Exception {
    server =
        new ScriptedServer()
            .respond(429, "Retry-After: 2", "RateLimit-Policy: \"user\";q=10;w=1;pk=:YWJj:")
            .respond(200, "body:users");
    RelentHttpClient http =
        RelentHttpClient.builder(JDK)
            .withPolicy(RetryPolicy.builder().withMaxRetries(0).build())
            .withTime(time)
            .withoutLogging()
            .withScopes(HttpScopes.ofDefaults(), registry)
            .build();
    String host = "127.0.0.1:" + server.port();

    catchThrowable(() -> http.send(get(server.uri("/v1/items/7")), BodyHandlers.ofString()));
    assertThat(registry.find(Scope.account(host)).orElseThrow().pauseRemaining())
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(http.send(get(server.uri("/v1/users/1")), BodyHandlers.ofString()).body())
        .isEqualTo("users");

    assertThat(time.sleeper().waits()).containsExactly(Duration.ofSeconds(2));
  }
}
