package dev.relent.spi;

import dev.relent.time.Ticker;

/**
 * Where a {@link dev.relent.guard.RetryBudget} keeps its counts: in memory by default, or in a
 * store such as Redis so that many processes share one budget. Implementations must make each
 * method one atomic operation (in Redis: one Lua script, one round trip) and must be thread-safe.
 *
 * <p>The state is two counters, first attempts and retries, over a sliding window of {@link
 * Config#buckets()} buckets of {@link Config#bucketNanos()} each: bucket {@code i} holds the events
 * with {@code floorDiv(now, bucketNanos) == i}, and the window at {@code now} is that bucket and
 * the {@code buckets - 1} before it. Every store implements the same rules:
 *
 * <pre>
 * recordFirstAttempt(now):  firsts[bucket(now)] += 1     // dropped if bucket(now) already left the window
 * tryAcquireRetry(now):
 *   if retries(window) &lt; limit(firsts(window)): retries[newest bucket] += 1; return true
 *   return false                                      // nothing changes
 * </pre>
 *
 * <p>with {@link #limit(long, Config)} as the limit. All times are readings of the caller's {@link
 * Ticker}; a store shared between processes needs readings comparable between them.
 */
public interface RetryBudgetState {

  /**
   * Records one first attempt.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the window and limits
   */
  void recordFirstAttempt(long nowNanos, Config config);

  /**
   * Atomically records one retry if the budget allows it; otherwise changes nothing.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the window and limits
   * @return whether the retry may go
   */
  boolean tryAcquireRetry(long nowNanos, Config config);

  /**
   * Returns the first attempts in the window.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the window and limits
   * @return a count, &ge; 0
   */
  long firstAttempts(long nowNanos, Config config);

  /**
   * Returns the retries in the window.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the window and limits
   * @return a count, &ge; 0
   */
  long retries(long nowNanos, Config config);

  /**
   * Returns a new in-memory state: a ring of buckets behind a tiny lock, no allocation per call
   * after the first. It takes its window from the first call and then refuses another.
   *
   * @return a new, empty state
   */
  static RetryBudgetState inMemory() {
    return new InMemoryRetryBudgetState();
  }

  /**
   * The reference function: how many retries the window allows.
   *
   * @param firstAttempts the first attempts in the window, &ge; 0
   * @param config the limits
   * @return {@code minRetries + floor(firstAttempts * ratioMillionths / 1_000_000)}, saturating at
   *     {@link Long#MAX_VALUE}
   */
  static long limit(long firstAttempts, Config config) {
    long ratio = config.ratioMillionths();
    // Split the product so that it stays exact for any realistic count without BigInteger.
    long whole = firstAttempts / 1_000_000L;
    long rest = firstAttempts % 1_000_000L;
    long earned;
    try {
      earned = Math.addExact(Math.multiplyExact(whole, ratio), rest * ratio / 1_000_000L);
      return Math.addExact(earned, config.minRetries());
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * The window and limits of one budget, passed with every call so that a store needs no
   * configuration of its own.
   *
   * @param bucketNanos the width of one bucket, &gt; 0
   * @param buckets the number of buckets in the window, &gt; 0
   * @param ratioMillionths retries earned per first attempt, in millionths (100 000 = 10 %), &ge; 0
   * @param minRetries the floor: retries allowed over the window even with no first attempts, &ge;
   *     0
   */
  record Config(long bucketNanos, int buckets, long ratioMillionths, long minRetries) {
    /**
     * Validates the values.
     *
     * @throws IllegalArgumentException if a value is out of range
     */
    public Config {
      if (bucketNanos <= 0) {
        throw new IllegalArgumentException("bucketNanos must be > 0: " + bucketNanos + " ns");
      }
      if (buckets <= 0) {
        throw new IllegalArgumentException("buckets must be > 0: " + buckets);
      }
      if (ratioMillionths < 0) {
        throw new IllegalArgumentException("ratioMillionths must be >= 0: " + ratioMillionths);
      }
      if (minRetries < 0) {
        throw new IllegalArgumentException("minRetries must be >= 0: " + minRetries);
      }
    }
  }
}
