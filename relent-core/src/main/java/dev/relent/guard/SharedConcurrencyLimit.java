package dev.relent.guard;

import dev.relent.spi.ConcurrencyLimitState;
import dev.relent.time.Durations;

/**
 * The {@link ConcurrencyLimit} on a state given with {@link ConcurrencyLimit.Builder#withState},
 * which other limits and processes change too. Every call takes the queue's locked path, which
 * polls the state for the local waiters; a blocked thread wakes up every poll interval to poll.
 * {@code held} counts the slots this limit holds, so that a release without an acquire here is
 * refused even while other limits hold slots of the same state.
 */
final class SharedConcurrencyLimit extends SlotQueue {
  // Guarded by the lock.
  private int held;

  SharedConcurrencyLimit(int max, ConcurrencyLimitState state, long pollNanos) {
    super(max, state, pollNanos);
  }

  @Override
  boolean takeLocked() {
    if (state.tryAcquire(max)) {
      held++;
      return true;
    }
    return false;
  }

  @Override
  void giveBackLocked() {
    state.release();
    held--;
  }

  @Override
  boolean holdsNone() {
    return held == 0;
  }

  @Override
  IllegalStateException releaseWithoutAcquire() {
    return new IllegalStateException(
        "releaseSlot() without a matching acquire: this limit holds none of its " + max + " slots");
  }

  /** Reads no shared state: it shows what this limit holds. */
  @Override
  public String toString() {
    lock.lock();
    try {
      return "ConcurrencyLimit["
          + held
          + " of "
          + max
          + " slots held here, "
          + waiting
          + " waiting, polled every "
          + Durations.format(pollNanos)
          + ", shared "
          + state
          + "]";
    } finally {
      lock.unlock();
    }
  }
}
