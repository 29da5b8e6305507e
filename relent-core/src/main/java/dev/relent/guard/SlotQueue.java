package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.spi.ConcurrencyLimitState;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What both concurrency limits share: the FIFO queue of waiters and the locked paths that serve it.
 * {@link LocalConcurrencyLimit} adds lock-free fast paths for a private state; {@link
 * SharedConcurrencyLimit} counts the slots it holds of a state other processes change.
 *
 * <p>Design: a {@link ConcurrencyLimitState} counts the slots in use, and one FIFO queue of waiters
 * (an intrusive doubly linked list, so that a cancelled waiter leaves in O(1)) lives here, guarded
 * by {@code lock}. A release with a queue hands its slot straight to the head of the queue (the
 * count does not change) under the lock. {@link #pollLocked} takes slots that are free in the state
 * for the waiters; it runs after a waiter is queued, on every local call while anyone waits, and
 * after every wake-up of a blocked thread, which with a shared state (where another process may
 * free a slot) happens at least once per poll interval (see {@link
 * ConcurrencyLimit.Builder#withState}).
 *
 * <p>A synchronous waiter is granted by setting its flag and signalling its own condition. An
 * asynchronous waiter is granted by moving it to the {@code granted} list under the lock; its
 * future is completed after the lock is released, so that user callbacks never run under the lock.
 * Every locked path ends by completing the futures granted while it held the lock, also when it
 * throws, and a thread about to wait for a slot of its own lets go of the lock to complete them
 * first; a callback that releases does not recurse, the loop already running on its thread
 * completes the next grant. If that completion fails because the future was already cancelled or
 * completed, the slot is granted again, so it is never leaked. Cancelling a queued future unlinks
 * it through a {@code whenComplete} callback.
 *
 * <p>Fleet queue: when the state keeps the queue of waiters itself ({@link
 * ConcurrencyLimitState#queuesWaiters()}), the local queue mirrors this process's part of it. A
 * waiter is linked here and queued in the state under the lock, so the local order is the order of
 * its tickets there; a release gives its slot back to the state, never to a local waiter, and the
 * state keeps it for the oldest ticket of every process; {@link #pollLocked} then claims slots for
 * the local tickets, oldest first, and grants the waiters it got them for. A waiter that leaves
 * (time out, interruption, cancel) takes its ticket out of the state.
 *
 * <p>Permits: the queue works on slots ({@link #tryAcquireSlot()}, {@link #releaseSlot()}, the
 * executor's allocation-free pair); a {@link SlotPermit} wraps one slot and gives it back on its
 * first release only (a compare-and-set on its own flag). A waiter is its own permit, so a wait
 * allocates one object; a slot free at once gets a new permit.
 */
abstract class SlotQueue implements ConcurrencyLimit {
  final int max;
  final ConcurrencyLimitState state;
  // How long a blocked thread sleeps at most before it polls the state again.
  final long pollNanos;

  /** Whether the state keeps the queue of waiters: see the class comment. */
  final boolean fleetQueue;

  final ReentrantLock lock = new ReentrantLock();
  int waiting;
  // Volatile for the local limit's lock-free read; written only under the lock.
  private volatile Waiter head;
  private Waiter tail;
  private AsyncWaiter grantedHead;
  private AsyncWaiter grantedTail;
  // Per limit and per thread: a release inside a completion callback leaves its grant to the loop
  // already running on this thread instead of recursing (a chain of waiters could be long).
  private final ThreadLocal<Boolean> completing = new ThreadLocal<>();

  // The tickets of the first local waiters, for one claim; guarded by the lock.
  private long[] claimed;

  SlotQueue(int max, ConcurrencyLimitState state, long pollNanos, boolean fleetQueue) {
    this.max = max;
    this.state = state;
    this.pollNanos = pollNanos;
    this.fleetQueue = fleetQueue;
  }

  /** How many tickets one claim names at most. */
  private static final int CLAIM_BATCH = 32;

  /** Takes a slot from the state for this limit if one is free. Caller holds the lock. */
  abstract boolean takeLocked();

  /** Gives a slot this limit holds back to the state. Caller holds the lock. */
  abstract void giveBackLocked();

  /**
   * Counts {@code slots} more held by this limit, claimed for its tickets from a state that keeps
   * the queue. Caller holds the lock.
   */
  void claimedLocked(int slots) {
    throw new AssertionError("only a limit on a state that keeps the queue claims slots");
  }

  /** Whether this limit holds no slot, so that a release has no matching acquire. */
  abstract boolean holdsNone();

  /** The failure of a release without a matching acquire. */
  abstract IllegalStateException releaseWithoutAcquire();

  /**
   * Called when an asynchronous waiter stays queued, which has no thread of its own to poll the
   * state; nothing by default, where every release is local. Caller holds the lock.
   */
  void asyncWaiterQueuedLocked() {}

  /** Whether nobody waits; a volatile read, no lock. */
  final boolean nobodyWaits() {
    return head == null;
  }

  @Override
  public final Optional<Permit> tryAcquire() {
    return tryAcquireSlot() ? Optional.of(new SlotPermit(this)) : Optional.empty();
  }

  @Override
  public final Optional<Permit> acquire(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout cannot be null");
    return Optional.ofNullable(acquirePermit(Nanos.saturatedNanos(timeout)));
  }

  @Override
  public boolean tryAcquireSlot() {
    lock.lock();
    try {
      if (head != null && !fleetQueue) {
        pollLocked();
      }
      // Never overtake a waiter (with a fleet queue, the state refuses while any ticket waits).
      return head == null && takeLocked();
    } finally {
      unlockAndCompleteGranted();
    }
  }

  /**
   * Takes a slot, blocking up to {@code timeoutNanos}.
   *
   * @return the permit: a new one for a slot free at once, the waiter itself for one granted after
   *     a wait; null if the time ran out first
   */
  SlotPermit acquirePermit(long timeoutNanos) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      if (head != null && !fleetQueue) {
        pollLocked();
      }
      if (timeoutNanos <= 0 || !fleetQueue) {
        if (head == null && takeLocked()) {
          return new SlotPermit(this);
        }
        if (timeoutNanos <= 0) {
          return null;
        }
      }
      SyncWaiter waiter = new SyncWaiter(this, lock.newCondition());
      link(waiter);
      if (fleetQueue) {
        if (enqueueLocked(waiter)) {
          return waiter; // a slot was free, and no ticket ahead
        }
      } else {
        // A slot freed without the lock just before the link is in the state: take it for the
        // queue.
        pollLocked();
      }
      long remaining = timeoutNanos;
      try {
        while (!waiter.granted) {
          if (grantedHead != null && completing.get() == null) {
            // Futures granted on the way here are completed before this thread sleeps: their
            // callers hold a slot, and would otherwise wait for this thread to wake up, which may
            // be never. (Inside a completion callback, the loop below it completes them.)
            unlockAndCompleteGranted();
            lock.lock();
            continue;
          }
          if (remaining <= 0) {
            leaveLocked(waiter);
            return null;
          }
          long slice = Math.min(remaining, pollNanos);
          // awaitNanos returns what is left of the slice, negative if it overslept.
          remaining -= slice - waiter.condition.awaitNanos(slice);
          if (!waiter.granted) {
            pollLocked();
          }
        }
        return waiter;
      } catch (InterruptedException e) {
        if (waiter.granted) {
          // Granted as we were interrupted: an interrupted caller holds nothing, so pass it on.
          grantLocked();
        } else {
          leaveLocked(waiter);
        }
        throw e;
      }
    } finally {
      unlockAndCompleteGranted();
    }
  }

  @Override
  public CompletableFuture<Permit> acquireAsync() {
    AsyncWaiter waiter = null;
    lock.lock();
    try {
      if (fleetQueue) {
        waiter = new AsyncWaiter(this);
        link(waiter);
        if (enqueueLocked(waiter)) {
          waiter = null; // a slot was free, and no ticket ahead
        } else {
          asyncWaiterQueuedLocked();
        }
      } else {
        if (head != null) {
          pollLocked();
        }
        if (head != null || !takeLocked()) {
          waiter = new AsyncWaiter(this);
          link(waiter);
          // A slot freed without the lock just before the link is in the state: take it for us.
          pollLocked();
          if (waiter.queued) {
            asyncWaiterQueuedLocked();
          }
        }
      }
    } finally {
      unlockAndCompleteGranted();
    }
    if (waiter == null) {
      return CompletableFuture.completedFuture(new SlotPermit(this));
    }
    AsyncWaiter queued = waiter;
    // Registered after unlocking: if the slot was granted meanwhile, abandon() finds it unlinked.
    queued.future.whenComplete((ignored, failure) -> abandon(queued));
    return queued.future;
  }

  @Override
  public void releaseSlot() {
    lock.lock();
    try {
      if (holdsNone()) {
        throw releaseWithoutAcquire();
      }
      grantLocked();
      if (!fleetQueue) {
        pollLocked();
      }
    } finally {
      unlockAndCompleteGranted();
    }
  }

  /** Takes the slots free in the state for the waiters, under the lock. */
  final void pollForWaiters() {
    lock.lock();
    try {
      pollLocked();
    } finally {
      unlockAndCompleteGranted();
    }
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

  /**
   * Hands one slot this limit holds to the first live waiter, or gives it back to the state. Caller
   * holds the lock.
   */
  private void grantLocked() {
    if (fleetQueue) {
      // Never to a local waiter first: the state keeps it for the oldest ticket of the fleet.
      giveBackLocked();
      pollLocked();
    } else if (!handOffLocked()) {
      giveBackLocked();
    }
  }

  /**
   * Queues a linked waiter's ticket in the state, or, if a slot was free for it, unlinks it holding
   * that slot. Caller holds the lock.
   *
   * @return whether the waiter holds a slot already
   */
  private boolean enqueueLocked(Waiter waiter) {
    long ticket;
    try {
      ticket = state.enqueue(max);
    } catch (RuntimeException e) {
      unlink(waiter);
      throw e;
    }
    if (ticket == 0) {
      unlink(waiter);
      claimedLocked(1);
      return true;
    }
    waiter.ticket = ticket;
    return false;
  }

  /** Unlinks a waiter that gives up, taking its ticket out of the state. Caller holds the lock. */
  private void leaveLocked(Waiter waiter) {
    unlink(waiter);
    long ticket = waiter.ticket;
    if (ticket != 0) {
      waiter.ticket = 0;
      try {
        state.dequeue(ticket);
      } catch (RuntimeException e) {
        // The state could not be reached: it drops the tickets it no longer hears of itself.
      }
    }
  }

  /**
   * Takes slots that are free in the state for the waiters, first come first served, while it has
   * any: slots freed by another process sharing the state, or by a lock-free release that raced
   * with a waiter being queued. Caller holds the lock.
   */
  private void pollLocked() {
    if (fleetQueue) {
      claimLocked();
      return;
    }
    while (head != null && takeLocked()) {
      if (!handOffLocked()) {
        // Only cancelled waiters were left.
        giveBackLocked();
        break;
      }
    }
  }

  /**
   * Claims slots from the state for the local waiters' tickets, oldest first, and grants each
   * waiter it got one for; a cancelled future's slot goes back to the state. Caller holds the lock.
   */
  private void claimLocked() {
    while (head != null) {
      if (claimed == null) {
        claimed = new long[CLAIM_BATCH];
      }
      int n = 0;
      for (Waiter w = head; w != null && n < CLAIM_BATCH; w = w.next) {
        claimed[n++] = w.ticket;
      }
      int granted = state.claim(claimed, n, max);
      if (granted < 0 || granted > n) {
        throw new IllegalStateException(
            state + " granted " + granted + " of " + n + " tickets claimed");
      }
      claimedLocked(granted);
      for (int i = 0; i < granted; i++) {
        head.ticket = 0; // granted: no longer in the state's queue
        if (!handOffLocked()) {
          giveBackLocked(); // cancelled meanwhile, whose callback will find it unlinked
        }
      }
      if (granted < n || n < CLAIM_BATCH) {
        return;
      }
    }
  }

  /**
   * Hands one slot this limit holds to the first live waiter: a thread is signalled; a future joins
   * the granted list, to be completed once the lock is released. Caller holds the lock.
   *
   * @return whether someone got it; if not, nobody waits and the caller still holds it
   */
  private boolean handOffLocked() {
    for (Waiter waiter = head; waiter != null; waiter = head) {
      unlink(waiter);
      if (waiter instanceof SyncWaiter) {
        SyncWaiter sync = (SyncWaiter) waiter;
        sync.granted = true;
        sync.condition.signal();
        return true;
      }
      AsyncWaiter async = (AsyncWaiter) waiter;
      if (async.future.isDone()) {
        if (fleetQueue) {
          // Its slot was claimed for its ticket, not for the next waiter's.
          return false;
        }
        continue; // cancelled; its callback will find it already unlinked
      }
      if (grantedTail == null) {
        grantedHead = async;
      } else {
        grantedTail.nextGranted = async;
      }
      grantedTail = async;
      return true;
    }
    return false;
  }

  /**
   * Releases the lock, then completes the futures granted while it was held. Every locked path ends
   * here, also when it throws, so a future granted by a poll that failed part-way is not left
   * behind.
   */
  private void unlockAndCompleteGranted() {
    boolean granted = grantedHead != null;
    lock.unlock();
    if (granted) {
      completeGranted();
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
        if (!next.future.complete(next)) {
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
        leaveLocked(waiter);
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

  /**
   * The permit for one acquire: the first {@link #release()} gives the slot back with {@link
   * #releaseSlot()}, a compare-and-set on {@code released} makes every later one a no-op.
   */
  static class SlotPermit implements Permit {
    private static final AtomicIntegerFieldUpdater<SlotPermit> RELEASED =
        AtomicIntegerFieldUpdater.newUpdater(SlotPermit.class, "released");

    private final SlotQueue limit;
    private volatile int released;

    SlotPermit(SlotQueue limit) {
      this.limit = limit;
    }

    @Override
    public final void release() {
      if (RELEASED.compareAndSet(this, 0, 1)) {
        limit.releaseSlot();
      }
    }

    @Override
    public String toString() {
      return "ConcurrencyLimit.Permit[" + (released == 0 ? "held" : "released") + "]";
    }
  }

  /** A waiter, and the permit it gets: one object, allocated only when the caller must wait. */
  private abstract static class Waiter extends SlotPermit {
    Waiter prev;
    Waiter next;
    boolean queued;

    /** Its ticket in a state that keeps the queue, while queued there; 0 otherwise. */
    long ticket;

    Waiter(SlotQueue limit) {
      super(limit);
    }
  }

  private static final class SyncWaiter extends Waiter {
    final Condition condition;
    boolean granted;

    SyncWaiter(SlotQueue limit, Condition condition) {
      super(limit);
      this.condition = condition;
    }
  }

  private static final class AsyncWaiter extends Waiter {
    final CompletableFuture<Permit> future = new CompletableFuture<>();
    AsyncWaiter nextGranted;

    AsyncWaiter(SlotQueue limit) {
      super(limit);
    }
  }
}
