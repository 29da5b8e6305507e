package dev.relent.guard;

/**
 * The rounds by which the AIMD and CUBIC {@link RateController}s fall: a round is the starts since
 * the previous round up to the first refused one; the refusals of its starts answered after the
 * first say the share of it that was refused. A start reserved after the round's decrease belongs
 * to the next one.
 *
 * <p>Not thread-safe: the pacer calls it under its lock. Allocates nothing.
 */
final class ThrottleRounds {
  private static final long NEVER = StartHistory.NEVER;

  /** A round of fewer starts than this is short: its share refused counts only after another. */
  static final long SHORT_ROUND = 8;

  /** What a refusal is to the rounds. */
  enum Refusal {
    /** The first refusal of a new round: {@link #begin} it. */
    NEW_ROUND,
    /** Another refusal of the current round, counted: it may lower the rate further. */
    SAME_ROUND,
    /** A start reserved before the decrease that answered it: nothing to learn. */
    ANSWERED
  }

  private long start = NEVER;
  private long end = NEVER;
  private long measureEnd = NEVER;
  private double base;
  private long starts;
  private long throttles;
  private boolean lastShort;

  /** What the refusal of the start sent at {@code sentAt} is; counts it if of the same round. */
  Refusal classify(long sentAt) {
    if (end == NEVER || sentAt > end) {
      return Refusal.NEW_ROUND;
    }
    if (sentAt > start && sentAt <= measureEnd) {
      throttles++;
      return Refusal.SAME_ROUND;
    }
    return Refusal.ANSWERED;
  }

  /**
   * Begins the round that the start sent at {@code sentAt} and answered at {@code now} ends, sent
   * at {@code base} starts a second, with {@code count} starts in it ({@code newest} the newest
   * start reserved by now). One short round refused may be a late start bunching with the next; two
   * in a row are a trend: until then the round counts as one start, the factor alone.
   */
  void begin(double base, long sentAt, long now, long newest, long count) {
    this.base = base;
    start = end;
    measureEnd = sentAt;
    end = Math.max(now, newest);
    boolean shortRound = count < SHORT_ROUND;
    starts = shortRound && !lastShort ? 1 : count;
    lastShort = shortRound;
    throttles = 1;
  }

  /** The end of the round the latest decrease corrects: every start reserved by {@code t}. */
  void extendTo(long t) {
    end = Math.max(end, t);
  }

  /** The end of the latest round: a new round's starts are those after it ({@link #NEVER}: all). */
  long previousEnd() {
    return end;
  }

  /** The rate the current round was sent at, in starts a second. */
  double base() {
    return base;
  }

  /** The starts the current round counts. */
  long starts() {
    return starts;
  }

  /** The refusals of the current round so far. */
  long throttles() {
    return throttles;
  }

  /** The share of the current round's starts not refused, at least one start's. */
  double acceptedShare() {
    return Math.max(1, starts - throttles) / (double) starts;
  }
}
