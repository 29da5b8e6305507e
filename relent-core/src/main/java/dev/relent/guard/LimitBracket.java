package dev.relent.guard;

/**
 * The rate controller of {@link Pacer.Congestion#BRACKET}: finds a limiter's interval between the
 * fastest pace that held and the slowest gap that was refused, and paces a margin above the refused
 * one. Every refused gap is a lower bound of a token bucket's interval, whatever its burst; a pace
 * that held a few accepts in a row is an upper bound. A window is told from a bucket by its
 * refusals ({@link RefusalSpells}) and paced at the run of accepts it allowed over its time. The
 * rules, with their figures, are in docs/core.md ("How the adaptive pacer learns").
 *
 * <p>Not thread-safe: the {@link AdaptivePacer} calls it under its lock. Allocates only at
 * construction.
 */
final class LimitBracket {
  /** How far above the slowest refused gap the pace stays, and how much a refusal nudges it. */
  static final double MARGIN = 0.03;

  /**
   * Added to the margin above the refused bound: how much earlier than it was sent a start may
   * reach the server (a thread woken late, a connection reused or not), 2 ms.
   */
  static final long JITTER_NANOS = 2_000_000L;

  /** Accepted starts in a row at a pace before it counts as held and a faster one is tried. */
  static final int HOLD = 3;

  /** While the refused bound is far, each held pace is followed by one this much faster. */
  static final double DESCENT = 0.5;

  /** Near the refused bound, each held pace is followed by one at most this much faster. */
  static final double NEAR_STEP = 0.1;

  private static final long NONE = 0;
  private static final long NEVER = StartHistory.NEVER;

  private final long fastest;
  private final long slowest;

  /**
   * Creates a controller whose pace stays between the pacer's bounds.
   *
   * @param fastest the shortest interval it may pace at (the pacer's ceiling), at least 1 ns
   * @param slowest the longest (the pacer's slowest rate)
   */
  LimitBracket(long fastest, long slowest) {
    this.fastest = Math.max(1, fastest);
    this.slowest = Math.max(this.fastest, slowest);
  }

  /** The pace: the interval between starts; 0 while it does not pace. */
  private long interval = NONE;

  /** The fastest interval that held {@value #HOLD} accepts in a row; 0 if none. */
  private long held = NONE;

  /** The slowest refused gap: a lower bound of the limiter's interval, and its evidence. */
  private final RefusedBound refused = new RefusedBound();

  /** When the pace last changed: starts sent before it were sent at another pace. */
  private long changedAt = NEVER;

  /** Accepted starts sent at the current pace, since it was set. */
  private int streak;

  private boolean probing;

  private final AcceptedStarts accepted = new AcceptedStarts();
  private final RefusalSpells spells = new RefusalSpells();

  /** The length of {@link #snapshot()}: the scalar fields, then the ring of accepted starts. */
  static final int SNAPSHOT_LENGTH = 17 + AcceptedStarts.SIZE;

  /** The snapshot of a controller that learned nothing: what {@link #restore} falls back to. */
  private static final long[] FRESH = new LimitBracket(1, 1).snapshot();

  /**
   * Writes everything this controller knows into numbers, so that many processes can keep one
   * controller in a shared store: {@link #restore} of them on any instance with the same bounds
   * continues exactly where this one is. Times in it are on the clock its callers passed.
   */
  long[] snapshot() {
    long[] s = new long[SNAPSHOT_LENGTH];
    s[0] = interval;
    s[1] = held;
    s[3] = changedAt;
    s[4] = streak;
    s[6] = (probing ? 1 : 0) | refused.writeTo(s, 2, 5);
    accepted.writeTo(s, 7, 13, 17);
    spells.writeTo(s, 8, 9, 10, 11, 12, 16);
    s[15] = SNAPSHOT_LENGTH;
    return s;
  }

  /**
   * Continues from a {@link #snapshot()}, or from nothing learned if {@code s} is null or not one
   * (a store's value of another version): then the controller starts afresh, which is safe.
   */
  void restore(long[] s) {
    if (s == null
        || s.length != SNAPSHOT_LENGTH
        || s[15] != SNAPSHOT_LENGTH
        || !AcceptedStarts.readable(s, 13)) {
      s = FRESH;
    }
    interval = Math.max(0, s[0]) == 0 ? NONE : Math.max(fastest, Math.min(slowest, s[0]));
    held = Math.max(0, s[1]);
    changedAt = s[3];
    streak = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s[4]));
    probing = (s[6] & 1) != 0;
    refused.readFrom(s, 2, 5, s[6]);
    accepted.readFrom(s, 7, 13, 17);
    spells.readFrom(s, 8, 9, 10, 11, 12, 16);
  }

  /** The interval to pace at, or 0 while the controller does not pace. */
  long interval() {
    return interval;
  }

  /** The slowest refused gap, a lower bound of the limiter's interval; 0 if none yet. */
  long refusedBound() {
    return refused.value();
  }

  /** The fastest interval that held; 0 if none. */
  long heldBound() {
    return held;
  }

  /** An answer to the start sent at {@code sentAt} that was not a throttle. */
  void onAccepted(long sentAt) {
    accepted.add(sentAt);
    if (spells.onAccepted(sentAt, interval)) {
      // A run of accepts, then a long refusal, then accepts again: a window, whose rate is the
      // run's accepts over the time from the run's start to now. It opened at most one probe
      // interval before now: the pace may be that much faster, which the bracket finds.
      int run = spells.endedRun();
      long runStart = spells.endedRunStart();
      long pace = Math.max(1, (sentAt - runStart) / run);
      long opened = Math.max(runStart + 1, sentAt - interval);
      held = pace;
      refused.measuredByWindow(Math.max(1, (opened - runStart) / run));
      setInterval(pace, sentAt);
    }
    if (interval == NONE || sentAt < changedAt) {
      return;
    }
    streak++;
    // Far above the refused bound two accepts in a row (one gap at the pace) are enough to go
    // on; near it, a few.
    boolean far = refused.value() == NONE || interval * DESCENT >= refused.floor();
    if (streak < (far ? 2 : HOLD)) {
      return;
    }
    if (probing) {
      // The probe held: the limit is faster than the refused bound said.
      probing = false;
      refused.probeHeld(interval);
    }
    if (held == NONE || interval < held) {
      held = interval;
    }
    long floor = refused.floor();
    if (floor >= held) {
      // Bracketed: wait for patience before probing below the refused bound.
      if (streak >= refused.patience()) {
        probing = true;
        setInterval(Math.max(1, (long) (held * (1 - MARGIN))), sentAt);
      }
      return;
    }
    long next;
    if (refused.value() == NONE || held * DESCENT >= floor) {
      next = (long) (held * DESCENT);
    } else {
      // Near the bound: halfway to it, but no more than a tenth faster at a time, since a refusal
      // (and the pause its Retry-After may bring) costs more than a slightly slow pace.
      next = Math.max(floor + (held - floor) / 2, (long) (held * (1 - NEAR_STEP)));
    }
    if (held - next <= held * MARGIN) {
      next = floor;
    }
    setInterval(Math.max(floor, Math.max(1, next)), sentAt);
  }

  /**
   * A throttled answer to the start sent at {@code sentAt}, answered at {@code now}.
   *
   * @return whether the pace slowed by more than a nudge (the schedule's booked starts were booked
   *     at a pace now known to be too fast)
   */
  boolean onThrottled(long sentAt, long now) {
    spells.onThrottled(sentAt);
    long before = accepted.before(sentAt);
    long gap = before == NEVER ? 0 : sentAt - before;
    if (interval != NONE && gap > twice(interval)) {
      // Long after the last accept: a window closed, not a bucket's bound.
      gap = 0;
    }
    if (interval == NONE) {
      refused.guess(gap);
      setInterval(Math.max(accepted.firstPace(sentAt), refused.floor()), now);
      return true;
    }
    if (sentAt < changedAt) {
      // Sent at an earlier pace, which this one already answers; its gap still bounds the limit.
      refused.raise(Math.min(gap, interval));
      return false;
    }
    boolean wasProbe = probing;
    probing = false;
    // A start sent at this pace was refused: the bound is measured, and the more so when another
    // refusal measured it too.
    refused.measure(Math.min(gap, interval));
    if (wasProbe) {
      // The refused bound holds: back to the pace that held, more patient next time.
      refused.probeMissed();
      setInterval(Math.max(held, refused.floor()), now);
      return false;
    }
    if (held != NONE && held > interval) {
      // Faster than the pace that held: back to it.
      setInterval(Math.max(held, refused.floor()), now);
      return true;
    }
    if (streak >= HOLD) {
      // This pace held, then one start was refused: just above the limit. Nudge.
      long nudged = Math.max(interval + 1, (long) (interval * (1 + MARGIN)));
      held = nudged;
      setInterval(nudged, now);
      return false;
    }
    // Refused before it held: too fast, whatever held before (a burst's tokens).
    held = NONE;
    setInterval(Math.max(twice(interval), (long) (refused.value() * (1 + 2 * MARGIN))), now);
    return true;
  }

  private void setInterval(long next, long now) {
    interval = Math.max(fastest, Math.min(slowest, next));
    changedAt = now;
    streak = 0;
  }

  private static long twice(long nanos) {
    return nanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * nanos;
  }
}
