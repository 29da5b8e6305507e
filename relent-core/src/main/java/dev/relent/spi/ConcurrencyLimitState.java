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
 * <p>Only the count is shared. The queue of callers waiting for a slot stays in each process, in
 * its {@link dev.relent.guard.ConcurrencyLimit}: a shared state bounds the calls of the whole
 * fleet, and a slot given back in one process wakes that process's waiters at once, while a slot
 * given back elsewhere is noticed only when a local waiter polls (see {@link
 * dev.relent.guard.ConcurrencyLimit.Builder#withState}). A slot taken by a process that dies
 * without giving it back stays taken: the count cannot tell whose it is, so a store that must
 * survive crashes needs leases with an expiry, which this interface does not model.
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
   * Returns a new in-memory state: one atomic integer, no lock, no allocation per call.
   *
   * @return a new state with no slot in use
   */
  static ConcurrencyLimitState inMemory() {
    return new InMemoryConcurrencyLimitState();
  }
}
