package dev.relent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.ServerWaitTooLongException;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.http.HeaderLookup;
import dev.relent.http.HttpScopes;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The meters of the scopes a registry holds: each scope's guards and pause, with its kind and name
 * (a route template, never the URL) as tags; the meters follow the registry as it makes and evicts
 * scopes, within their own bound.
 */
class ScopeMetersTest {
  private final FakeTime time = new FakeTime();
  private final MockClock clock = new MockClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/items/7")
                  .steps(Step.status(429).withHeader("Retry-After", "2"), Step.status(200))
                  .route("/items/8")
                  .steps(Step.status(429).withHeader("Retry-After", "60"))
                  .build())
          .withClock(time);

  @Test
  void eachScopeHasItsGuardsAndPauseTaggedByKindAndName(MockServer server) throws Exception {
    GuardRegistry scopes =
        GuardRegistry.builder()
            .withPacer(
                Scope.Kind.ENDPOINT,
                s -> Pacer.builder().withRate(5, Duration.ofSeconds(1)).withTime(time).build())
            .withCircuitBreaker(
                Scope.Kind.ACCOUNT, s -> CircuitBreaker.builder().withTime(time).build())
            .withRetryBudget(Scope.Kind.ACCOUNT, s -> RetryBudget.builder().withTime(time).build())
            .withConcurrencyLimit(Scope.Kind.ACCOUNT, s -> ConcurrencyLimit.of(8))
            .withTime(time)
            .build();
    HttpScopes routes = HttpScopes.builder().withRoutes("/items/{id}").build();
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient())
            .withPolicy(
                RetryPolicy.builder()
                    .withMaxRetries(2)
                    .withBackoff(
                        Backoff.builder()
                            .withBase(Duration.ofMillis(200))
                            .withCap(Duration.ofMillis(200))
                            .withJitter(Jitter.NONE)
                            .build())
                    .withMaxServerWait(Duration.ofSeconds(5))
                    .withServerWaitSpread(0)
                    .build())
            .withExecutor(x -> x.onEvent(metrics.listener()))
            .withScopes(routes, scopes)
            .withTime(time)
            .withoutLogging()
            .build();
    metrics.withGuardsOf(http.executor()).bindTo(registry);

    // t = 0: 429 with Retry-After: 2 pauses the endpoint 2 s; the retry at 2 s gets a 200.
    assertThat(get(http, server, "/items/7")).isEqualTo(200);
    // t = 2 s: the endpoint's pacer holds the start 200 ms; a 429 asking for 60 s pauses the
    // endpoint for the 5 s allowed and fails at once.
    assertThat(catchThrowable(() -> get(http, server, "/items/8")))
        .isInstanceOf(ServerWaitTooLongException.class);
    assertThat(time.elapsed()).isEqualTo(Duration.ofMillis(2200));

    List<Scope> of = routes.scopesOf("GET", server.uri("/items/8"), HeaderLookup.NONE);
    String account = of.get(0).name();
    String endpoint = of.get(1).name();
    assertThat(endpoint).endsWith("/items/{id}").doesNotContain("/items/8");
    String a = "{name=api,scope=" + account + ",scope.kind=account";
    String e = "{name=api,scope=" + endpoint + ",scope.kind=endpoint";
    assertThat(scopeLines())
        .containsExactlyInAnyOrder(
            // Two calls: a success after a 429, and a give-up on a 429: no failure among them.
            "relent.circuit.breaker.failure.rate" + a + "} 0",
            "relent.circuit.breaker.state" + a + ",state=closed} 1",
            "relent.circuit.breaker.state" + a + ",state=half-open} 0",
            "relent.circuit.breaker.state" + a + ",state=open} 0",
            "relent.concurrency.in.use" + a + "} 0",
            "relent.concurrency.limit" + a + "} 8",
            "relent.concurrency.waiting" + a + "} 0",
            "relent.retry.budget.available" + a + "} 99",
            "relent.retry.budget.limit" + a + "} 100",
            "relent.scope.pause" + a + "} 0s",
            "relent.scope.pauses" + a + "} 0",
            "relent.pacer.interval" + e + "} 0.2s",
            "relent.pacer.pause" + e + "} 0s",
            "relent.pacer.rate" + e + "} 5",
            "relent.scope.pause" + e + "} 5s",
            "relent.scope.pauses" + e + "} 2",
            "relent.scopes{name=api} 2",
            "relent.scopes.paused{name=api} 1");
    // The pacer's wait is an event meter, without scope tags.
    assertThat(Meters.of(registry))
        .contains("relent.pacer.wait{name=api} count=1 total=200ms max=200ms");
  }

  @Test
  void aScopeTheRegistryEvictsLosesItsMetersAtTheNextRefresh() {
    GuardRegistry scopes = GuardRegistry.builder().withMaxScopes(2).withTime(time).build();
    RelentMetrics metrics =
        RelentMetrics.builder("core").withScopeRefresh(Duration.ofSeconds(10)).build();
    RelentExecutor<String> executor = executor(scopes, metrics);
    metrics.withGuardsOf(executor).bindTo(registry);

    call(executor, "a");
    time.advance(Duration.ofSeconds(1));
    call(executor, "b");
    assertThat(meteredScopes()).containsExactly("custom a", "custom b");

    // c evicts a, the least recently used; the registry holds two scopes as before, so the meters
    // wait for the refresh interval on the meter registry's clock.
    time.advance(Duration.ofSeconds(1));
    call(executor, "c");
    assertThat(scopes.find(Scope.custom("a"))).isEmpty();
    assertThat(meteredScopes()).containsExactly("custom a", "custom b");
    clock.add(Duration.ofSeconds(10));
    call(executor, "c");
    assertThat(meteredScopes()).containsExactly("custom b", "custom c");
    assertThat(Meters.of(registry)).contains("relent.scopes{name=core} 2");
  }

  @Test
  void refreshScopesBringsTheMetersInLineAtOnce() {
    GuardRegistry scopes = GuardRegistry.builder().withMaxScopes(1).withTime(time).build();
    RelentMetrics metrics = RelentMetrics.of("core");
    RelentExecutor<String> executor = executor(scopes, metrics);
    metrics.withGuardsOf(executor).bindTo(registry);
    call(executor, "a");
    time.advance(Duration.ofSeconds(1));
    call(executor, "b"); // evicts a; the count stays 1
    assertThat(meteredScopes()).containsExactly("custom a");

    metrics.refreshScopes();

    assertThat(meteredScopes()).containsExactly("custom b");
  }

  @Test
  void atMostMaxScopesAreMeteredWhileTheCountCoversEveryOne() {
    GuardRegistry scopes = GuardRegistry.builder().withTime(time).build();
    RelentMetrics metrics = RelentMetrics.builder("core").withMaxScopes(1).build();
    RelentExecutor<String> executor = executor(scopes, metrics);
    metrics.withGuardsOf(executor).bindTo(registry);

    call(executor, "a");
    call(executor, "b");
    call(executor, "c");

    assertThat(meteredScopes()).containsExactly("custom a");
    assertThat(Meters.of(registry)).contains("relent.scopes{name=core} 3");
  }

  @Test
  void scopesMadeBeforeBindingAreMeteredWhenBound() {
    GuardRegistry scopes = GuardRegistry.builder().withTime(time).build();
    RelentMetrics metrics = RelentMetrics.of("core");
    RelentExecutor<String> executor = executor(scopes, metrics);
    call(executor, "a");
    metrics.bindTo(registry);
    assertThat(meteredScopes()).isEmpty(); // whose guards is not known yet

    metrics.withGuardsOf(executor);

    assertThat(meteredScopes()).containsExactly("custom a");
  }

  private RelentExecutor<String> executor(GuardRegistry scopes, RelentMetrics metrics) {
    return RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
        .withScopes(scopes)
        .withTime(time)
        .onEvent(metrics.listener())
        .build();
  }

  private static void call(RelentExecutor<String> executor, String scope) {
    assertThat(executor.get(List.of(Scope.custom(scope)), ctx -> "ok", null)).isEqualTo("ok");
  }

  /** The scopes that have meters, as "kind name", from the relent.scope.pause gauges. */
  private Set<String> meteredScopes() {
    return registry.find("relent.scope.pause").meters().stream()
        .map(m -> m.getId().getTag("scope.kind") + " " + m.getId().getTag("scope"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The lines of the meters that belong to scopes, and the registry's counts. */
  private List<String> scopeLines() {
    return Meters.of(registry).stream()
        .filter(l -> l.contains("scope=") || l.startsWith("relent.scopes"))
        .collect(Collectors.toList());
  }

  private static int get(RelentHttpClient http, MockServer server, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(server.uri(path)).build(), BodyHandlers.discarding())
        .statusCode();
  }
}
