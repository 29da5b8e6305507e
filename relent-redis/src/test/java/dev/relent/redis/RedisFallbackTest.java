package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.spi.CircuitBreakerState;
import dev.relent.spi.RetryBudgetState;
import dev.relent.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * What the guards do when their Redis dies and comes back: each falls back to memory at a share of
 * its limit, never unlimited and never hanging, says so once, and returns to Redis when it answers
 * again; a schedule lost in the restart grants no second burst.
 */
class RedisFallbackTest {
  private static final long MS = 1_000_000L;
  private static final CircuitBreakerState.Config BREAKER =
      new CircuitBreakerState.Config(10, 0, 0, 5, 50.0, Duration.ofSeconds(30).toNanos(), 1);
  private static final RetryBudgetState.Config BUDGET =
      new RetryBudgetState.Config(Duration.ofSeconds(1).toNanos(), 10, 100_000, 3);

  private final List<RedisFallback.Event> events = new CopyOnWriteArrayList<>();

  private RelentRedis connect(OwnRedis own, int expectedInstances) {
    return RelentRedis.builder(own.uri())
        .withCommandTimeout(Duration.ofMillis(500))
        .withFallback(
            RedisFallback.localShare(expectedInstances)
                .withRetryInterval(Duration.ofMillis(20))
                .withListener(events::add))
        .build();
  }

  @Test
  void aKilledRedisSendsEveryGuardToMemoryAndARestartedOneTakesThemBack() throws Exception {
    try (OwnRedis own = new OwnRedis();
        RelentRedis redis = connect(own, 4)) {
      String name = LocalRedis.uniqueName("fallback");
      RedisPacerState pacer = redis.pacerState(name, Ticker.system());
      RedisConcurrencyLimitState slots = redis.concurrencyLimitState(name);
      RedisRetryBudgetState budget = redis.retryBudgetState(name);
      RedisCircuitBreakerState breaker = redis.circuitBreakerState(name);
      RedisIdempotencyStore store = redis.idempotencyStore(name);

      assertThat(pacer.reserve(0, 10 * MS, 0, Long.MAX_VALUE)).isZero();
      assertThat(slots.tryAcquire(8)).isTrue();
      assertThat(redis.isInFallback()).isFalse();

      own.kill();

      // The pacer: in memory at a quarter of the rate, one start at once and then every 40 ms.
      assertThat(pacer.reserve(0, 10 * MS, 0, Long.MAX_VALUE)).isZero();
      assertThat(pacer.reserve(0, 10 * MS, 0, Long.MAX_VALUE)).isEqualTo(40 * MS);
      assertThat(redis.isInFallback()).isTrue();
      // The concurrency limit: 8 / 4 = 2 slots for this process, the one held before included.
      assertThat(slots.tryAcquire(8)).isTrue();
      assertThat(slots.tryAcquire(8)).isFalse();
      assertThat(slots.inUse()).isEqualTo(2);
      // The budget and the breaker: this process's own counts.
      budget.recordFirstAttempt(0, BUDGET);
      assertThat(budget.tryAcquireRetry(0, BUDGET)).isTrue();
      assertThat(breaker.tryAcquirePermission(0, BREAKER)).isZero();
      // The idempotency store has no fallback: one process's memory cannot stop a duplicate.
      assertThatThrownBy(
              () -> store.begin(IdempotencyRecord.inFlight("s", "k", "fp", "t", 1, 2), 1))
          .isInstanceOf(RedisStoreException.class)
          .matches(e -> ((RedisStoreException) e).isUnavailable());

      assertThat(events).hasSize(1);
      assertThat(events.get(0).mode()).isEqualTo(RedisFallback.Mode.LOCAL);
      assertThat(events.get(0).uri()).isEqualTo(own.uri());

      own.start();
      waitUntil(
          () -> {
            pacer.pausedUntil();
            return !redis.isInFallback();
          });

      assertThat(events)
          .extracting(RedisFallback.Event::mode)
          .containsExactly(RedisFallback.Mode.LOCAL, RedisFallback.Mode.SHARED);
      // Back on Redis: the two slots held are written back, so the fleet's count is right.
      slots.release();
      assertThat(slots.inUse()).isEqualTo(1);
      assertThat(redis.commands().hgetall(LocalRedis.bytes(RedisConcurrencyLimitState.keyOf(name))))
          .hasSize(1);
      slots.release();
      assertThat(slots.inUse()).isZero();
    }
  }

  @Test
  void aScheduleLostInARestartGrantsNoSecondBurst() throws Exception {
    try (OwnRedis own = new OwnRedis();
        RelentRedis redis = connect(own, 1)) {
      String name = LocalRedis.uniqueName("lost");
      RedisPacerState pacer = redis.pacerState(name, Ticker.system());
      long interval = 1_000 * MS;
      long burst = 4 * interval; // five starts at once
      int atOnce = 0;
      while (pacer.reserve(0, interval, burst, 0) >= 0) {
        atOnce++;
      }
      assertThat(atOnce).isEqualTo(5);

      own.kill();
      own.start(); // empty: the schedule is gone
      waitUntil(
          () -> {
            pacer.pausedUntil();
            return !redis.isInFallback();
          });

      // One start at once, then the interval: the burst spent before the restart is not granted
      // again, whether the state saw the fallback or only found its schedule missing.
      assertThat(pacer.reserve(0, interval, burst, 0)).isZero();
      assertThat(pacer.reserve(0, interval, burst, 0)).isNegative();
    }
  }

  @Test
  void aFreshScheduleStillHasItsBurst() {
    try (RelentRedis redis = LocalRedis.connect()) {
      RedisPacerState pacer = redis.pacerState(LocalRedis.uniqueName("fresh"));
      long interval = 1_000 * MS;
      int atOnce = 0;
      while (pacer.reserve(0, interval, 4 * interval, 0) >= 0) {
        atOnce++;
      }
      assertThat(atOnce).isEqualTo(5);
      assertThat(pacer.processesSeen()).isEqualTo(1);
    }
  }

  @Test
  void theShareFollowsTheProcessesSeenWhenMoreThanDeclared() throws Exception {
    try (OwnRedis own = new OwnRedis();
        RelentRedis first = connect(own, 1);
        RelentRedis second = connect(own, 1);
        RelentRedis third = connect(own, 1)) {
      String name = LocalRedis.uniqueName("fleet");
      RedisPacerState pacer = first.pacerState(name);
      second.pacerState(name).reserve(0, MS, 0, Long.MAX_VALUE);
      third.pacerState(name).reserve(0, MS, 0, Long.MAX_VALUE);
      pacer.reserve(0, MS, 0, Long.MAX_VALUE);
      assertThat(pacer.processesSeen()).isEqualTo(3);

      own.kill();

      assertThat(pacer.reserve(0, 10 * MS, 0, Long.MAX_VALUE)).isZero();
      assertThat(pacer.reserve(0, 10 * MS, 0, Long.MAX_VALUE)).isEqualTo(30 * MS);
    }
  }

  @Test
  void withoutAFallbackEveryGuardThrows() throws Exception {
    try (OwnRedis own = new OwnRedis();
        RelentRedis redis =
            RelentRedis.builder(own.uri())
                .withCommandTimeout(Duration.ofMillis(200))
                .withFallback(RedisFallback.none())
                .build()) {
      String name = LocalRedis.uniqueName("none");
      RedisPacerState pacer = redis.pacerState(name);
      RedisConcurrencyLimitState slots = redis.concurrencyLimitState(name);
      own.kill();

      assertThatThrownBy(() -> pacer.reserve(0, MS, 0, 0))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining(own.uri())
          .hasMessageContaining("relent:{" + name + "}:pacer");
      assertThatThrownBy(() -> slots.tryAcquire(1)).isInstanceOf(RedisStoreException.class);
      assertThat(slots.held()).isZero();
      assertThat(redis.isInFallback()).isFalse();
    }
  }

  @Test
  void badPoliciesAreRefusedWithTheRule() {
    assertThatThrownBy(() -> RedisFallback.localShare(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedInstances must be >= 1");
    assertThatThrownBy(() -> RedisFallback.localShare(2).withRetryInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retryInterval must be > 0");
    assertThat(RedisFallback.none().fallsBack()).isFalse();
    assertThat(RedisFallback.localShare(3))
        .hasToString("RedisFallback[localShare(3), retry every PT1S]");
  }

  /**
   * Polls, for up to 15 s of real time: a restarted Redis and a reconnection take what they take.
   */
  private static void waitUntil(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Redis did not take the guards back within 15 s");
      }
      Thread.sleep(20);
    }
  }
}
