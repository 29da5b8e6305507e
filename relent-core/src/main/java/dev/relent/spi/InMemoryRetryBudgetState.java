package dev.relent.spi;

import dev.relent.internal.BucketedCounts;
import dev.relent.internal.SpinLocked;

/**
 * The default {@link RetryBudgetState}: {@link BucketedCounts} (first attempts, retries) behind one
 * monitor.
 *
 * <p>Concurrency: each method holds a {@link SpinLocked spin lock} for O(1) amortised work, so the
 * check and the withdrawal of {@link #tryAcquireRetry} are one atomic step. The ring is created on
 * the first call from that call's window; a later call with another window is a programming error
 * (two budgets sharing one state) and throws.
 */
final class InMemoryRetryBudgetState extends SpinLocked implements RetryBudgetState {
  private BucketedCounts counts;

  /** Creates an empty state. */
  public InMemoryRetryBudgetState() {}

  @Override
  public void recordFirstAttempt(long nowNanos, Config config) {
    lock();
    try {
      countsFor(config).addFirst(nowNanos, 1);
    } finally {
      unlock();
    }
  }

  @Override
  public boolean tryAcquireRetry(long nowNanos, Config config) {
    lock();
    try {
      BucketedCounts window = advanced(nowNanos, config);
      if (window.secondTotal() >= RetryBudgetState.limit(window.firstTotal(), config)) {
        return false;
      }
      window.addSecondAtHead(nowNanos, 1);
      return true;
    } finally {
      unlock();
    }
  }

  @Override
  public long firstAttempts(long nowNanos, Config config) {
    lock();
    try {
      return advanced(nowNanos, config).firstTotal();
    } finally {
      unlock();
    }
  }

  @Override
  public long retries(long nowNanos, Config config) {
    lock();
    try {
      return advanced(nowNanos, config).secondTotal();
    } finally {
      unlock();
    }
  }

  /** The window, moved on to {@code nowNanos}; called under the lock. */
  private BucketedCounts advanced(long nowNanos, Config config) {
    BucketedCounts window = countsFor(config);
    window.advance(nowNanos);
    return window;
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
