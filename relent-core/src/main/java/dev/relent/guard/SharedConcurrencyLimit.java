package dev.relent.guard;

import dev.relent.spi.ConcurrencyLimitState;
import dev.relent.time.Durations;
import dev.relent.time.Scheduler;

/**
 * The {@link ConcurrencyLimit} on a state given with {@link ConcurrencyLimit.Builder#withState},
 * which other limits and processes change too. Every call takes the queue's locked path, which
 * polls the state for the local waiters; a blocked thread wakes up every poll interval to poll, and
 * while an asynchronous waiter is queued, the scheduler polls every poll interval too. {@code held}
 * counts the slots this limit holds, so that a release without an acquire here is refused even
 * while other limits hold slots of the same state.
 */
final class SharedConcurrencyLimit extends SlotQueue {
  private static final System.Logger LOG = System.getLogger(ConcurrencyLimit.class.getName());

  private final Scheduler scheduler;
  // Guarded by the lock.
  private int held;
  // Whether a poll for asynchronous waiters is scheduled or running.
  private boolean polling;
  private boolean pollFailing;

  SharedConcurrencyLimit(
      int max, ConcurrencyLimitState state, long pollNanos, Scheduler scheduler) {
    super(max, state, pollNanos);
    this.scheduler = scheduler;
  }

  /**
   * An asynchronous waiter has no thread to wake up and poll, so the scheduler polls for the queue
   * every poll interval while anyone waits.
   */
  @Override
  void asyncWaiterQueuedLocked() {
    if (!polling) {
      polling = true;
      scheduler.schedule(this::pollTick, pollNanos);
    }
  }

  private void pollTick() {
    RuntimeException failure = null;
    try {
      pollForWaiters();
    } catch (RuntimeException e) {
      failure = e; // the state could not be read: try again at the next tick
    }
    lock.lock();
    try {
      if (failure != null && !pollFailing) {
        // Once per run of failures; the waiters' callers give up at their own deadlines.
        LOG.log(
            System.Logger.Level.WARNING, "polling the shared state for waiters failed", failure);
      }
      pollFailing = failure != null;
      polling = !nobodyWaits();
      if (polling) {
        scheduler.schedule(this::pollTick, pollNanos);
      }
    } finally {
      lock.unlock();
    }
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
