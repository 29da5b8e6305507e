package dev.relent.guard;

import dev.relent.spi.ConcurrencyLimitState;
import dev.relent.time.Durations;
import dev.relent.time.Scheduler;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link ConcurrencyLimit} on a state given with {@link ConcurrencyLimit.Builder#withState},
 * which other limits and processes change too. Every call takes the queue's locked path, which
 * polls the state for the local waiters; a blocked thread wakes up every poll interval to poll, and
 * while an asynchronous waiter is queued, the scheduler polls every poll interval too. {@code held}
 * counts the slots this limit holds, so that a release without an acquire here is refused even
 * while other limits hold slots of the same state.
 *
 * <p>On a state that keeps the queue of waiters ({@link ConcurrencyLimitState#queuesWaiters()}),
 * the waiters queue there (see {@link SlotQueue}), and the state's wake-up ({@link
 * ConcurrencyLimitState#onRelease}) schedules one claim on the scheduler for them, coalesced; the
 * poll interval is then only the fallback for a wake-up that was lost.
 */
final class SharedConcurrencyLimit extends SlotQueue {
  private static final System.Logger LOG = System.getLogger(ConcurrencyLimit.class.getName());

  private final Scheduler scheduler;
  // Guarded by the lock.
  private int held;
  // Whether a poll for asynchronous waiters is scheduled or running.
  private boolean polling;
  private boolean pollFailing;
  // Whether a claim after a wake-up is scheduled and not yet begun.
  private final AtomicBoolean wakePending = new AtomicBoolean();

  SharedConcurrencyLimit(
      int max, ConcurrencyLimitState state, long pollNanos, Scheduler scheduler) {
    super(max, state, pollNanos, state.queuesWaiters());
    this.scheduler = scheduler;
    if (fleetQueue) {
      // Weakly: a state outlives the limits built on it.
      WeakReference<SharedConcurrencyLimit> self = new WeakReference<>(this);
      state.onRelease(
          () -> {
            SharedConcurrencyLimit limit = self.get();
            if (limit != null) {
              limit.wake();
            }
          });
    }
  }

  /**
   * A slot may be free for this limit's tickets: claim on the scheduler's thread, not on the
   * state's (which may be an I/O thread), once however many wake-ups come before it runs.
   */
  void wake() {
    if (nobodyWaits() || !wakePending.compareAndSet(false, true)) {
      return;
    }
    scheduler.schedule(
        () -> {
          wakePending.set(false);
          try {
            pollForWaiters();
          } catch (RuntimeException e) {
            // The state could not be reached: the waiters' own polls try again.
          }
        },
        0);
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
  void claimedLocked(int slots) {
    held += slots;
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
          + (fleetQueue
              ? " waiting in the shared queue, woken, polled every "
              : " waiting, polled every ")
          + Durations.format(pollNanos)
          + ", shared "
          + state
          + "]";
    } finally {
      lock.unlock();
    }
  }
}
