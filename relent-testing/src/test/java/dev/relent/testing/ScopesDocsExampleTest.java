package dev.relent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.ServerHint;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import dev.relent.testing.CoreDocsExampleTest.Response;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scopes examples of docs/core.md, compiled and run (the page check is CoreDocsExampleTest).
 */
class ScopesDocsExampleTest {
  private final FakeTime time = new FakeTime();
  private int calls;

  private Response callTheService() {
    calls++;
    return calls == 1
        ? new Response(429, ServerHint.rateLimited(Duration.ofMinutes(10), "Retry-After: 600"))
        : new Response(200, null);
  }

  @Test
  void aScopedExecutorPausesTheEndpointAndTheRegistryShowsAndResumesIt() {
    // --- begin scopes
    GuardRegistry registry =
        GuardRegistry.builder()
            .withPacer(Scope.Kind.ACCOUNT, scope -> Pacer.of(120, Duration.ofMinutes(1)))
            .withTime(time) // test only
            .build();
    RelentExecutor<Response> executor =
        CoreDocsExampleTest.classified(RetryPolicy.ofDefaults())
            .withTime(time) // test only
            .withScopes(registry)
            .build();
    Scope items = Scope.endpoint("GET api.example.com/v1/items/{id}");
    List<Scope> scopes = List.of(Scope.account("api.example.com"), items);
    // --- end

    // The classifier of the example returns a 429 as it is; its hint still pauses the endpoint.
    assertThat(executor.get(scopes, ctx -> callTheService(), null).status()).isEqualTo(429);
    List<String> shown = new ArrayList<>();

    // --- begin inspect
    for (ScopeGuards paused : registry.paused()) {
      // endpoint GET api.example.com/v1/items/{id}: paused 30 s more by Response result
      // (Retry-After: 600); the server asked for 600 s, the pause is capped at the 30 s allowed
      shown.add(paused.toString());
    }
    registry.resume(items); // the operator knows better: go again now
    // --- end

    assertThat(shown)
        .containsExactly(
            "endpoint GET api.example.com/v1/items/{id}: paused 30 s more by Response result"
                + " (Retry-After: 600); the server asked for 600 s, the pause is capped at the 30 s"
                + " allowed");
    assertThat(executor.get(scopes, ctx -> callTheService(), null).status()).isEqualTo(200);
  }
}
