package dev.relent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link ConcurrencyLimit}.
 *
 * <p>Design: {@code available} free slots and one FIFO queue of waiters (an intrusive doubly linked
 * list, so that a cancelled waiter leaves in O(1)), all guarded by {@code lock}. Invariant: while
 * anyone waits, {@code available == 0}; a release hands its slot straight to the head of the queue
 * and only increments {@code available} when the queue is empty. A synchronous waiter is granted by
 * setting its flag and signalling its own condition. An asynchronous waiter is granted by moving it
 * to the {@code granted} list under the lock; its future is completed after the lock is released,
 * so that user callbacks never run under the lock; a callback that releases does not recurse, the
 * loop already running on its thread completes the next grant. If that completion fails because the
 * future was already cancelled or completed, the slot is granted again, so it is never leaked.
 * Cancelling a queued future unlinks it through a {@code whenComplete} callback.
 */
final class ConcurrencyLimitImpl implements ConcurrencyLimit {
  /** Returned whenever a slot is free at once: shared, completed, and immune to obtrusion. */
  private static final CompletableFuture<Void> GRANTED = new GrantedFuture();

  private final int max;
  private final ReentrantLock lock = new ReentrantLock();
  private int available;
  private int waiting;
  private Waiter head;
  private Waiter tail;
  private AsyncWaiter grantedHead;
  private AsyncWaiter grantedTail;
  // Per limit and per thread: a release inside a completion callback leaves its grant to the loop
  // already running on this thread instead of recursing (a chain of waiters could be long).
  private final ThreadLocal<Boolean> completing = new ThreadLocal<>();

  ConcurrencyLimitImpl(int max) {
    this.max = max;
    this.available = max;
  }

  @Override
  public boolean tryAcquire() {
    lock.lock();
    try {
      if (available > 0) {
        available--;
        return true;
      }
      return false;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean acquire(long timeoutNanos) throws InterruptedException {
    boolean passedOn = false;
    lock.lockInterruptibly();
    try {
      if (available > 0) {
        available--;
        return true;
      }
      if (timeoutNanos <= 0) {
        return false;
      }
      SyncWaiter waiter = new SyncWaiter(lock.newCondition());
      link(waiter);
      long remaining = timeoutNanos;
      try {
        while (!waiter.granted) {
          if (remaining <= 0) {
            unlink(waiter);
            return false;
          }
          remaining = waiter.condition.awaitNanos(remaining);
        }
        return true;
      } catch (InterruptedException e) {
        if (waiter.granted) {
          // Granted as we were interrupted: an interrupted caller holds nothing, so pass it on.
          passedOn = grantLocked();
        } else {
          unlink(waiter);
        }
        throw e;
      }
    } finally {
      lock.unlock();
      if (passedOn) {
        completeGranted();
      }
    }
  }

  @Override
  public CompletableFuture<Void> acquireAsync() {
    AsyncWaiter waiter;
    lock.lock();
    try {
      if (available > 0) {
        available--;
        return GRANTED;
      }
      waiter = new AsyncWaiter();
      link(waiter);
    } finally {
      lock.unlock();
    }
    // Registered after unlocking: if the slot was granted meanwhile, abandon() finds it unlinked.
    waiter.future.whenComplete((ignored, failure) -> abandon(waiter));
    return waiter.future;
  }

  @Override
  public void release() {
    boolean toComplete;
    lock.lock();
    try {
      if (available == max) {
        throw new IllegalStateException(
            "release() without a matching acquire: all " + max + " slots are already free");
      }
      toComplete = grantLocked();
    } finally {
      lock.unlock();
    }
    if (toComplete) {
      completeGranted();
    }
  }

  @Override
  public int available() {
    lock.lock();
    try {
      return available;
    } finally {
      lock.unlock();
    }
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

  @Override
  public String toString() {
    lock.lock();
    try {
      return "ConcurrencyLimit[" + available + " of " + max + " free, " + waiting + " waiting]";
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands one slot to the first live waiter, or to the free slots. Caller holds the lock.
   *
   * @return whether an asynchronous waiter was granted, so that its future must be completed
   */
  private boolean grantLocked() {
    for (Waiter waiter = head; waiter != null; waiter = head) {
      unlink(waiter);
      if (waiter instanceof SyncWaiter) {
        SyncWaiter sync = (SyncWaiter) waiter;
        sync.granted = true;
        sync.condition.signal();
        return false;
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
      return true;
    }
    available++;
    return false;
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
