package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Scopes across processes: two registries (two processes) whose endpoint pacers keep their schedule
 * on Redis under the scope's name share the pause a 429 puts on the endpoint, and only that
 * endpoint's.
 */
class RedisScopesTest {
  private static final long SECOND = 1_000_000_000L;

  private static GuardRegistry registry(RelentRedis redis, String prefix) {
    Function<Scope, Pacer> pacers =
        scope ->
            Pacer.builder()
                .withRate(100, Duration.ofSeconds(1))
                .withState(redis.pacerState(prefix + RedisPacerState.nameOf(scope)))
                .build();
    return GuardRegistry.builder().withPacer(Scope.Kind.ENDPOINT, pacers).build();
  }

  @Test
  void aPauseOneProcessPutsOnAnEndpointHoldsTheOthersAtThatEndpointOnly() {
    try (RelentRedis a = LocalRedis.connect();
        RelentRedis b = LocalRedis.connect()) {
      String prefix = LocalRedis.uniqueName("scopes") + ":";
      GuardRegistry mine = registry(a, prefix);
      GuardRegistry theirs = registry(b, prefix);
      Scope items = Scope.endpoint("GET /v1/items/{id}");
      Scope users = Scope.endpoint("GET /v1/users/{id}");

      // A 429 with Retry-After: 30 pauses the endpoint in this process...
      long now = System.nanoTime();
      mine.pause(List.of(items), items, now + 30 * SECOND, 30 * SECOND, "HTTP 429", now);

      // ...and the other process's pacer for that endpoint waits for it, though its own
      // registry knows nothing of the pause.
      ScopeGuards their = theirs.guards(items);
      assertThat(their.pausedUntilNanos()).isEqualTo(Long.MIN_VALUE);
      long wait = their.pacer().orElseThrow().tryAcquire(System.nanoTime(), Long.MAX_VALUE);
      assertThat(wait).isBetween(29 * SECOND, 30 * SECOND);
      // Another endpoint is not held.
      assertThat(theirs.guards(users).pacer().orElseThrow().tryAcquire(System.nanoTime(), 0))
          .isZero();
    }
  }

  @Test
  void aScopesNameIsAValidRedisNameAndNamesNoOtherScope() {
    assertThat(RedisPacerState.nameOf(Scope.endpoint("GET /v1/items/{id}")))
        .isEqualTo("endpoint:GET%20/v1/items/%7Bid%7D");
    assertThat(RedisPacerState.nameOf(Scope.endpoint("GET /a%20b")))
        .isEqualTo("endpoint:GET%20/a%2520b"); // % itself encoded: never the same as "GET /a b"
    assertThat(RedisPacerState.nameOf(Scope.account("Zürich"))).isEqualTo("account:Z%C3%BCrich");
    // 150 braces: 450 characters once encoded, so the name is the hash.
    String longName = RedisPacerState.nameOf(Scope.custom("{".repeat(150)));
    assertThat(longName).startsWith("custom:sha256:").hasSize("custom:sha256:".length() + 64);
    // Every one of them makes a valid key.
    RedisPacerState.keyOf(RedisPacerState.nameOf(Scope.endpoint("GET /v1/items/{id}")));
    RedisPacerState.keyOf(longName);
  }
}
