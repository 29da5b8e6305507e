package dev.relent.guard;

import dev.relent.internal.Nanos;

/**
 * What an {@link AdaptivePacer} reads from a server's quota ({@code remaining} requests until
 * {@code reset}): the floor interval until the reset, averaged over the readings, the rate the
 * latest reading allows, the reading before it, and (for {@link Pacer.Congestion#BRACKET}) whether
 * the readings are of a window, whose requests left may be spent at once.
 *
 * <p>Not thread-safe: the pacer calls it under its lock; the floor, its end and the rate are
 * volatile, read without the lock on the reservation path. Allocates nothing.
 */
final class QuotaReading {
  private static final long NEVER = StartHistory.NEVER;

  /**
   * How long before a reading's send another start may have been sent and still reach the server
   * after it (its round trip, up to this): starts sent a few milliseconds apart on a pool of
   * connections arrive in either order, while a server's time to answer reorders nothing.
   */
  static final long REORDER_NANOS = 25_000_000L;

  private final StartHistory starts;
  private final Schedule schedule;
  private final boolean tellsWindows;
  private final WindowLength length;

  private long sentAt = NEVER;
  private long answeredAt = NEVER;
  private long remaining;
  private long resetNanos;
  private long previousSentAt = NEVER;
  private long previousAnsweredAt = NEVER;
  private long previousRemaining;
  private long previousResetNanos;

  /** Whether the readings are of a window (a fixed reset that the requests left count down to). */
  private boolean window;

  /** The end of the latest hold of a window with none left. */
  private long heldUntil = NEVER;

  // Read without the lock.
  private volatile boolean holding;
  private volatile long floorNanos;
  private volatile long until = NEVER;
  private volatile long rateNanos;

  /**
   * A reading of the quota; {@code tellsWindows} with {@link Pacer.Congestion#BRACKET} only, and
   * {@code ownStarts} when every start on the schedule is this pacer's (a window's length is then
   * learned from them, {@link WindowLength}).
   */
  QuotaReading(StartHistory starts, Schedule schedule, boolean tellsWindows, boolean ownStarts) {
    this.starts = starts;
    this.schedule = schedule;
    this.tellsWindows = tellsWindows;
    this.length = tellsWindows && ownStarts ? new WindowLength(starts) : null;
  }

  /**
   * Learns the floor from a reading of the attempt sent at {@code sentAtNanos} ({@code remaining}
   * at least 0, {@code resetNanos} above 0): the requests left, less the starts reserved since, are
   * spread from the start the schedule holds next so that the one after them falls at the reset; a
   * quarter of the new floor goes into the one in force. A window's requests left may be spent at
   * once; with none of a window left, no start booked from then on goes before its reset.
   */
  void read(long sentAtNanos, long answeredAtNanos, long remaining, long resetNanos, long quota) {
    long resetAt = Nanos.saturatedAdd(sentAtNanos, resetNanos);
    holding = false;
    if (length != null) {
      length.readLimit(remaining, quota);
    }
    long newest = starts.newest();
    long span = resetAt - Math.max(sentAtNanos, newest);
    if (span <= 0) {
      return; // the window ended before the next start: nothing to learn
    }
    // The server counted the attempt sent at sentAt, not the starts reserved after it.
    long left = remaining - starts.startsAfter(sentAtNanos);
    if (tellsWindows && inForceAt(sentAtNanos)) {
      // Two readings of one window that name the same reset, within the second a reset stated in
      // whole seconds may be off by, count down to a fixed reset; a reset that moved on does not.
      window = Math.abs(resetAt - until) <= AdaptivePacer.SECOND;
    }
    long interval;
    if (left <= 0 && window) {
      // None of the window left before its reset: the next start after those reserved goes at the
      // reset. The reading says nothing of the spacing after it, so the floor in force stays: a
      // floor of the whole span would space every start booked before the reset a span apart.
      // The reset counts from the answer (a send a round trip before it is too early); a window
      // of whole seconds may end the hold before a reset stated in them (WindowLength).
      long stated = Nanos.saturatedAdd(answeredAtNanos, resetNanos);
      long holdEnd =
          length == null ? stated : length.holdEnd(stated, sentAtNanos, answeredAtNanos, remaining);
      // The starts booked inside the hold are booked again after it.
      starts.dropBetween(answeredAtNanos, holdEnd);
      schedule.holdUntil(holdEnd);
      holding = true;
      heldUntil = Math.max(heldUntil, holdEnd);
      keep(sentAtNanos, answeredAtNanos, remaining, resetNanos);
      return;
    } else if (left <= 0) {
      // A reset that moves on (a bucket's refill): the span until it, a quarter of it going in.
      interval = span;
    } else {
      // The schedule holds the next start one interval (the one it was reserved at) after the
      // newest; from there `left` starts fit before the reset, the one after them at the reset.
      long next =
          newest == NEVER
              ? sentAtNanos
              : Math.max(sentAtNanos, Nanos.saturatedAdd(newest, schedule.lastReservedNanos()));
      long untilReset = resetAt - next;
      if (untilReset <= 0) {
        return; // the next start is due at the reset or later: the reading limits nothing
      }
      // A window's requests left may all be spent before its reset: the server said so.
      interval = window ? 1 : ceilDiv(untilReset, left);
    }
    interval = schedule.clamp(interval);
    // Each answer counts the starts in flight a little differently: a quarter of the reading
    // goes in, so that one noisy count does not swing the rate.
    if (!window && inForceAt(sentAtNanos)) {
      interval = schedule.clamp(floorNanos - floorNanos / 4 + interval / 4);
    }
    floorNanos = interval;
    until = resetAt;
    if (window) {
      // Spent at once: the next start after the newest comes at once too.
      schedule.respaceTo(Math.max(schedule.learnedNanos(), interval));
    }
    keep(sentAtNanos, answeredAtNanos, remaining, resetNanos);
  }

  /**
   * Keeps the reading: the rate it allows from its send on, and the reading before it, for a
   * throttle of the attempt that carried this one (the executor reports the quota first).
   */
  private void keep(long sentAtNanos, long answeredAtNanos, long remaining, long resetNanos) {
    rateNanos = schedule.clamp(resetNanos / (remaining + 1));
    if (sentAtNanos != sentAt) {
      previousSentAt = sentAt;
      previousAnsweredAt = answeredAt;
      previousRemaining = this.remaining;
      previousResetNanos = this.resetNanos;
    }
    sentAt = sentAtNanos;
    answeredAt = answeredAtNanos;
    this.remaining = remaining;
    this.resetNanos = resetNanos;
  }

  /**
   * The reset of the last reading read before the start sent at {@code sentAtNanos} if that reading
   * still allowed it, else -1: this pacer's starts that the reading may not have counted, that one
   * included, were no more than its remaining. Those are the starts after the reading's send and
   * those sent up to one of its round trips before it, at most {@link #REORDER_NANOS}, which may
   * have reached the server after it (the reading's own start not counted). A reading of that
   * start's own answer does not count.
   */
  long resetAllowing(long sentAtNanos) {
    long readAt = sentAt;
    long roundTrip = answeredAt - sentAt;
    long left = remaining;
    long reset = resetNanos;
    if (readAt == sentAtNanos) {
      // The throttle's own answer carried a quota: the one read before it is what allowed it.
      readAt = previousSentAt;
      roundTrip = previousAnsweredAt - previousSentAt;
      left = previousRemaining;
      reset = previousResetNanos;
    }
    if (readAt == NEVER
        || sentAtNanos <= readAt
        || sentAtNanos >= Nanos.saturatedAdd(readAt, reset)) {
      return -1;
    }
    long reorder = Math.min(roundTrip, REORDER_NANOS);
    long uncounted =
        reorder > 0
            ? starts.startsBetween(readAt > NEVER + reorder ? readAt - reorder : NEVER, sentAtNanos)
                - 1
            : starts.startsBetween(readAt, sentAtNanos);
    return uncounted > left ? -1 : reset;
  }

  /** Whether the last reading was of a window with none left, which holds the starts after it. */
  boolean holding() {
    return holding;
  }

  /** A refusal of the start sent at {@code sentAtNanos}. */
  void refused(long sentAtNanos) {
    if (length != null) {
      length.refused(sentAtNanos);
    }
  }

  /**
   * Whether the refusal of the start sent at {@code sentAtNanos} is the window's: it was sent
   * before the end of a hold of a window with none left (booked while the answers that filled the
   * window were on their way), and the pacer holds its starts until the window lets one go, so the
   * rate it learned need not fall.
   */
  boolean explainsRefusal(long sentAtNanos) {
    return window && length != null && sentAtNanos < heldUntil;
  }

  /** Whether the floor is in force at {@code t}: a reading was read and its reset is later. */
  boolean inForceAt(long t) {
    long end = until;
    return end != NEVER && t < end;
  }

  /** The floor interval until the reset; read it only while {@link #inForceAt} holds. */
  long floorNanos() {
    return floorNanos;
  }

  /** The rate the latest reading allows, as an interval: {@code reset / (remaining + 1)}. */
  long rateNanos() {
    return rateNanos;
  }

  /** The reset of the latest reading, 0 before any. */
  long resetNanos() {
    return resetNanos;
  }

  /** {@code a / b} rounded up, for {@code a >= 0} and {@code b > 0}. */
  static long ceilDiv(long a, long b) {
    return a / b + (a % b == 0 ? 0 : 1);
  }
}
