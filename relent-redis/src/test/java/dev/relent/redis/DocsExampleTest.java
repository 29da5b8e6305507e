package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.idempotency.IdempotencyHandler;
import dev.relent.testing.docs.DocSnippets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Compiles and runs the example of {@code docs/redis.md}; keep the two identical. */
class DocsExampleTest {

  @Test
  void example() {
    try {
      // --- begin example (docs/redis.md) ---
      // One per process. While Redis is away, every guard goes on in memory at 1/n of
      // its limit, n at least 4 here (or the processes seen sharing it, if more).
      RelentRedis redis =
          RelentRedis.builder("redis://127.0.0.1:6379")
              .withFallback(RedisFallback.localShare(4))
              .build();
      // 120 starts a minute for the whole fleet: every process pacing "payments-api" on
      // this Redis shares one schedule.
      Pacer pacer =
          Pacer.builder()
              .withRate(120, Duration.ofMinutes(1))
              .withState(redis.pacerState("payments-api"))
              .build();
      // At most 16 calls in flight across the fleet; a process that dies holding slots
      // gives them back when its lease (10 s) ends.
      ConcurrencyLimit inFlight =
          ConcurrencyLimit.builder()
              .withMaxConcurrent(16)
              .withState(redis.concurrencyLimitState("payments-api"))
              .build();
      // Retries stay within 10 % of the fleet's first attempts, not each process's.
      RetryBudget budget =
          RetryBudget.builder().withState(redis.retryBudgetState("payments-api")).build();
      // Every instance of the service sees the same idempotency records.
      IdempotencyHandler idempotency =
          IdempotencyHandler.builder().withStore(redis.idempotencyStore("payments")).build();
      // Give the guards to an executor (withPacer, withConcurrencyLimit, withRetryBudget),
      // the handler to the endpoint; redis.close() when the application stops.
      // --- end example ---
      try {
        // Another build may pace "payments-api" at the same moment: only the sign is certain.
        assertThat(pacer.tryAcquire(System.nanoTime(), Long.MAX_VALUE)).isNotNegative();
        assertThat(idempotency.config().store()).isInstanceOf(RedisIdempotencyStore.class);
        assertThat(budget.limit()).isPositive();
        assertThat(inFlight.tryAcquire()).hasValueSatisfying(ConcurrencyLimit.Permit::release);
      } finally {
        redis
            .commands()
            .del(
                LocalRedis.bytes(RedisPacerState.keyOf("payments-api")),
                LocalRedis.bytes(RedisRetryBudgetState.keyOf("payments-api")),
                LocalRedis.bytes(RedisConcurrencyLimitState.keyOf("payments-api")));
        redis.close();
      }
    } catch (RedisStoreException e) {
      throw new AssertionError("no Redis on 127.0.0.1:6379: run scripts/services.sh", e);
    }
  }

  @Test
  void theDocsShowExactlyTheCodeCompiledHere() {
    DocSnippets.assertPageShowsSnippetsOf("../docs/redis.md", DocsExampleTest.class);
  }
}
