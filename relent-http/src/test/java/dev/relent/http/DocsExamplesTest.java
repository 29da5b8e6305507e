package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.ServerHint;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.http.adapter.HttpOutcomes;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.time.FakeTime;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The examples of docs/http.md, verbatim, so that they compile and say what the page says. */
class DocsExamplesTest {

  @Test
  void tableOverride() {
    DecisionTable table =
        DecisionTable.ofDefaults()
            .with(503, DecisionTable.Rule.RETRY_ANY_METHOD) // this API never processes a 503
            .with(Fault.UNKNOWN_HOST, DecisionTable.Rule.RETRY_ANY_METHOD);
    Decision decision = table.decide("POST", false, 503, HeaderLookup.NONE);
    // decision.rule() is "http-503", decision.isRetry() is true
    assertThat(decision.rule()).isEqualTo("http-503");
    assertThat(decision.isRetry()).isTrue();
  }

  @Test
  void pureFunctions() {
    Map<String, List<String>> responseHeaders = Map.of("Retry-After", List.of("5"));
    HeaderLookup headers = HeaderLookup.of(responseHeaders);
    Decision onResponse = DecisionTable.ofDefaults().decide("GET", false, 503, headers);
    Decision onFailure =
        DecisionTable.ofDefaults().decide("POST", false, new java.net.ConnectException("refused"));
    ServerHint hint =
        ServerHints.ofDefaults().read(503, headers, Instant.parse("2026-01-01T00:00:00Z"));
    // onResponse: retry: http-503; onFailure: retry: io-connect-refused; hint: 5 s
    assertThat(onResponse.verdict()).hasToString("retry: http-503");
    assertThat(onFailure.verdict()).hasToString("retry: io-connect-refused");
    assertThat(hint.waitTime()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void rateLimitStatus() {
    Map<String, List<String>> rateHeaders =
        Map.of(
            "RateLimit-Policy", List.of("\"hour\";q=1000;w=3600, \"day\";q=5000;w=86400"),
            "RateLimit", List.of("\"day\";r=100;t=36000"));
    List<RateLimitStatus> limits =
        ServerHints.ofDefaults()
            .rateLimits(HeaderLookup.of(rateHeaders), Instant.parse("2026-01-01T00:00:00Z"));
    RateLimitStatus day = limits.get(0);
    // day.policy(): "day", limit(): 5000, remaining(): 100, reset(): 10 h, window(): 1 day
    assertThat(limits).hasSize(1);
    assertThat(day.policy()).contains("day");
    assertThat(day.limit()).hasValue(5000);
    assertThat(day.remaining()).hasValue(100);
    assertThat(day.reset()).contains(Duration.ofHours(10));
    assertThat(day.window()).contains(Duration.ofDays(1));
  }

  @Test
  void redactor() {
    Redactor redactor =
        Redactor.builder()
            .redactHeaders("X-Tenant-Secret-Id")
            .redactParameters("email")
            .allowParameters("page_token")
            .build();
    String safe =
        redactor.uri(URI.create("https://api.example.com/v1/users?email=a@b.c&page_token=7"));
    // https://api.example.com/v1/users?email=REDACTED&page_token=7
    assertThat(safe).isEqualTo("https://api.example.com/v1/users?email=REDACTED&page_token=7");
  }

  @Test
  void jdkClientWrapper() {
    FakeTime time = new FakeTime(); // tests only; production uses the defaults
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient())
            .withPolicy(
                RetryPolicy.builder()
                    .withMaxRetries(4)
                    .withDeadline(Duration.ofSeconds(30))
                    .withAttemptTimeout(Duration.ofSeconds(10))
                    .build())
            .withExecutor(
                x ->
                    x.withPacer(Pacer.of(90, Duration.ofMinutes(1)))
                        .withRetryBudget(RetryBudget.ofDefaults())
                        .withCircuitBreaker(CircuitBreaker.ofDefaults()))
            .withTime(time)
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("https://api.example.com/v1/payments"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
            .build();
    CallOptions keyed = CallOptions.builder().withIdempotencyKey().build();
    // RelentHttpResponse<String> response = http.send(request, BodyHandlers.ofString(), keyed);
    // response.attempts(), response.idempotencyKey(), response.decision()
    assertThat(http.executor().policy().config().maxRetries()).isEqualTo(4);
    assertThat(request.method()).isEqualTo("POST");
    assertThat(keyed.toString()).isEqualTo("CallOptions[key=GENERATE]");
  }

  @Test
  void otherClients() {
    HttpOutcomes<HttpResponse<?>> outcomes =
        HttpOutcomes.builder(RelentHttpClient.responseAccess())
            .withDecisionTable(DecisionTable.ofDefaults().with(500, DecisionTable.Rule.NEVER))
            .build();
    RetryPolicy policy = RetryPolicy.builder().withMaxRetries(3).build();
    RelentExecutor<HttpResponse<?>> executor =
        outcomes
            .applyTo(RelentExecutor.<HttpResponse<?>>builder(policy))
            .onEvent(outcomes.logger())
            .build();
    assertThat(executor.policy().config().maxRetries()).isEqualTo(3);
    assertThat(outcomes.table().rule(500)).isEqualTo(DecisionTable.Rule.NEVER);
  }

  @Test
  void scopes() {
    GuardRegistry registry = GuardRegistry.ofDefaults();
    HttpScopes scopes =
        HttpScopes.builder()
            .withRoutes("/v1/payments/{id}", "/v1/customers/{customer}/cards")
            .withKeyHeader("X-Api-Key") // one scope per key, named by a short hash of it
            .withAccountWideWhen(h -> "global".equals(h.first("X-RateLimit-Scope")))
            .build();
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient()).withScopes(scopes, registry).build();
    // GET https://api.example.com/v1/payments/pay_8f3k29?expand=all with X-Api-Key: sk_live_1
    // belongs to: account api.example.com, key X-Api-Key#992621cb,
    // endpoint GET api.example.com/v1/payments/{id}
    List<Scope> of =
        scopes.scopesOf(
            "GET",
            URI.create("https://api.example.com/v1/payments/pay_8f3k29?expand=all"),
            HeaderLookup.of(Map.of("X-Api-Key", List.of("sk_live_1"))));
    assertThat(of).hasSize(3);
    assertThat(of.get(0)).hasToString("account api.example.com");
    assertThat(of.get(1)).hasToString("key X-Api-Key#992621cb");
    assertThat(of.get(2)).hasToString("endpoint GET api.example.com/v1/payments/{id}");
    assertThat(http.executor().registry()).contains(registry);
  }

  /** A place to keep writes to send again later, as the page's example names it. */
  interface RetryQueue {
    void add(HttpRequest request, String idempotencyKey);
  }

  /**
   * The unresolved-write example of docs/http.md, verbatim between the markers: compiled, not run
   * (what it relies on is checked by the unresolved-write cases of {@code HttpClientContract}).
   */
  static void unresolvedWrite(
      RelentHttpClient client,
      HttpRequest request,
      RetryQueue retryQueue,
      java.util.function.Consumer<Exception> failed)
      throws java.io.IOException, InterruptedException {
    // --- docs/http.md
    try {
      client.send(
          request,
          HttpResponse.BodyHandlers.ofString(),
          CallOptions.builder().withIdempotencyKey().build());
    } catch (UnresolvedWriteException e) {
      retryQueue.add(request, e.idempotencyKey()); // later: the same request with the same key
    } catch (dev.relent.RelentException e) {
      failed.accept(e); // nothing of it can have taken effect, or it was a read
    }
    // ---
  }
}
