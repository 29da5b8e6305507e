package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.spi.RetryBudgetState;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.util.Objects;

/**
 * Keeps the extra load of retries bounded: over a sliding window, the retries made are at most
 * {@code floor(ratio * firstAttempts) + minRetriesPerSecond * window}, counting first attempts and
 * retries made in that window. Only retries draw from the budget; a retry refused by a spent budget
 * fails at once with the last outcome.
 *
 * <p>Defaults ({@link #ofDefaults()}): ratio <b>0.10</b> (retries add at most 10 % load), window
 * <b>10 s</b>, floor <b>10 retries per second</b> (100 per window) so that a quiet client can still
 * retry; the window and floor are Finagle's and Linkerd's defaults.
 *
 * <p>Granularity: the window is made of 10 buckets of a tenth of the window each (for 10 s: 1 s);
 * an event counts from the moment it happens until its bucket leaves the window, that is for
 * between 0.9 and 1.0 windows. The ratio is kept in millionths.
 *
 * <p>Thread-safe. The budget never waits. Its decision methods ({@link #recordFirstAttempt}, {@link
 * #tryAcquireRetry}) are the executor's API: they take {@code now}, a reading of the executor's
 * {@link dev.relent.time.Ticker} made once per attempt and handed to every guard, and read no time
 * themselves. The inspection methods without an argument read the budget's own {@linkplain
 * Builder#withTime time source}; give the budget and the executor the same one. The counts live in
 * a {@link RetryBudgetState}: in memory by default, or in a shared store.
 */
public interface RetryBudget {

  /**
   * Returns a new budget with the defaults: ratio 0.10 over a 10 s window, floor 10 retries per
   * second, in-memory state.
   *
   * @return a new budget with its own counts
   */
  static RetryBudget ofDefaults() {
    return builder().build();
  }

  /**
   * Returns a builder with the defaults.
   *
   * @return a new builder
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Records that a first attempt was made: it earns {@code ratio} of a retry for the window.
   *
   * @param nowNanos the executor's ticker reading
   */
  void recordFirstAttempt(long nowNanos);

  /**
   * Asks to make one retry: withdraws it from the budget if the budget allows it.
   *
   * @param nowNanos the executor's ticker reading
   * @return {@code true} if the retry may go (it is counted); {@code false} if the budget is spent,
   *     in which case nothing changes
   */
  boolean tryAcquireRetry(long nowNanos);

  /**
   * Returns how many retries the budget allows right now: {@code max(0, limit - retries)}.
   *
   * @param nowNanos the executor's ticker reading
   * @return a count, &ge; 0
   */
  long available(long nowNanos);

  /**
   * Returns the total retries allowed in the current window, {@code floor(ratio * firstAttempts) +
   * floor(minRetriesPerSecond * window)}, for messages such as "retry budget 0 of 10".
   *
   * @param nowNanos the executor's ticker reading
   * @return a count, &ge; 0
   */
  long limit(long nowNanos);

  /**
   * Returns how many retries the budget allows right now, read with the {@linkplain
   * Builder#withTime time source}.
   *
   * @return a count, &ge; 0
   */
  long available();

  /**
   * Returns the total retries allowed in the current window, read with the {@linkplain
   * Builder#withTime time source}.
   *
   * @return a count, &ge; 0
   */
  long limit();

  /**
   * Builds a {@link RetryBudget}. Mutable and not thread-safe; {@link #build()} may be called
   * repeatedly.
   */
  final class Builder {
    static final int BUCKETS = 10;

    private double ratio = 0.10;
    private long ratioMillionths = 100_000L;
    private long windowNanos = 10_000_000_000L;
    private int minRetriesPerSecond = 10;
    private RetryBudgetState state;
    private TimeSource time = TimeSource.system();

    Builder() {}

    /**
     * Sets the retries earned per first attempt in the window; default 0.10. With 0 only the floor
     * allows retries.
     *
     * @param ratio from 0 to 1000; a positive ratio must be at least 0.000001 (it is kept in
     *     millionths)
     * @return this builder
     * @throws IllegalArgumentException if {@code ratio} is not finite, negative, above 1000 or a
     *     positive value below 0.000001
     */
    public Builder withRatio(double ratio) {
      if (!(ratio >= 0 && ratio <= 1000)) {
        throw new IllegalArgumentException("ratio must be between 0 and 1000: " + ratio);
      }
      long millionths = Math.round(ratio * 1_000_000d);
      if (ratio > 0 && millionths == 0) {
        throw new IllegalArgumentException("ratio must be 0 or at least 0.000001: " + ratio);
      }
      this.ratio = ratio;
      this.ratioMillionths = millionths;
      return this;
    }

    /**
     * Sets the length of the sliding window; default 10 s. It is split into 10 buckets; a window
     * that is not a multiple of 10 ns is rounded down to one.
     *
     * @param window at least 1 ms
     * @return this builder
     * @throws NullPointerException if {@code window} is null
     * @throws IllegalArgumentException if {@code window} is shorter than 1 ms
     */
    public Builder withWindow(Duration window) {
      long nanos = Nanos.positiveNanos("window", window);
      if (nanos < 1_000_000L) {
        throw new IllegalArgumentException("window must be >= 1 ms: " + Durations.exact(window));
      }
      this.windowNanos = nanos;
      return this;
    }

    /**
     * Sets the floor: retries per second allowed even with no first attempts, so that a quiet
     * client can still retry; default 10. Over the window it allows {@code floor(perSecond *
     * window)} retries.
     *
     * @param perSecond &ge; 0
     * @return this builder
     * @throws IllegalArgumentException if {@code perSecond} is negative
     */
    public Builder withMinRetriesPerSecond(int perSecond) {
      if (perSecond < 0) {
        throw new IllegalArgumentException("minRetriesPerSecond must be >= 0: " + perSecond);
      }
      this.minRetriesPerSecond = perSecond;
      return this;
    }

    /**
     * Keeps the counts in the given state, for example one shared through Redis; default: a new
     * in-memory state for each budget built. Budgets built with the same state share one budget.
     *
     * @param state where the counts live
     * @return this builder
     * @throws NullPointerException if {@code state} is null
     */
    public Builder withState(RetryBudgetState state) {
      this.state = Objects.requireNonNull(state, "state cannot be null");
      return this;
    }

    /**
     * Sets the time source the inspection methods read ({@link RetryBudget#available()}, {@link
     * RetryBudget#limit()}); default {@link TimeSource#system()}. Give it the executor's time
     * source, so that both read the same ticker: the decision methods the executor calls take the
     * executor's ticker reading instead of reading one themselves.
     *
     * @param time the time source
     * @return this builder
     * @throws NullPointerException if {@code time} is null
     */
    public Builder withTime(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time cannot be null");
      return this;
    }

    /**
     * Builds the budget.
     *
     * @return a new budget
     */
    public RetryBudget build() {
      long bucketNanos = windowNanos / BUCKETS;
      long effectiveWindow = bucketNanos * BUCKETS;
      RetryBudgetState.Config config =
          new RetryBudgetState.Config(
              bucketNanos,
              BUCKETS,
              ratioMillionths,
              floorRetries(minRetriesPerSecond, effectiveWindow));
      return new RetryBudgetImpl(
          config, ratio, state == null ? RetryBudgetState.inMemory() : state, time);
    }

    /** {@code floor(perSecond * windowNanos / 1e9)}, exact and saturating. */
    static long floorRetries(int perSecond, long windowNanos) {
      long seconds = windowNanos / 1_000_000_000L;
      long rest = windowNanos % 1_000_000_000L;
      try {
        return Math.addExact(
            Math.multiplyExact((long) perSecond, seconds), perSecond * rest / 1_000_000_000L);
      } catch (ArithmeticException overflow) {
        return Long.MAX_VALUE;
      }
    }
  }
}
