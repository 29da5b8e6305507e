package dev.relent.guard;

import dev.relent.spi.RetryBudgetState;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;

/**
 * The {@link RetryBudget}: an immutable configuration in front of a {@link RetryBudgetState}, which
 * does the counting atomically. Stateless itself, so thread-safe whenever the state is.
 */
final class RetryBudgetImpl implements RetryBudget {
  private final RetryBudgetState.Config config;
  private final double ratio;
  private final RetryBudgetState state;
  private final TimeSource time;

  RetryBudgetImpl(
      RetryBudgetState.Config config, double ratio, RetryBudgetState state, TimeSource time) {
    this.config = config;
    this.ratio = ratio;
    this.state = state;
    this.time = time;
  }

  @Override
  public void recordFirstAttempt(long nowNanos) {
    state.recordFirstAttempt(nowNanos, config);
  }

  @Override
  public boolean tryAcquireRetry(long nowNanos) {
    return state.tryAcquireRetry(nowNanos, config);
  }

  @Override
  public long available(long nowNanos) {
    // Two reads, not one atomic step: a figure for messages and metrics, not a promise.
    long limit = limit(nowNanos);
    return Math.max(0L, limit - state.retries(nowNanos, config));
  }

  @Override
  public long limit(long nowNanos) {
    return RetryBudgetState.limit(state.firstAttempts(nowNanos, config), config);
  }

  @Override
  public long available() {
    return available(time.ticker().read());
  }

  @Override
  public long limit() {
    return limit(time.ticker().read());
  }

  @Override
  public String toString() {
    return "RetryBudget[ratio="
        + ratio
        + ", window="
        + Durations.format(config.bucketNanos() * config.buckets())
        + ", minRetries="
        + config.minRetries()
        + " per window]";
  }
}
