package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.RetryBudgetState;
import dev.relent.spi.RetryBudgetState.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RedisRetryBudgetState against the real Redis. The script's arithmetic is compared with the
 * in-memory reference on virtual time (the script also takes a caller's reading, for this test
 * only); on Redis's clock, windows of hours make the results independent of timing.
 */
class RedisRetryBudgetStateTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long HOUR = 3_600 * SECOND;

  private RelentRedis redis;
  private final List<String> names = new ArrayList<>();

  @BeforeEach
  void connect() {
    redis = LocalRedis.connect();
  }

  @AfterEach
  void deleteTheKeys() {
    for (String name : names) {
      redis.commands().del(LocalRedis.bytes(RedisRetryBudgetState.keyOf(name)));
    }
    redis.close();
  }

  private String newName() {
    String name = LocalRedis.uniqueName("budget");
    names.add(name);
    return name;
  }

  @Test
  void randomRunsOnVirtualTimeGiveTheInMemoryStatesAnswers() {
    SplittableRandom random = new SplittableRandom(12);
    for (int run = 0; run < 6; run++) {
      Config config =
          new Config(
              1 + random.nextInt(5) * 1_000L,
              1 + random.nextInt(4),
              random.nextInt(3) * 250_000L,
              random.nextInt(3));
      RetryBudgetState memory = RetryBudgetState.inMemory();
      RetryBudgetState shared = new RedisRetryBudgetState(redis, newName(), true);
      long now = -10_000 + random.nextLong(20_000);
      for (int step = 0; step < 120; step++) {
        // Mostly forward, sometimes far, sometimes a reading older than the newest one.
        int move = random.nextInt(10);
        long reading =
            move < 6
                ? now + random.nextLong(config.bucketNanos())
                : move < 9
                    ? now + random.nextLong(3 * config.bucketNanos() * config.buckets())
                    : now - random.nextLong(2 * config.bucketNanos());
        now = Math.max(now, reading);
        String what = "run " + run + " step " + step + " at " + reading + " " + config;
        switch (random.nextInt(4)) {
          case 0, 1 -> {
            memory.recordFirstAttempt(reading, config);
            shared.recordFirstAttempt(reading, config);
          }
          case 2 ->
              assertThat(shared.tryAcquireRetry(reading, config))
                  .as(what)
                  .isEqualTo(memory.tryAcquireRetry(reading, config));
          default -> {
            assertThat(shared.firstAttempts(reading, config))
                .as(what)
                .isEqualTo(memory.firstAttempts(reading, config));
            assertThat(shared.retries(reading, config))
                .as(what)
                .isEqualTo(memory.retries(reading, config));
          }
        }
      }
    }
  }

  @Test
  void onRedisClockTheBudgetAllowsTheFloorPlusTheRatio() {
    Config config = new Config(HOUR, 10, 100_000, 2); // 10 %, a floor of 2, over 10 hours
    RedisRetryBudgetState state = redis.retryBudgetState(newName());
    for (int i = 0; i < 10; i++) {
      state.recordFirstAttempt(0, config); // the caller's reading plays no part
    }
    assertThat(state.tryAcquireRetry(0, config)).isTrue();
    assertThat(state.tryAcquireRetry(0, config)).isTrue();
    assertThat(state.tryAcquireRetry(Long.MIN_VALUE, config)).isTrue();
    assertThat(state.tryAcquireRetry(Long.MAX_VALUE, config)).isFalse(); // 2 + 10 % of 10 = 3
    assertThat(state.firstAttempts(0, config)).isEqualTo(10);
    assertThat(state.retries(0, config)).isEqualTo(3);
    // A second instance, as another process would, sees the same budget.
    assertThat(redis.retryBudgetState(state.name()).retries(0, config)).isEqualTo(3);
    long ttl = redis.commands().pttl(LocalRedis.bytes(RedisRetryBudgetState.keyOf(state.name())));
    assertThat(ttl).isBetween(20 * 3_600_000L, 20 * 3_600_000L + 1_000);
  }

  @Test
  void eightThreadsNeverWithdrawMoreThanTheBudget() throws Exception {
    Config config = new Config(HOUR, 10, 0, 50); // exactly 50 retries
    String name = newName();
    int threads = 8;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> granted = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        RedisRetryBudgetState state = redis.retryBudgetState(name);
        granted.add(
            pool.submit(
                () -> {
                  start.await(10, TimeUnit.SECONDS);
                  int got = 0;
                  for (int k = 0; k < 20; k++) {
                    got += state.tryAcquireRetry(0, config) ? 1 : 0;
                  }
                  return got;
                }));
      }
      int total = 0;
      for (Future<Integer> f : granted) {
        total += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(50);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anotherWindowOnTheSameKeyIsRefused() {
    RedisRetryBudgetState state = redis.retryBudgetState(newName());
    state.recordFirstAttempt(0, new Config(SECOND, 10, 100_000, 2));

    assertThatThrownBy(() -> state.tryAcquireRetry(0, new Config(SECOND, 5, 100_000, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(RedisRetryBudgetState.keyOf(state.name()));
    assertThat(RedisRetryBudgetState.keyOf("payments-api"))
        .isEqualTo("relent:{payments-api}:budget");
  }
}
