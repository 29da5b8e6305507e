package dev.relent.guard;

import dev.relent.spi.ConcurrencyLimitState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link ConcurrencyLimit}.
 *
 * <p>Design: a {@link ConcurrencyLimitState} counts the slots in use; {@code held} counts those
 * this limit holds (kept for a shared state only: a private one holds every slot in use), and one
 * FIFO queue of waiters (an intrusive doubly linked list, so that a cancelled waiter leaves in
 * O(1)) lives here, guarded by {@code lock}. A release with a queue hands its slot straight to the
 * head of the queue (the count does not change) under the lock. {@link #pollLocked} takes slots
 * that are free in the state for the waiters; it runs after a waiter is queued, on every local call
 * while anyone waits, and with a shared state (where another process may free a slot) on every poll
 * interval of a blocked thread (see {@link ConcurrencyLimit.Builder#withState}).
 *
 * <p>Fast path, private state only: while nobody waits ({@code head} is null, a volatile read), an
 * acquire takes a slot from the state and a release gives it back without the lock, one atomic
 * operation each. No wake-up is lost: a waiter first links itself (a volatile write of {@code
 * head}) and then polls the state, while a lock-free release first frees its slot and then reads
 * {@code head}, taking the lock to poll for the waiters if it finds one; of two such sequences at
 * least one sees the other's write, so the freed slot reaches the queue. An acquire that read an
 * empty queue counts as having arrived before a waiter queued at the same moment.
 *
 * <p>A synchronous waiter is granted by setting its flag and signalling its own condition. An
 * asynchronous waiter is granted by moving it to the {@code granted} list under the lock; its
 * future is completed after the lock is released, so that user callbacks never run under the lock;
 * a callback that releases does not recurse, the loop already running on its thread completes the
 * next grant. If that completion fails because the future was already cancelled or completed, the
 * slot is granted again, so it is never leaked. Cancelling a queued future unlinks it through a
 * {@code whenComplete} callback.
 */
final class ConcurrencyLimitImpl implements ConcurrencyLimit {
  /** Returned whenever a slot is free at once: shared, completed, and immune to obtrusion. */
  private static final CompletableFuture<Void> GRANTED = new GrantedFuture();

  private static final int NO_WAITER = 0;
  private static final int SYNC_WAITER = 1;
  private static final int ASYNC_WAITER = 2;

  private final int max;
  private final ConcurrencyLimitState state;
  // Whether others may change the state, so that waiters must poll it.
  private final boolean shared;
  private final long pollNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private int held;
  private int waiting;
  // Volatile for the fast path's lock-free read; written only under the lock.
  private volatile Waiter head;
  private Waiter tail;
  private AsyncWaiter grantedHead;
  private AsyncWaiter grantedTail;
  // Per limit and per thread: a release inside a completion callback leaves its grant to the loop
  // already running on this thread instead of recursing (a chain of waiters could be long).
  private final ThreadLocal<Boolean> completing = new ThreadLocal<>();

  ConcurrencyLimitImpl(int max, ConcurrencyLimitState state, boolean shared, long pollNanos) {
    this.max = max;
    this.state = state;
    this.shared = shared;
    this.pollNanos = pollNanos;
  }

  @Override
  public boolean tryAcquire() {
    if (!shared && head == null) {
      return state.tryAcquire(max);
    }
    boolean toComplete = false;
    boolean acquired;
    lock.lock();
    try {
      if (head != null) {
        toComplete = pollLocked();
      }
      // Never overtake a waiter.
      acquired = head == null && takeLocked();
    } finally {
      lock.unlock();
    }
    if (toComplete) {
      completeGranted();
    }
    return acquired;
  }

  @Override
  public boolean acquire(long timeoutNanos) throws InterruptedException {
    if (!shared && head == null && !Thread.currentThread().isInterrupted()) {
      if (state.tryAcquire(max)) {
        return true;
      }
    }
    boolean toComplete = false;
    lock.lockInterruptibly();
    try {
      if (head != null) {
        toComplete = pollLocked();
      }
      if (head == null && takeLocked()) {
        return true;
      }
      if (timeoutNanos <= 0) {
        return false;
      }
      SyncWaiter waiter = new SyncWaiter(lock.newCondition());
      link(waiter);
      // A slot freed without the lock just before the link is in the state: take it for the queue.
      toComplete |= pollLocked();
      long remaining = timeoutNanos;
      try {
        while (!waiter.granted) {
          if (remaining <= 0) {
            unlink(waiter);
            return false;
          }
          long slice = shared ? Math.min(remaining, pollNanos) : remaining;
          // awaitNanos returns what is left of the slice, negative if it overslept.
          remaining -= slice - waiter.condition.awaitNanos(slice);
          if (shared && !waiter.granted) {
            toComplete |= pollLocked();
          }
        }
        return true;
      } catch (InterruptedException e) {
        if (waiter.granted) {
          // Granted as we were interrupted: an interrupted caller holds nothing, so pass it on.
          toComplete |= grantLocked();
        } else {
          unlink(waiter);
        }
        throw e;
      }
    } finally {
      lock.unlock();
      if (toComplete) {
        completeGranted();
      }
    }
  }

  @Override
  public CompletableFuture<Void> acquireAsync() {
    if (!shared && head == null && state.tryAcquire(max)) {
      return GRANTED;
    }
    AsyncWaiter waiter = null;
    boolean toComplete = false;
    lock.lock();
    try {
      if (head != null) {
        toComplete = pollLocked();
      }
      if (head != null || !takeLocked()) {
        waiter = new AsyncWaiter();
        link(waiter);
        // A slot freed without the lock just before the link is in the state: take it for us.
        toComplete |= pollLocked();
      }
    } finally {
      lock.unlock();
    }
    if (toComplete) {
      completeGranted();
    }
    if (waiter == null) {
      return GRANTED;
    }
    AsyncWaiter queued = waiter;
    // Registered after unlocking: if the slot was granted meanwhile, abandon() finds it unlinked.
    queued.future.whenComplete((ignored, failure) -> abandon(queued));
    return queued.future;
  }

  @Override
  public void release() {
    boolean freed = false;
    if (!shared && head == null) {
      if (holdsNone()) {
        throw releaseWithoutAcquire();
      }
      state.release();
      if (head == null) {
        return;
      }
      // A waiter queued meanwhile: the slot just freed is in the state; poll it for the queue.
      freed = true;
    }
    boolean toComplete = false;
    lock.lock();
    try {
      if (!freed) {
        if (holdsNone()) {
          throw releaseWithoutAcquire();
        }
        toComplete = grantLocked();
      }
      toComplete |= pollLocked();
    } finally {
      lock.unlock();
    }
    if (toComplete) {
      completeGranted();
    }
  }

  /** Whether this limit holds no slot, so that a release has no matching acquire. */
  private boolean holdsNone() {
    return shared ? held == 0 : state.inUse() == 0;
  }

  private IllegalStateException releaseWithoutAcquire() {
    return new IllegalStateException(
        shared
            ? "release() without a matching acquire: this limit holds none of its " + max + " slots"
            : "release() without a matching acquire: all " + max + " slots are already free");
  }

  @Override
  public int available() {
    return Math.max(0, max - state.inUse());
  }

  @Override
  public int maxConcurrent() {
    return max;
  }

  @Override
  public int waiting() {
    lock.lock();
    try {
      return waiting;
    } finally {
      lock.unlock();
    }
  }

  /** Reads no shared state: with one, it shows what this limit holds. */
  @Override
  public String toString() {
    lock.lock();
    try {
      if (shared) {
        return "ConcurrencyLimit["
            + held
            + " of "
            + max
            + " slots held here, "
            + waiting
            + " waiting, shared "
            + state
            + "]";
      }
      return "ConcurrencyLimit["
          + (max - state.inUse())
          + " of "
          + max
          + " free, "
          + waiting
          + " waiting]";
    } finally {
      lock.unlock();
    }
  }

  /** Takes a slot from the state if one is free. Caller holds the lock. */
  private boolean takeLocked() {
    if (state.tryAcquire(max)) {
      if (shared) {
        held++;
      }
      return true;
    }
    return false;
  }

  /**
   * Hands one slot this limit holds to the first live waiter, or gives it back to the state. Caller
   * holds the lock.
   *
   * @return whether an asynchronous waiter was granted, so that its future must be completed
   */
  private boolean grantLocked() {
    int granted = handOffLocked();
    if (granted == NO_WAITER) {
      giveBackLocked();
    }
    return granted == ASYNC_WAITER;
  }

  /**
   * Takes slots that are free in the state for the waiters, first come first served, while it has
   * any: slots freed by another process sharing the state, or by a lock-free release that raced
   * with a waiter being queued. Caller holds the lock.
   *
   * @return whether an asynchronous waiter was granted, so that its future must be completed
   */
  private boolean pollLocked() {
    boolean async = false;
    while (head != null && takeLocked()) {
      int granted = handOffLocked();
      if (granted == NO_WAITER) {
        // Only cancelled waiters were left.
        giveBackLocked();
        break;
      }
      async |= granted == ASYNC_WAITER;
    }
    return async;
  }

  /**
   * Hands one slot this limit holds to the first live waiter. Caller holds the lock.
   *
   * @return {@link #SYNC_WAITER} or {@link #ASYNC_WAITER}: who got it; {@link #NO_WAITER} if nobody
   *     waits, and the caller still holds it
   */
  private int handOffLocked() {
    for (Waiter waiter = head; waiter != null; waiter = head) {
      unlink(waiter);
      if (waiter instanceof SyncWaiter) {
        SyncWaiter sync = (SyncWaiter) waiter;
        sync.granted = true;
        sync.condition.signal();
        return SYNC_WAITER;
      }
      AsyncWaiter async = (AsyncWaiter) waiter;
      if (async.future.isDone()) {
        continue; // cancelled; its callback will find it already unlinked
      }
      if (grantedTail == null) {
        grantedHead = async;
      } else {
        grantedTail.nextGranted = async;
      }
      grantedTail = async;
      return ASYNC_WAITER;
    }
    return NO_WAITER;
  }

  /** Gives a slot this limit holds back to the state. Caller holds the lock. */
  private void giveBackLocked() {
    state.release();
    if (shared) {
      held--;
    }
  }

  /** Completes granted futures outside the lock, unless an outer frame on this thread does. */
  private void completeGranted() {
    if (completing.get() != null) {
      return;
    }
    completing.set(Boolean.TRUE);
    try {
      for (; ; ) {
        AsyncWaiter next;
        lock.lock();
        try {
          next = grantedHead;
          if (next == null) {
            return;
          }
          grantedHead = next.nextGranted;
          if (grantedHead == null) {
            grantedTail = null;
          }
          next.nextGranted = null;
        } finally {
          lock.unlock();
        }
        if (!next.future.complete(null)) {
          // Someone completed it first (cancelled): the slot goes to the next in line.
          lock.lock();
          try {
            grantLocked();
          } finally {
            lock.unlock();
          }
        }
      }
    } finally {
      completing.remove();
    }
  }

  private void abandon(AsyncWaiter waiter) {
    lock.lock();
    try {
      if (waiter.queued) {
        unlink(waiter);
      }
    } finally {
      lock.unlock();
    }
  }

  private void link(Waiter waiter) {
    waiter.queued = true;
    waiter.prev = tail;
    if (tail == null) {
      head = waiter;
    } else {
      tail.next = waiter;
    }
    tail = waiter;
    waiting++;
  }

  private void unlink(Waiter waiter) {
    Waiter prev = waiter.prev;
    Waiter next = waiter.next;
    if (prev == null) {
      head = next;
    } else {
      prev.next = next;
    }
    if (next == null) {
      tail = prev;
    } else {
      next.prev = prev;
    }
    waiter.prev = null;
    waiter.next = null;
    waiter.queued = false;
    waiting--;
  }

  private abstract static class Waiter {
    Waiter prev;
    Waiter next;
    boolean queued;
  }

  private static final class SyncWaiter extends Waiter {
    final Condition condition;
    boolean granted;

    SyncWaiter(Condition condition) {
      this.condition = condition;
    }
  }

  private static final class AsyncWaiter extends Waiter {
    final CompletableFuture<Void> future = new CompletableFuture<>();
    AsyncWaiter nextGranted;
  }

  /** An already completed future whose value nobody can overwrite, since it is shared. */
  private static final class GrantedFuture extends CompletableFuture<Void> {
    GrantedFuture() {
      super.complete(null);
    }

    @Override
    public void obtrudeValue(Void value) {
      throw new UnsupportedOperationException("a granted slot cannot be obtruded");
    }

    @Override
    public void obtrudeException(Throwable ex) {
      throw new UnsupportedOperationException("a granted slot cannot be obtruded");
    }
  }
}
