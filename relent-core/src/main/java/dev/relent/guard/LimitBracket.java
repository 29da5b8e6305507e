package dev.relent.guard;

/**
 * The rate controller of {@link Pacer.Congestion#BRACKET}: finds a limiter's interval between the
 * fastest pace that held and the slowest gap that was refused, and paces just above the refused
 * one.
 *
 * <p>A token bucket refuses a start only when no token is left: the start came less than one
 * interval after the previous accepted one, so every refused gap (from the accepted start before
 * it) is a lower bound of the limiter's interval, whatever its burst. A pace at which a few starts
 * in a row are accepted is an upper bound worth keeping. The controller descends from the pace that
 * held towards the refused bound (halving while far from it, near it halfway to it but at most a
 * tenth at a time), returns to the pace that held when a faster one is refused, and stays a margin
 * above the refused bound. Before anything held it starts at the rate of accepted starts over the
 * last second, never below it (and no slower than one start every 250 ms, when nothing was accepted
 * yet). A pace that held and then sees one refusal is just above the limit (a start reached the
 * server a little early): it slows by a margin. After {@value #PATIENCE} accepts in a row without a
 * refusal it probes a margin below the refused bound, more patiently each time the bound holds. A
 * bound only refusals of unpaced starts gave (a cold client's first requests reach the server late
 * and out of order) is a guess, probed after {@value #WEAK_PATIENCE} accepts; one that a single
 * paced refusal measured (a start may reach the server late on a loaded machine) after {@value
 * #SINGLE_PATIENCE}; either is dropped if the probe holds.
 *
 * <p>A window is told from a bucket by its refusals: a bucket accepts again within one interval, a
 * window refuses for long after a run of accepts. When accepts come again after refusals that
 * lasted longer than a second (from the first refused start to the last: a pause the server asked
 * for is no refusal) and ended a run of {@value #WINDOW_RUN} or more, the pace is the run's accepts
 * over the time from its first start to the first accept after it (the window opened at most one
 * probe before that accept: the refused bound is the run over the time to that probe), and gaps
 * refused long after the last accept bound nothing.
 *
 * <p>Not thread-safe: the {@link AdaptivePacer} calls it under its lock. Allocates only at
 * construction.
 */
final class LimitBracket {
  static final long SECOND = 1_000_000_000L;

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

  /** The first pace when nothing was accepted in the last second: four starts a second. */
  static final long FIRST_NANOS = SECOND / 4;

  /**
   * A run of at least this many accepts, ended by refusals that last longer than a second (and four
   * intervals), then accepts again, is a window: paced at the run over its time.
   */
  static final int WINDOW_RUN = 8;

  /**
   * Accepts in a row at a pace bracketed by a {@link #weak} bound before a faster one is probed.
   */
  static final int WEAK_PATIENCE = 8;

  /** Accepts in a row at a pace bracketed by a bound only one paced refusal measured. */
  static final int SINGLE_PATIENCE = 32;

  /** Accepts in a row at the bracketed pace before a faster one is probed; doubles per miss. */
  static final int PATIENCE = 128;

  private static final int MAX_PATIENCE_DOUBLINGS = 4;
  private static final int ACCEPTED = 64;
  private static final long NONE = 0;
  private static final long NEVER = Long.MIN_VALUE;

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

  /** The slowest refused gap: a lower bound of the limiter's interval; 0 if none. */
  private long refused = NONE;

  /** When the pace last changed: starts sent before it were sent at another pace. */
  private long changedAt = NEVER;

  /** Accepted starts sent at the current pace, since it was set. */
  private int streak;

  /** How many times in a row a probe below the refused bound was refused. */
  private int misses;

  private boolean probing;

  /**
   * Whether the refused bound comes only from refusals of starts this controller did not pace
   * (before it paced at all): their order at the server is not the order they were sent in (a cold
   * client's first requests reach it late and together), so the bound is a guess, probed after
   * {@value #WEAK_PATIENCE} accepts and dropped if the probe holds.
   */
  private boolean weak;

  /**
   * How many refusals of paced starts measured the refused bound (within a tenth of it): one may be
   * a start that reached the server late (a loaded machine), two that agree are the limit.
   */
  private int evidence;

  private long firstAccepted = NEVER;

  /** The accepts since the last refusal, and the first of them. */
  private int runAccepts;

  private long runStart = NEVER;

  /** The first refused start since the last accept; {@link #NEVER} while accepts come. */
  private long refusedSince = NEVER;

  /**
   * The last refused start since the last accept: how long the refusals lasted is the time from the
   * first to it, not to the next accept (a pause the server asked for is no refusal).
   */
  private long lastRefused = NEVER;

  /** The run of accepts that the current refusals ended, and its first start. */
  private int windowRun;

  private long windowRunStart = NEVER;
  private final long[] accepted = new long[ACCEPTED];
  private int acceptedNext;
  private int acceptedSize;

  /** The length of {@link #snapshot()}: the scalar fields, then the ring of accepted starts. */
  static final int SNAPSHOT_LENGTH = 17 + ACCEPTED;

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
    s[2] = refused;
    s[3] = changedAt;
    s[4] = streak;
    s[5] = misses;
    s[6] = (probing ? 1 : 0) | (weak ? 2 : 0) | (long) Math.min(evidence, 1 << 20) << 2;
    s[7] = firstAccepted;
    s[8] = runAccepts;
    s[9] = runStart;
    s[10] = refusedSince;
    s[11] = windowRun;
    s[12] = windowRunStart;
    s[13] = acceptedNext;
    s[14] = acceptedSize;
    s[15] = SNAPSHOT_LENGTH;
    s[16] = lastRefused;
    System.arraycopy(accepted, 0, s, 17, ACCEPTED);
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
        || s[13] < 0
        || s[13] >= ACCEPTED
        || s[14] < 0
        || s[14] > ACCEPTED) {
      s = FRESH;
    }
    interval = Math.max(0, s[0]) == 0 ? NONE : Math.max(fastest, Math.min(slowest, s[0]));
    held = Math.max(0, s[1]);
    refused = Math.max(0, s[2]);
    changedAt = s[3];
    streak = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s[4]));
    misses = (int) Math.max(0, Math.min(MAX_PATIENCE_DOUBLINGS, s[5]));
    probing = (s[6] & 1) != 0;
    weak = (s[6] & 2) != 0;
    evidence = (int) Math.max(0, Math.min(1 << 20, s[6] >> 2));
    firstAccepted = s[7];
    runAccepts = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s[8]));
    runStart = s[9];
    refusedSince = s[10];
    windowRun = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s[11]));
    windowRunStart = s[12];
    acceptedNext = (int) s[13];
    acceptedSize = (int) s[14];
    lastRefused = s[16];
    System.arraycopy(s, 17, accepted, 0, ACCEPTED);
  }

  /** The interval to pace at, or 0 while the controller does not pace. */
  long interval() {
    return interval;
  }

  /** The slowest refused gap, a lower bound of the limiter's interval; 0 if none yet. */
  long refusedBound() {
    return refused;
  }

  /** The fastest interval that held; 0 if none. */
  long heldBound() {
    return held;
  }

  /** An answer to the start sent at {@code sentAt} that was not a throttle. */
  void onAccepted(long sentAt) {
    if (firstAccepted == NEVER) {
      firstAccepted = sentAt;
    }
    accepted[acceptedNext] = sentAt;
    acceptedNext = (acceptedNext + 1) % ACCEPTED;
    acceptedSize = Math.min(ACCEPTED, acceptedSize + 1);
    if (refusedSince != NEVER) {
      long closed = lastRefused - refusedSince;
      refusedSince = NEVER;
      runAccepts = 0;
      if (windowRun >= WINDOW_RUN && closed > Math.max(SECOND, 4 * interval)) {
        // A run of accepts, then a long refusal, then accepts again: a window, whose rate is the
        // run's accepts over the time from the run's start to now. It opened at most one probe
        // interval before now: the pace may be that much faster, which the bracket finds.
        long pace = Math.max(1, (sentAt - windowRunStart) / windowRun);
        long opened = Math.max(windowRunStart + 1, sentAt - interval);
        held = pace;
        refused = Math.max(1, (opened - windowRunStart) / windowRun);
        weak = false;
        evidence = 2; // the whole run measured it
        setInterval(pace, sentAt);
      }
    }
    if (runAccepts++ == 0) {
      runStart = sentAt;
    }
    if (interval == NONE || sentAt < changedAt) {
      return;
    }
    streak++;
    // Far above the refused bound two accepts in a row (one gap at the pace) are enough to go
    // on; near it, a few.
    boolean far = refused == NONE || interval * DESCENT >= floor();
    if (streak < (far ? 2 : HOLD)) {
      return;
    }
    if (probing) {
      // The probe held: the limit is faster than the refused bound said. A guessed bound is
      // dropped, so that the pace descends again until a paced start is refused.
      probing = false;
      misses = 0;
      refused = weak || evidence < 2 ? NONE : Math.min(refused, interval);
      weak = false;
      evidence = 0;
    }
    if (held == NONE || interval < held) {
      held = interval;
    }
    long floor = floor();
    if (floor >= held) {
      // Bracketed: wait for patience before probing below the refused bound.
      if (streak >= patience()) {
        probing = true;
        setInterval(Math.max(1, (long) (held * (1 - MARGIN))), sentAt);
      }
      return;
    }
    long next;
    if (refused == NONE || held * DESCENT >= floor) {
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
    if (refusedSince == NEVER) {
      refusedSince = sentAt;
      lastRefused = sentAt;
      windowRun = runAccepts;
      windowRunStart = runStart;
    }
    lastRefused = Math.max(lastRefused, sentAt);
    long before = previousAccepted(sentAt);
    long gap = before == NEVER ? 0 : sentAt - before;
    if (interval != NONE && gap > twice(interval)) {
      // Long after the last accept: a window closed, not a bucket's bound.
      gap = 0;
    }
    if (interval == NONE) {
      refused = Math.max(refused, gap);
      weak = true;
      setInterval(Math.max(firstPace(sentAt), floor()), now);
      return true;
    }
    if (sentAt < changedAt) {
      // Sent at an earlier pace, which this one already answers; its gap still bounds the limit.
      refused = Math.max(refused, Math.min(gap, interval));
      return false;
    }
    boolean wasProbe = probing;
    probing = false;
    long bound = Math.min(gap, interval);
    if (gap > 0) {
      // A start sent at this pace was refused: the bound is measured, and the more so when
      // another refusal measured it too.
      evidence =
          weak || bound > refused * (1 + NEAR_STEP)
              ? 1
              : bound >= refused * (1 - NEAR_STEP) ? evidence + 1 : evidence;
      weak = false;
    }
    refused = Math.max(refused, bound);
    if (wasProbe) {
      // The refused bound holds: back to the pace that held, more patient next time.
      misses = Math.min(MAX_PATIENCE_DOUBLINGS, misses + 1);
      setInterval(Math.max(held, floor()), now);
      return false;
    }
    if (held != NONE && held > interval) {
      // Faster than the pace that held: back to it.
      setInterval(Math.max(held, floor()), now);
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
    setInterval(Math.max(twice(interval), (long) (refused * (1 + 2 * MARGIN))), now);
    return true;
  }

  /**
   * The first pace, at the first refusal (of the start sent at {@code sentAt}): the rate of the
   * starts of the last second, the accepted ones and the refused one, when this controller has
   * heard answers for a whole second; before that (a burst at the start), the accepted ones over a
   * second, but no slower than {@link #FIRST_NANOS}.
   */
  private long firstPace(long sentAt) {
    int recent = acceptedAfter(sentAt - SECOND);
    if (firstAccepted != NEVER && firstAccepted <= sentAt - SECOND) {
      return SECOND / (recent + 1);
    }
    return recent == 0 ? FIRST_NANOS : Math.min(FIRST_NANOS, SECOND / recent);
  }

  private long floor() {
    return refused == NONE ? 1 : (long) (refused * (1 + MARGIN)) + JITTER_NANOS;
  }

  private long patience() {
    return (long) (weak ? WEAK_PATIENCE : evidence < 2 ? SINGLE_PATIENCE : PATIENCE) << misses;
  }

  private void setInterval(long next, long now) {
    interval = Math.max(fastest, Math.min(slowest, next));
    changedAt = now;
    streak = 0;
  }

  private static long twice(long nanos) {
    return nanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * nanos;
  }

  /** The newest accepted start sent before {@code sentAt}, or {@link #NEVER}. */
  private long previousAccepted(long sentAt) {
    long best = NEVER;
    for (int i = 0; i < acceptedSize; i++) {
      long t = accepted[i];
      if (t < sentAt && t > best) {
        best = t;
      }
    }
    return best;
  }

  private int acceptedAfter(long t) {
    int n = 0;
    for (int i = 0; i < acceptedSize; i++) {
      if (accepted[i] > t) {
        n++;
      }
    }
    return n;
  }
}
