package dev.relent.redis;

import dev.relent.spi.ConcurrencyLimitState;
import dev.relent.spi.ConcurrencyLimitStateContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract every concurrency limit state keeps, against a real Redis. */
class RedisConcurrencyLimitStateContractTest extends ConcurrencyLimitStateContract {
  private static RelentRedis redis;

  @BeforeAll
  static void connect() {
    redis = LocalRedis.connect();
  }

  @AfterAll
  static void close() {
    redis.close();
  }

  @Override
  protected ConcurrencyLimitState newState() {
    return redis.concurrencyLimitState(LocalRedis.uniqueName("slots"));
  }

  /** Two round trips a round: 2 000 rounds of 4 threads still race thousands of times. */
  @Override
  protected int racingRounds() {
    return 2_000;
  }
}
