package dev.relent.guard;

import dev.relent.spi.ConcurrencyLimitState;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link ConcurrencyLimit} on a private state: every slot in use is held by this limit, and
 * nobody else changes the count.
 *
 * <p>Fast path: while nobody waits ({@link #nobodyWaits()}, a volatile read), an acquire takes a
 * slot from the state and a release gives it back without the lock, one atomic operation each.
 * Otherwise the call takes the queue's locked path. No wake-up is lost: a waiter first links itself
 * (a volatile write of the queue's head) and then polls the state, while a lock-free release first
 * frees its slot and then reads the head, taking the lock to poll for the waiters if it finds one;
 * of two such sequences at least one sees the other's write, so the freed slot reaches the queue.
 * An acquire that read an empty queue counts as having arrived before a waiter queued at the same
 * moment.
 */
final class LocalConcurrencyLimit extends SlotQueue {

  /** A blocked thread waits for a local release only, so it never needs to wake up to poll. */
  LocalConcurrencyLimit(int max, ConcurrencyLimitState state) {
    super(max, state, Long.MAX_VALUE, false);
  }

  @Override
  public boolean tryAcquireSlot() {
    return nobodyWaits() ? state.tryAcquire(max) : super.tryAcquireSlot();
  }

  @Override
  SlotPermit acquirePermit(long timeoutNanos) throws InterruptedException {
    if (nobodyWaits() && !Thread.currentThread().isInterrupted() && state.tryAcquire(max)) {
      return new SlotPermit(this);
    }
    return super.acquirePermit(timeoutNanos);
  }

  @Override
  public CompletableFuture<Permit> acquireAsync() {
    return nobodyWaits() && state.tryAcquire(max)
        ? CompletableFuture.completedFuture(new SlotPermit(this))
        : super.acquireAsync();
  }

  @Override
  public void releaseSlot() {
    if (!nobodyWaits()) {
      super.releaseSlot();
      return;
    }
    if (holdsNone()) {
      throw releaseWithoutAcquire();
    }
    state.release();
    if (!nobodyWaits()) {
      // A waiter queued meanwhile: the slot just freed is in the state; poll it for the queue.
      pollForWaiters();
    }
  }

  @Override
  boolean takeLocked() {
    return state.tryAcquire(max);
  }

  @Override
  void giveBackLocked() {
    state.release();
  }

  @Override
  boolean holdsNone() {
    return state.inUse() == 0;
  }

  @Override
  IllegalStateException releaseWithoutAcquire() {
    return new IllegalStateException(
        "releaseSlot() without a matching acquire: all " + max + " slots are already free");
  }

  @Override
  public String toString() {
    return "ConcurrencyLimit[" + available() + " of " + max + " free, " + waiting() + " waiting]";
  }
}
