package dev.relent.spi;

/**
 * Where a {@link dev.relent.guard.ConcurrencyLimit} counts its slots in use: in memory by default,
 * or in a store such as Redis so that many processes share one limit. Implementations must make
 * each method one atomic operation (in Redis: one Lua script, one round trip) and must be
 * thread-safe.
 *
 * <p>The state is one number, {@code inUse}, initially 0. Every store implements the same rules:
 *
 * <pre>
 * tryAcquire(max):  if inUse &lt; max: inUse += 1; return true
 *                   return false                          // nothing changes
 * release():        if inUse == 0: fail, nothing changes  // a release without an acquire
 *                   inUse -= 1
 * inUse():          return inUse
 * </pre>
 *
 * <p>By default only the count is shared. The queue of callers waiting for a slot stays in each
 * process, in its {@link dev.relent.guard.ConcurrencyLimit}: a shared state bounds the calls of the
 * whole fleet, and a slot given back in one process wakes that process's waiters at once, while a
 * slot given back elsewhere is noticed only when a local waiter polls (see {@link
 * dev.relent.guard.ConcurrencyLimit.Builder#withState}). A slot taken by a process that dies
 * without giving it back stays taken: the count cannot tell whose it is, so a store that must
 * survive crashes needs leases with an expiry, which this interface does not model.
 *
 * <p>A state may also keep the queue of waiters itself ({@link #queuesWaiters()} true), so that
 * every process sharing it is served first come, first served, one queue for all. Its waiters are
 * tickets, and the rules grow to:
 *
 * <pre>
 * tryAcquire(max):  if inUse + queued &lt; max: inUse += 1; return true  // never ahead of a ticket
 *                   return false
 * enqueue(max):     if inUse + queued &lt; max: inUse += 1; return 0
 *                   queue a new ticket t at the tail; return t        // t &ge; 1
 * claim(ts, n, max): for each of ts[0..n), oldest first: if it is among the first (max - inUse)
 *                   tickets of the queue: remove it, inUse += 1; else stop
 *                   return how many were granted                      // a prefix of ts
 * dequeue(t):       remove ticket t if it is queued
 * release():        as above; the slot is free for the oldest tickets first
 * </pre>
 *
 * <p>A slot freed while tickets wait is therefore kept for the oldest ticket of the whole queue:
 * nobody takes it but that ticket's {@code claim}. The state tells the limits that hold tickets
 * when a slot may be free for them ({@link #onRelease}), so that they claim at once rather than
 * poll. The defaults keep a count-only state as it was: {@link #queuesWaiters()} false, and the
 * queue's methods unsupported.
 */
public interface ConcurrencyLimitState {

  /**
   * Atomically takes a slot if fewer than {@code max} are in use; otherwise changes nothing.
   *
   * @param max the number of slots, &ge; 1; limits sharing a state pass the same value
   * @return whether a slot was taken
   */
  boolean tryAcquire(int max);

  /**
   * Atomically gives one slot back.
   *
   * @throws IllegalStateException if no slot is in use (and nothing changes)
   */
  void release();

  /**
   * Returns the slots in use.
   *
   * @return a count, &ge; 0
   */
  int inUse();

  /**
   * Whether this state keeps the queue of waiters itself, across every process that shares it (see
   * the class comment): then a {@link dev.relent.guard.ConcurrencyLimit} on it queues its waiters
   * here with {@link #enqueue}, claims slots for them with {@link #claim}, and is woken by {@link
   * #onRelease}. Default false: waiters queue in each limit and poll the count.
   *
   * @return whether {@link #enqueue}, {@link #claim}, {@link #dequeue} and {@link #onRelease} work
   */
  default boolean queuesWaiters() {
    return false;
  }

  /**
   * Atomically takes a slot if fewer than {@code max} are in use beyond the tickets queued;
   * otherwise queues a new ticket at the tail of the queue. Only where {@link #queuesWaiters()}.
   *
   * @param max the number of slots, &ge; 1
   * @return 0 if a slot was taken, otherwise the new ticket (&ge; 1), to be claimed or dequeued
   * @throws UnsupportedOperationException by default
   */
  default long enqueue(int max) {
    throw new UnsupportedOperationException(this + " keeps no queue of waiters");
  }

  /**
   * Atomically takes a slot for each of the first tickets, oldest first, that is among the first
   * {@code max - inUse} tickets of the queue, and removes it from the queue; stops at the first
   * that is not. Only where {@link #queuesWaiters()}.
   *
   * @param tickets tickets of this process, in the order they were queued
   * @param count how many of {@code tickets} to look at, from the first
   * @param max the number of slots, &ge; 1
   * @return how many of the first tickets were granted a slot: {@code tickets[0..result)}
   * @throws UnsupportedOperationException by default
   */
  default int claim(long[] tickets, int count, int max) {
    throw new UnsupportedOperationException(this + " keeps no queue of waiters");
  }

  /**
   * Removes a ticket from the queue (a waiter that gave up or was cancelled); a ticket not queued
   * is ignored. Only where {@link #queuesWaiters()}.
   *
   * @param ticket a ticket {@link #enqueue} returned
   * @throws UnsupportedOperationException by default
   */
  default void dequeue(long ticket) {
    throw new UnsupportedOperationException(this + " keeps no queue of waiters");
  }

  /**
   * Registers a call to make when a slot may have come free for this process's tickets: a slot
   * released anywhere, a ticket ahead of them gone. It may come on any thread, an I/O thread
   * included, and may be lost or come twice: it must return quickly and must not call this state (a
   * limit schedules a {@link #claim} on a thread of its own), and a limit still claims now and then
   * without it. Nothing by default.
   *
   * @param listener what to run
   */
  default void onRelease(Runnable listener) {}

  /**
   * Returns a new in-memory state: one atomic integer, no lock, no allocation per call.
   *
   * @return a new state with no slot in use
   */
  static ConcurrencyLimitState inMemory() {
    return new InMemoryConcurrencyLimitState();
  }
}
