package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.spi.PacerState;

/**
 * An {@link AdaptivePacer}'s schedule: the bounds of its intervals, the two it publishes (the one
 * its controller learned, always {@code max(ceiling, min(slowest, learned))}, and the one its
 * newest start was reserved at), and the booked starts spaced again at a new interval on its {@link
 * PacerState}.
 *
 * <p>Written under the pacer's lock, read without it on the reservation path: both published
 * intervals are volatile. Allocates nothing.
 */
final class Schedule {
  /**
   * How many of the new interval a decrease is shared for ({@link PacerState#shareInterval}): about
   * the answers AIMD needs to win back most of the rate it fell from.
   */
  static final long SHARED_HOLD = 16;

  private final long ceilingNanos;
  private final long slowestNanos;
  private final PacerState state;
  private final StartHistory starts;
  private volatile long learnedNanos;
  private volatile long lastReservedNanos;

  /** Starts at the ceiling (the shortest interval; 0 or 1 for none), paced or not. */
  Schedule(long ceilingNanos, long slowestNanos, PacerState state, StartHistory starts) {
    this.ceilingNanos = ceilingNanos;
    this.state = state;
    this.starts = starts;
    this.slowestNanos = slowestNanos;
    this.learnedNanos = ceilingNanos;
    this.lastReservedNanos = ceilingNanos;
  }

  /** Never faster than the ceiling, never slower than the slowest rate. */
  long clamp(long interval) {
    return Math.max(ceilingNanos, Math.min(slowestNanos, interval));
  }

  long ceilingNanos() {
    return ceilingNanos;
  }

  /** The slowest rate, in starts per second. */
  double slowestRate() {
    return (double) AdaptivePacer.SECOND / slowestNanos;
  }

  /** The controller's interval, bounded. */
  long learnedNanos() {
    return learnedNanos;
  }

  /** Publishes the controller's interval, bounded; 0 or less for none yet: the ceiling. */
  void learn(long intervalNanos) {
    learnedNanos = intervalNanos > 0 ? clamp(intervalNanos) : ceilingNanos;
  }

  /**
   * How long a caller waits before it books: until half an interval after the {@code newest} booked
   * start, so that each start is spaced at the interval learned by then (the newest start's answer
   * included, on a server that answers within half an interval), never a queue of starts booked at
   * an old one. 0 when nothing is booked, or while it does not pace: the newest start is then a
   * nanosecond ahead at most (on a clock that stands still, as a test's may, waiting for it would
   * never end).
   */
  long deferNanos(long newest, long nowNanos) {
    long half = learnedNanos / 2;
    if (half == 0 || newest == StartHistory.NEVER) {
      return 0;
    }
    long at = Nanos.saturatedAdd(newest, half);
    return at <= nowNanos ? 0 : at - nowNanos;
  }

  /** The interval the newest start was reserved at: the schedule spaced the next one so. */
  long lastReservedNanos() {
    return lastReservedNanos;
  }

  void reservedAt(long intervalNanos) {
    lastReservedNanos = intervalNanos;
  }

  /**
   * After a decrease: a state shared with other processes slows them too, and the starts booked at
   * the old interval are booked again at the new one.
   */
  void shareAndRespace() {
    long newest = starts.newest();
    long learned = learnedNanos;
    share(learned);
    if (newest != StartHistory.NEVER) {
      // The schedule spaced the next start from the newest at the old interval: the new one
      // counts from there too.
      state.pauseUntil(Nanos.saturatedAdd(newest, learned));
    }
  }

  /**
   * Every reservation on a shared state uses at least {@code interval}: for as long as the pacer
   * would take to win the rate back (AIMD: about {@value #SHARED_HOLD} answers at it), and at least
   * a second. A state of one process ignores it.
   */
  void share(long interval) {
    state.shareInterval(
        interval,
        Math.max(
            AdaptivePacer.SECOND,
            interval > Long.MAX_VALUE / SHARED_HOLD ? Long.MAX_VALUE : interval * SHARED_HOLD));
  }

  /**
   * The next start comes one {@code interval} after the newest reserved one, not one of the
   * interval it was reserved at, when that was longer ({@link PacerState#respace}).
   */
  void respaceTo(long interval) {
    if (interval < lastReservedNanos) {
      respace(interval);
    }
  }

  /** Spaces the start after the newest reserved one at {@code interval}. */
  void respace(long interval) {
    long newest = starts.newest();
    if (newest != StartHistory.NEVER && state.respace(newest, lastReservedNanos, interval)) {
      lastReservedNanos = interval;
    }
  }

  /**
   * No start booked from now on goes before {@code untilNanos}: a quota with none left until its
   * reset. The starts booked before stay where they are.
   */
  void holdUntil(long untilNanos) {
    state.pauseUntil(untilNanos);
  }

  /** The interval of a rate in starts per second, rounded up to the next nanosecond. */
  static long intervalOf(double perSecond) {
    if (!(perSecond > 0)) {
      return Long.MAX_VALUE;
    }
    double nanos = Math.ceil(AdaptivePacer.SECOND / perSecond);
    return nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1L, (long) nanos);
  }
}
