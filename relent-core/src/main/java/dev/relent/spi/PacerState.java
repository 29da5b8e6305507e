package dev.relent.spi;

import dev.relent.time.Ticker;

/**
 * Where a {@link dev.relent.guard.Pacer} keeps its schedule: in memory by default, or in a store
 * such as Redis so that many processes share one start rate. Implementations must make each method
 * one atomic operation (in Redis: one Lua script, one round trip) and must be thread-safe.
 *
 * <p>The state is four numbers: the theoretical arrival time {@code tat} (GCRA, virtual
 * scheduling), the start time of the newest reservation {@code lastStart} with the number of live
 * reservations at that start {@code lastStartCount}, and {@code pausedUntil}. Initially {@code
 * tat}, {@code lastStart} and {@code pausedUntil} are {@link Long#MIN_VALUE} ("never") and the
 * count is 0. Every store implements the same pure functions, given here as {@link #earliestStart}
 * and {@link #nextTheoreticalArrival}, so that a store can be tested against the in-memory one:
 *
 * <pre>
 * reserve(now, T, tau, maxWait):
 *   start = earliestStart(tat, pausedUntil, now, tau)      // max(now, pausedUntil, tat - tau)
 *   wait  = start - now                                     // saturating
 *   if wait &gt; maxWait: return -wait                     // nothing changes
 *   tat = nextTheoreticalArrival(tat, start, T)             // max(tat, start) + T
 *   if start == lastStart: lastStartCount += 1 else: lastStart = start; lastStartCount = 1
 *   return wait
 *
 * refund(reservedAt, T):
 *   if reservedAt == lastStart and lastStartCount &gt; 0: tat -= T; lastStartCount -= 1
 *
 * pauseUntil(until):  pausedUntil = max(pausedUntil, until)
 * </pre>
 *
 * <p>Why the refund rule is safe: starts are handed out in non-decreasing order, and {@code tat}
 * after n reservations is {@code max over i of (start_i + (n - i + 1) * T)}. Removing the newest
 * reservation, or any one that starts at the same time as the newest (they cannot be told apart),
 * lowers that maximum by at least {@code T}, so rolling {@code tat} back by {@code T} never lets a
 * later start come earlier than the remaining schedule allows. Refunding an older reservation would
 * not be safe, so it is refused: the refund is best effort.
 *
 * <p>All times are readings of the caller's {@link Ticker}. A store shared between processes needs
 * readings that are comparable between them (for example a ticker derived from a synchronised wall
 * clock) or must map them to its own time base; results of {@link #reserve} are durations.
 */
public interface PacerState {

  /**
   * Atomically reserves one start, or refuses without changing anything.
   *
   * @param nowNanos the caller's ticker reading
   * @param intervalNanos the emission interval {@code T}, &gt; 0
   * @param toleranceNanos the burst tolerance {@code tau = (burst - 1) * T}, &ge; 0
   * @param maxWaitNanos the longest wait the caller accepts, &ge; 0
   * @return the wait before the reserved start (&ge; 0), or minus the wait that would have been
   *     needed (&lt; 0) if it exceeds {@code maxWaitNanos}
   */
  long reserve(long nowNanos, long intervalNanos, long toleranceNanos, long maxWaitNanos);

  /**
   * Atomically gives back a reservation that will not be used, if it still starts at the newest
   * reserved start time; otherwise does nothing.
   *
   * @param reservedAtNanos the start time of the reservation: {@code now + wait} at reservation
   * @param intervalNanos the same interval as when it was reserved
   * @return whether the schedule was rolled back
   */
  boolean refund(long reservedAtNanos, long intervalNanos);

  /**
   * Atomically spaces the start after the newest reserved one at a new interval, if {@code
   * reservedAtNanos} is still the newest reserved start: a pacer that learned a shorter interval
   * since that start was reserved lets the next one come sooner, instead of one old interval later.
   * Nothing else changes. The default does nothing (a shared schedule keeps its spacing).
   *
   * @param reservedAtNanos the newest reserved start
   * @param oldIntervalNanos the interval it was reserved at
   * @param newIntervalNanos the interval to space the next start at
   * @return whether the schedule changed
   */
  default boolean respace(long reservedAtNanos, long oldIntervalNanos, long newIntervalNanos) {
    return false;
  }

  /**
   * Atomically raises the pause: no start is reserved before {@code untilNanos}; never lowers it.
   *
   * @param untilNanos a ticker reading
   */
  void pauseUntil(long untilNanos);

  /**
   * Returns the current pause.
   *
   * @return the ticker reading before which no start is reserved, {@link Long#MIN_VALUE} if never
   *     paused
   */
  long pausedUntil();

  /**
   * Shares a learned interval with every pacer on this state: until {@code holdNanos} from now,
   * each reservation uses at least {@code intervalNanos}, whatever interval its caller passes; a
   * later call replaces an earlier one. An adaptive pacer calls it when a throttle makes it slow
   * down, so that on a state shared by many processes (Redis) what one of them learns slows the
   * others at once instead of each learning it from throttles of its own.
   *
   * <p>The default does nothing, which is right for a state of one process: its pacer already
   * reserves at what it learned. A shared state must apply it atomically with the reservations.
   *
   * @param intervalNanos the least interval, &gt; 0
   * @param holdNanos how long it holds, &gt; 0
   */
  default void shareInterval(long intervalNanos, long holdNanos) {}

  /**
   * Returns whether other processes share this state (a store such as Redis): then a pause that a
   * scope of this process takes ({@link dev.relent.guard.ScopeGuards#pauseUntil}) is written here
   * too, so that every process pacing on it waits for the pause.
   *
   * @return false for a state of this process alone, the default
   */
  default boolean isShared() {
    return false;
  }

  /**
   * Atomically updates the rate controller's state that every pacer on this state shares, so that a
   * fleet learns one rate from all of its answers instead of each process from its own: reads the
   * state, passes it to {@code update} with the offset to add to this caller's ticker readings to
   * get the shared clock's, and writes what {@code update} returns, unless another process wrote in
   * between; then it reads again and calls {@code update} again, a few times at most. The
   * controller's times are kept on the shared clock.
   *
   * <p>The default returns null at once without calling {@code update}: a state of one process has
   * nothing to share, and its pacer keeps its controller in memory. A shared state that cannot
   * reach its store, or loses the race too often, returns null as well, so the caller goes on with
   * what it knows.
   *
   * @param update computes the new state from the current one (null if there is none yet, or it
   *     expired); may be called more than once, and must not block
   * @return the state written, or null if nothing was (see above)
   */
  default long[] updateControl(ControlUpdate update) {
    return null;
  }

  /** One step of a shared rate controller: see {@link #updateControl}. */
  @FunctionalInterface
  interface ControlUpdate {
    /**
     * Computes the controller's next state.
     *
     * @param current the shared state, null if there is none yet
     * @param offsetNanos what to add to the caller's ticker readings to get the shared clock's
     * @return the state to write, never null
     */
    long[] apply(long[] current, long offsetNanos);
  }

  /**
   * Returns a new in-memory state: a tiny spin lock around four longs, no allocation per call.
   *
   * @return a new, empty state
   */
  static PacerState inMemory() {
    return new InMemoryPacerState();
  }

  /**
   * The reference function: the earliest start that the schedule allows.
   *
   * @param tat the theoretical arrival time, {@link Long#MIN_VALUE} before the first reservation
   * @param pausedUntil the pause, {@link Long#MIN_VALUE} if none
   * @param nowNanos the caller's ticker reading
   * @param toleranceNanos the burst tolerance, &ge; 0
   * @return {@code max(now, pausedUntil, tat - tolerance)}, the subtraction saturating
   */
  static long earliestStart(long tat, long pausedUntil, long nowNanos, long toleranceNanos) {
    long conforming = tat < Long.MIN_VALUE + toleranceNanos ? Long.MIN_VALUE : tat - toleranceNanos;
    return Math.max(nowNanos, Math.max(pausedUntil, conforming));
  }

  /**
   * The reference function: the theoretical arrival time after a start is reserved.
   *
   * @param tat the theoretical arrival time before it
   * @param startNanos the reserved start
   * @param intervalNanos the emission interval, &gt; 0
   * @return {@code max(tat, start) + interval}, saturating at {@link Long#MAX_VALUE}
   */
  static long nextTheoreticalArrival(long tat, long startNanos, long intervalNanos) {
    long base = Math.max(tat, startNanos);
    return base > Long.MAX_VALUE - intervalNanos ? Long.MAX_VALUE : base + intervalNanos;
  }
}
