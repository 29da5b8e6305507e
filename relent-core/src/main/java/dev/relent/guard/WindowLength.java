package dev.relent.guard;

import dev.relent.internal.Nanos;

/**
 * When a quota window with none left lets the next start go, to the millisecond rather than to the
 * whole second its reset is stated in.
 *
 * <p>A window's reset is its oldest counted request plus its length, whether it slides (a log of
 * the requests served in the last length) or opens at the first request after the last one closed.
 * On a pacer's own schedule that request is one of its starts: the {@code limit}-th newest that was
 * not refused. A reset stated in whole seconds is up to a second after the true one, and a window
 * that starts on it is then a second late at every turn; but windows are whole seconds long (a
 * second, a minute, an hour), so the true reset is that start plus the whole seconds up to the
 * stated one. The guess is tried {@value #GUESSES} times at most: a start it let go that the server
 * refused says the window is not whole seconds long, and the stated reset governs again. A pacer's
 * first window is not guessed: a cold client's first request reaches the server late.
 *
 * <p>Not thread-safe: the pacer calls it under its lock. Allocates nothing.
 */
final class WindowLength {
  private static final long NEVER = StartHistory.NEVER;

  /** A window's length is a whole number of these. */
  static final long SECOND = AdaptivePacer.SECOND;

  /** Added to a guessed reset: the sends of a window's starts spread by a few milliseconds. */
  static final long MARGIN = 20_000_000L;

  /** Refused guesses after which the stated reset governs. */
  static final int GUESSES = 2;

  private final StartHistory starts;
  private long limit;
  private long guessedFrom = NEVER;
  private long statedUntil = NEVER;
  private int refusedGuesses;

  WindowLength(StartHistory starts) {
    this.starts = starts;
  }

  /**
   * Reads the limit: {@code quota} when the server stated it, else the most seen {@code remaining},
   * plus one (the window's first request leaves all but one).
   */
  void readLimit(long remaining, long quota) {
    limit = quota > 0 ? quota : Math.max(limit, remaining + 1);
  }

  /**
   * A refusal of the start sent at {@code sentAtNanos}: it is not counted in the window, and if a
   * guess let it go before the stated reset, the guess was wrong.
   */
  void refused(long sentAtNanos) {
    if (limit <= 0) {
      return; // no quota read: nothing is counted here
    }
    starts.refused(sentAtNanos);
    // A start of the guessed window's first `limit` is the guess's; one after them, the window's.
    if (guessedFrom != NEVER
        && sentAtNanos >= guessedFrom
        && sentAtNanos < statedUntil
        && starts.startsBetween(guessedFrom - 1, sentAtNanos - 1) < limit) {
      refusedGuesses++;
      guessedFrom = NEVER;
    }
  }

  /**
   * When the start after the newest booked one may go, with none of the window left: the oldest of
   * the window's booked starts (the {@code limit}-th newest) plus the window's length, plus {@link
   * #MARGIN}. The length is the whole seconds from the oldest start the reading of the start sent
   * at {@code sentAtNanos} counted ({@code remaining} left) to {@code statedResetNanos}, the reset
   * it stated, measured from the answer. The stated reset governs when the length is under a
   * second, when the window is the pacer's first, or after {@value #GUESSES} wrong guesses.
   */
  long holdEnd(long statedResetNanos, long sentAtNanos, long answeredAtNanos, long remaining) {
    if (limit <= 0 || refusedGuesses >= GUESSES || remaining >= limit) {
      return statedResetNanos;
    }
    // Starts sent up to a round trip after this one may have reached the server before it and
    // been counted (QuotaReading.REORDER_NANOS at most), and its own may be booked a little late.
    long reorder = Math.min(Math.max(0, answeredAtNanos - sentAtNanos), QuotaReading.REORDER_NANOS);
    long sent = Nanos.saturatedAdd(sentAtNanos, Math.max(reorder, StartHistory.BOOKED_LATE_NANOS));
    long counted = starts.nthNewestUpTo(sent, limit - remaining);
    long oldest = starts.nthNewestUpTo(Long.MAX_VALUE, limit);
    if (counted == NEVER || oldest == NEVER || starts.nthNewestUpTo(oldest - 1, 1) == NEVER) {
      return statedResetNanos; // the window's starts are not all remembered, or it is the first
    }
    // The true reset is within the second before the stated one, and a start reaches the server
    // up to MARGIN after its send: the fewest whole seconds that fit.
    long whole = Math.floorDiv(statedResetNanos - counted - SECOND - MARGIN, SECOND) + 1;
    if (whole < 1) {
      return statedResetNanos;
    }
    // A window that opens at its first request ends a length after the oldest counted; a sliding
    // one lets the next start go a length after the oldest booked of the last `limit`.
    guessedFrom = Nanos.saturatedAdd(Math.max(counted, oldest), whole * SECOND + MARGIN);
    statedUntil = Math.max(statedResetNanos, guessedFrom + SECOND);
    return guessedFrom;
  }
}
