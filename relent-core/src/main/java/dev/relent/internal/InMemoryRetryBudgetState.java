package dev.relent.internal;

import dev.relent.spi.RetryBudgetState;

/**
 * The default {@link RetryBudgetState}: {@link BucketedCounts} (first attempts, retries) behind one
 * monitor.
 *
 * <p>Concurrency: each method holds a private lock for O(1) amortised work, so the check and the
 * withdrawal of {@link #tryAcquireRetry} are one atomic step. The ring is created on the first call
 * from that call's window; a later call with another window is a programming error (two budgets
 * sharing one state) and throws.
 */
public final class InMemoryRetryBudgetState implements RetryBudgetState {
  private final Object lock = new Object();
  private BucketedCounts counts;

  /** Creates an empty state. */
  public InMemoryRetryBudgetState() {}

  @Override
  public void recordFirstAttempt(long nowNanos, Config config) {
    synchronized (lock) {
      countsFor(config).addFirst(nowNanos, 1);
    }
  }

  @Override
  public boolean tryAcquireRetry(long nowNanos, Config config) {
    synchronized (lock) {
      BucketedCounts window = countsFor(config);
      window.advance(nowNanos);
      if (window.secondTotal() >= RetryBudgetState.limit(window.firstTotal(), config)) {
        return false;
      }
      window.addSecondAtHead(nowNanos, 1);
      return true;
    }
  }

  @Override
  public long firstAttempts(long nowNanos, Config config) {
    synchronized (lock) {
      BucketedCounts window = countsFor(config);
      window.advance(nowNanos);
      return window.firstTotal();
    }
  }

  @Override
  public long retries(long nowNanos, Config config) {
    synchronized (lock) {
      BucketedCounts window = countsFor(config);
      window.advance(nowNanos);
      return window.secondTotal();
    }
  }

  private BucketedCounts countsFor(Config config) {
    BucketedCounts window = counts;
    if (window == null) {
      window = new BucketedCounts(config.bucketNanos(), config.buckets());
      counts = window;
    } else if (window.bucketNanos() != config.bucketNanos()
        || window.buckets() != config.buckets()) {
      throw new IllegalArgumentException(
          "this retry budget state counts over "
              + window.buckets()
              + " buckets of "
              + window.bucketNanos()
              + " ns and cannot also count over "
              + config.buckets()
              + " buckets of "
              + config.bucketNanos()
              + " ns: give each budget its own state");
    }
    return window;
  }
}
