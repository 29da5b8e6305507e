package dev.relent.spi;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default {@link ConcurrencyLimitState}: the count in one {@link AtomicInteger}.
 *
 * <p>Concurrency: {@link #tryAcquire} and {@link #release} are compare-and-set loops, so the check
 * and the change are one atomic step; nothing is allocated per call.
 */
final class InMemoryConcurrencyLimitState implements ConcurrencyLimitState {
  private final AtomicInteger inUse = new AtomicInteger();

  /** Creates a state with no slot in use. */
  public InMemoryConcurrencyLimitState() {}

  @Override
  public boolean tryAcquire(int max) {
    for (; ; ) {
      int current = inUse.get();
      if (current >= max) {
        return false;
      }
      if (inUse.compareAndSet(current, current + 1)) {
        return true;
      }
    }
  }

  @Override
  public void release() {
    for (; ; ) {
      int current = inUse.get();
      if (current == 0) {
        throw new IllegalStateException("release() without a matching acquire: no slot is in use");
      }
      if (inUse.compareAndSet(current, current - 1)) {
        return;
      }
    }
  }

  @Override
  public int inUse() {
    return inUse.get();
  }

  @Override
  public String toString() {
    return "InMemoryConcurrencyLimitState[" + inUse.get() + " in use]";
  }
}
