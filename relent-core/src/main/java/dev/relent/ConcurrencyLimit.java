package dev.relent;

import java.util.concurrent.CompletableFuture;

/**
 * Limits how many operations are <em>active</em> at once: a semaphore with synchronous and
 * asynchronous waiters (SPEC R7). The pacer limits how often operations start; this limits how many
 * run together (at 1.5 starts per second and 2 s per response, about 3).
 *
 * <p>Waiters, synchronous and asynchronous alike, are served first come, first served; a free slot
 * never sits unused while someone waits, so {@link #tryAcquire()} never overtakes a waiter. Every
 * successful acquire must be followed by exactly one {@link #release()}.
 *
 * <p>Thread-safe: one short critical section on a private lock per call; the success paths of
 * {@link #tryAcquire()}, {@link #acquireAsync()} and {@link #release()} allocate nothing. This is
 * the one guard that waits: a thread blocked in {@link #acquire(long)} waits for another thread's
 * release, in real time.
 */
public interface ConcurrencyLimit {

  /**
   * Returns a new limit with all slots free.
   *
   * @param maxConcurrent the number of slots, &ge; 1
   * @return a new limit
   * @throws IllegalArgumentException if {@code maxConcurrent} &lt; 1
   */
  static ConcurrencyLimit of(int maxConcurrent) {
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("maxConcurrent must be >= 1: " + maxConcurrent);
    }
    return new ConcurrencyLimitImpl(maxConcurrent);
  }

  /**
   * Takes a slot if one is free now.
   *
   * @return whether a slot was taken
   */
  boolean tryAcquire();

  /**
   * Takes a slot, blocking up to {@code timeoutNanos} for another thread to release one.
   *
   * @param timeoutNanos the longest wait; zero or negative does not wait
   * @return {@code true} if a slot was taken, {@code false} if the time ran out first
   * @throws InterruptedException if the thread is interrupted before or while waiting; then no slot
   *     is held (one granted at the same moment is passed on)
   */
  boolean acquire(long timeoutNanos) throws InterruptedException;

  /**
   * Takes a slot when one is free, without blocking a thread. The future completes normally once a
   * slot is granted: at once if one is free (a shared, already completed future), otherwise on the
   * thread that releases a slot. Cancelling this future, or completing it in any other way, before
   * the slot is granted removes the waiter; a slot granted to a future that was completed by
   * someone else at the same moment is passed on, never leaked. Cancelling a future derived from it
   * (such as {@code thenRun}) does not remove the waiter.
   *
   * @return a future that completes normally when the caller holds a slot
   */
  CompletableFuture<Void> acquireAsync();

  /**
   * Gives a slot back: to the longest waiter if there is one, otherwise to the free slots.
   *
   * @throws IllegalStateException if every slot is already free (a release without an acquire)
   */
  void release();

  /**
   * Returns the number of free slots.
   *
   * @return between 0 and {@link #maxConcurrent()}
   */
  int available();

  /**
   * Returns the number of slots.
   *
   * @return &ge; 1
   */
  int maxConcurrent();

  /**
   * Returns the number of waiters not yet granted a slot.
   *
   * @return &ge; 0
   */
  int waiting();
}
