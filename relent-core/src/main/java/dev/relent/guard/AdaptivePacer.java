package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.internal.SpinLocked;
import dev.relent.spi.PacerState;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The adaptive {@link Pacer}: GCRA over a {@link PacerState} like {@link PacerImpl}, with an
 * interval that this object learns.
 *
 * <p>What it learns from, first to last:
 *
 * <ol>
 *   <li>A quota ({@link #observeQuota}): {@code remaining} requests may start before the reset,
 *       {@code reset} after the attempt was sent, less the starts reserved since (the server had
 *       not counted them); the request after them may start at the reset, when the quota is back.
 *       They are spread evenly from the start the schedule already holds, one interval after the
 *       newest reserved, so that the one after them falls at the reset: after a start at 0, "9 left
 *       until 1 s" is one start every 100 ms (9 before the reset, the tenth at it), and "1 left
 *       until 1 s" one start at 100 ms, then none before 1 s. A reset, stated in whole seconds, is
 *       rounded up by the server, so the true one is no later and the count still holds. A quarter
 *       of each new reading is averaged into the last. That interval is a floor until the reset:
 *       the pacer is never faster than the quota allows, whatever the controller says. A quota that
 *       promises more than the server gives (one that lies, or one that does not count another
 *       caller on the account) is corrected by the controller, since the slower of the two governs.
 *   <li>Another caller on the account, told in three ways. From the server's policy ({@code quota}
 *       per {@code window}, {@link #observeQuota(long, long, long, long, long)}): a reading that
 *       counts more of the quota spent ({@code quota - remaining}) than this pacer started in the
 *       window, or a refused start before this pacer started {@code quota} in it. Its own starts
 *       are counted over the window and a quarter before the attempt (a start a little older may
 *       have reached the server a little later) and every start after it, and only when all of
 *       those are remembered ({@value #RECENT}); without a stated window, every start, as long as
 *       none is forgotten. A token bucket, a fixed or a sliding window with that policy never
 *       counts more than those, nor refuses before them, for this pacer alone. And without a
 *       policy: a throttle of a start that the last quota read before it still allowed (this
 *       pacer's own starts since that reading's send, the refused one included, no more than its
 *       remaining). From then on the pacer leaves {@value #SHARED_HEADROOM} of the policy's rate
 *       ({@code quota / window}), or of the quota's ({@code (remaining + 1) / reset} of the latest
 *       reading, while it is in force), unused: the margin of the 90/min operating target on a
 *       limit of 120/min, so that the account's limiter fills up again for the other caller's
 *       bursts instead of refusing them. It holds for {@value #SHARED_QUOTA_HOLD} of the policy's
 *       windows (or of the quota's resets), or twice the time since the other caller was last seen
 *       if longer (a caller that comes back every 30 s keeps it). A refusal that the other caller's
 *       spending explains does not lower the learned rate, since the headroom answers it; one is
 *       excused per window, and a second in the same window says that the limit is lower than
 *       stated and lowers it. A pacer whose {@link PacerState} is shared with other processes
 *       cannot tell their starts from a stranger's, and ignores the policy.
 *   <li>Throttles ({@link #onThrottled}), by round. A round is the starts since the previous round
 *       up to the first one refused; the rate falls to the controller's factor times the rate the
 *       round was sent at times the share of it not refused (one refused of 60 costs little more
 *       than the factor, one of two halves the rate as well). A round of fewer than {@value
 *       #SHORT_ROUND} starts counts its share only when the round before was short too: one start
 *       that reached the server late bunches with the next as easily as a rate above the limit,
 *       while short rounds in a row are a trend. A further refusal of a start of the same round
 *       lowers the rate by its share again; a refusal of a start reserved later, but before the
 *       decrease, lowers nothing: that decrease answered it. The rate the round was sent at is the
 *       learned rate while the pacer set the pace (its last start waited), else {@code min(learned
 *       rate, measured send rate)}, measured as the AWS SDKs measure it (starts per 0.5 s, smoothed
 *       0.8/0.2). Before the pacer paces at all (no ceiling, no signal yet) the starts went out as
 *       fast as they came: how many a limiter refused says how much it holds, not its rate, so the
 *       first fall is from the send rate (the larger of the smoothed one and the starts of the last
 *       half second) by the factor alone, as the AWS SDKs fall. After a decrease the starts
 *       reserved at the old rate are reserved again: the pacer holds the next start, as a pause,
 *       until one new interval after the newest reserved start.
 *   <li>Answers that were not throttles ({@link #onAccepted}) grow the rate as the {@link
 *       Pacer.Congestion} says, never above twice the measured send rate (a rate nobody uses proves
 *       nothing).
 * </ol>
 *
 * <p>The interval used is {@code max(ceiling, min(slowest, learned))}: never faster than the
 * ceiling, never slower than the slowest rate. A pause ({@link #pauseUntil}) works as in every
 * pacer; since GCRA spaces the starts after it at the learned interval, callers released by a pause
 * start one interval apart, never all at once.
 *
 * <p>Thread-safe: the learned numbers change under a spin lock held for a few arithmetic
 * operations; {@link #tryAcquire} reads the interval from volatile fields before the state's own
 * atomic reservation. Nothing is allocated after construction. The learned rate is this process's
 * own; a shared {@link PacerState} shares the schedule, not what was learned.
 */
final class AdaptivePacer extends SpinLocked implements Pacer {
  static final long SECOND = 1_000_000_000L;

  /**
   * How many of the new interval a decrease is shared for ({@link PacerState#shareInterval}): about
   * the answers AIMD needs to win back most of the rate it fell from.
   */
  static final long SHARED_HOLD = 16;

  /** CUBIC's multiplicative decrease and scale constant, as in the AWS SDKs. */
  static final double CUBIC_BETA = 0.7;

  static final double CUBIC_C = 0.4;

  /** AIMD: the decrease, relative to the rate the round was refused at. */
  static final double AIMD_BETA = 0.9;

  /** AIMD: how close below the refused rate the recovery goes, as a share of that rate. */
  static final double AIMD_MARGIN = 0.02;

  /** AIMD: the recovery per answer, as a share of the refused rate. */
  static final double AIMD_RECOVERY_PER_ANSWER = 0.01;

  /**
   * AIMD: the probe's growth per answer, times the answers it takes to double; the probe starts at
   * this over that many answers.
   */
  static final double AIMD_PROBE = 0.0032;

  /** AIMD: the fewest answers over which the probe's growth doubles. */
  static final long AIMD_PROBE_DOUBLING_MIN = 16;

  /**
   * AIMD: a refusal within this share of the last refused rate finds the same limit again; each
   * such confirmation in a row doubles the probe's patience, up to {@value #AIMD_MAX_CONFIRMED}
   * doublings.
   */
  static final double AIMD_SAME_LIMIT = 0.05;

  static final int AIMD_MAX_CONFIRMED = 2;

  /** The send rate is measured in buckets of half a second, smoothed as the AWS SDKs do. */
  static final long MEASURE_BUCKET_NANOS = SECOND / 2;

  static final double SMOOTHING = 0.8;

  /** A round of fewer starts than this is short: its share refused counts only after another. */
  static final long SHORT_ROUND = 8;

  /**
   * Once the server refused a start within the quota it stated (another caller spends the account),
   * the pacer leaves this share of the quota's rate unused, so that the account's limiter fills up
   * again for the other caller's bursts.
   */
  static final double SHARED_HEADROOM = 0.25;

  /**
   * How many of the policy's windows (or the quota's resets) the headroom holds once it is seen.
   */
  static final long SHARED_QUOTA_HOLD = 16;

  /** How many recent starts are remembered, to count those a quota answer had not seen. */
  static final int RECENT = 64;

  private static final long NEVER = Long.MIN_VALUE;

  private final Pacer.Congestion congestion;

  /** The controller of {@link Pacer.Congestion#BRACKET}; null for the other controllers. */
  private final LimitBracket bracket;

  private final long ceilingNanos;
  private final long slowestNanos;
  private final int burst;
  private final PacerState state;
  private final TimeSource time;

  // Under the lock.
  private boolean pacing;
  private double rate;
  private double wMax;
  private double k;
  private long epoch;
  private long lastDecrease = NEVER;
  private long roundStart = NEVER;
  private long roundEnd = NEVER;
  private long measureEnd = NEVER;
  private double roundBase;
  private long roundStarts;
  private long roundThrottles;
  private boolean lastStartWaited;
  private boolean lastRoundShort;
  private long probeAnswers;
  private int confirmed;
  private final long[] recent = new long[RECENT];
  private int recentNext;
  private int recentSize;
  private double measured;
  private long othersSeenAt = NEVER;
  private long quotaSentAt = NEVER;
  private long quotaRemaining;
  private long quotaResetNanos;
  private long previousSentAt = NEVER;
  private long previousRemaining;
  private long previousResetNanos;
  private long bucket = NEVER;
  private long bucketCount;
  private long policyQuota = -1;
  private long lastExcused = NEVER;
  private long policyWindowNanos = -1;

  /**
   * With {@link Pacer.Congestion#BRACKET}: whether the quota readings are of a window (a fixed
   * reset that the requests left count down to), whose requests left may be spent at once.
   */
  private boolean window;

  // Read without the lock by tryAcquire.
  private volatile long learnedNanos;
  private volatile long quotaNanos;
  private volatile long quotaUntil = NEVER;
  private volatile long quotaRateNanos;
  private volatile long sharedUntil = NEVER;
  private volatile long policyRateNanos;
  private volatile long lastReservedNanos;

  AdaptivePacer(
      Pacer.Congestion congestion,
      long ceilingNanos,
      long slowestNanos,
      int burst,
      PacerState state,
      TimeSource time) {
    this.congestion = congestion;
    this.bracket =
        congestion == Pacer.Congestion.BRACKET
            ? new LimitBracket(ceilingNanos, slowestNanos)
            : null;
    this.ceilingNanos = ceilingNanos;
    this.slowestNanos = slowestNanos;
    this.burst = burst;
    this.state = state;
    this.time = time;
    // With a ceiling, start at it; without one, do not pace until the server says something.
    this.pacing = ceilingNanos > 1;
    this.rate = pacing ? (double) SECOND / ceilingNanos : 0;
    this.wMax = rate;
    this.learnedNanos = ceilingNanos;
    this.lastReservedNanos = ceilingNanos;
  }

  // ---------------------------------------------------------------- decisions

  @Override
  public long tryAcquire(long nowNanos, long maxWaitNanos) {
    PacerImpl.requireMaxWait(maxWaitNanos);
    long interval = intervalAt(nowNanos);
    long tolerance = burst == 1 ? 0 : saturatedMultiply(burst - 1L, interval);
    long wait = state.reserve(nowNanos, interval, tolerance, maxWaitNanos);
    if (wait >= 0) {
      lastReservedNanos = interval;
      lock();
      long start = Nanos.saturatedAdd(nowNanos, wait);
      recordStart(start);
      lastStartWaited = wait > 0;
      unlock();
    }
    return wait;
  }

  /**
   * With {@link Pacer.Congestion#BRACKET} on this process's own schedule, a caller waits until half
   * an interval after the newest booked start before it books its own, so that each start is spaced
   * at the interval learned by then (the newest start's answer included, on a server that answers
   * within half an interval): one booking at a time, never a queue of starts booked at an old
   * interval.
   */
  @Override
  public long deferNanos(long nowNanos) {
    if (bracket == null || burst > 1 || state.isShared()) {
      return 0;
    }
    lock();
    long newest = newestStart();
    unlock();
    if (newest == NEVER) {
      return 0;
    }
    // Half an interval after it: its answer, which may change the interval, has usually come.
    long at = Nanos.saturatedAdd(newest, learnedNanos / 2);
    return at <= nowNanos ? 0 : at - nowNanos;
  }

  @Override
  public void refund(long reservedAtNanos) {
    lock();
    try {
      if (state.refund(reservedAtNanos, lastReservedNanos)
          && recentSize > 0
          && newestStart() == reservedAtNanos) {
        // A start given back is no start: a caller deferring to the newest waits for a real one.
        recentNext = (recentNext + RECENT - 1) % RECENT;
        recentSize--;
      }
    } finally {
      unlock();
    }
  }

  @Override
  public void pauseUntil(long untilNanos) {
    state.pauseUntil(untilNanos);
  }

  @Override
  public void observeQuota(long sentAtNanos, long remaining, long resetNanos) {
    observeQuota(sentAtNanos, remaining, resetNanos, -1, -1);
  }

  @Override
  public void observeQuota(
      long sentAtNanos, long remaining, long resetNanos, long quota, long windowNanos) {
    lock();
    try {
      if (quota > 0 && !state.isShared()) {
        policyQuota = quota;
        policyWindowNanos = windowNanos > 0 ? windowNanos : -1;
        policyRateNanos = windowNanos > 0 ? clamp(ceilDiv(windowNanos, quota)) : 0;
        if (remaining >= 0 && remaining < quota && othersSpent(sentAtNanos, quota - remaining)) {
          // The server counts more of the window's quota spent than this pacer started in it.
          othersSeen(sentAtNanos, holdFor(windowNanos > 0 ? windowNanos : resetNanos));
        }
      }
      if (remaining >= 0 && resetNanos > 0) {
        readQuota(sentAtNanos, remaining, resetNanos);
      }
    } finally {
      unlock();
    }
  }

  /**
   * Whether another caller spent some of the policy's quota: this pacer's starts that the server
   * may have counted with the attempt sent at {@code sentAtNanos} are fewer than the {@code used}
   * it counted. They are those since one window and a quarter before it (a start a little older may
   * have reached the server a little later) and every later one, counted only when all of them are
   * remembered; without a known window, all starts, as long as none is forgotten. Under the lock.
   */
  private boolean othersSpent(long sentAtNanos, long used) {
    if (policyQuota <= 0) {
      return false;
    }
    long from = NEVER;
    if (policyWindowNanos > 0) {
      long span =
          policyWindowNanos > Long.MAX_VALUE / 5 * 4 ? Long.MAX_VALUE : policyWindowNanos / 4 * 5;
      from = sentAtNanos < NEVER + span ? NEVER : sentAtNanos - span;
    }
    boolean allRemembered = recentSize < RECENT || (from != NEVER && oldestStart() <= from);
    return allRemembered && startsAfter(from) < used;
  }

  /**
   * The window another caller is reckoned in (the headroom's hold, one excused refusal): the
   * policy's, else the last quota reading's reset. Under the lock.
   */
  private long othersWindowNanos() {
    return policyWindowNanos > 0 ? policyWindowNanos : quotaResetNanos;
  }

  /** How long the headroom for another caller holds once it is seen: that many windows. */
  private static long holdFor(long windowNanos) {
    return windowNanos > Long.MAX_VALUE / SHARED_QUOTA_HOLD
        ? Long.MAX_VALUE
        : windowNanos * SHARED_QUOTA_HOLD;
  }

  /** Learns the interval from a quota reading (see the class comment). Under the lock. */
  private void readQuota(long sentAtNanos, long remaining, long resetNanos) {
    long resetAt = Nanos.saturatedAdd(sentAtNanos, resetNanos);
    long newest = newestStart();
    long from = Math.max(sentAtNanos, newest);
    long span = resetAt - from;
    if (span <= 0) {
      return; // the window ended before the next start: nothing to learn
    }
    // The server counted the attempt sent at sentAt, not the starts reserved after it.
    long left = remaining - startsAfter(sentAtNanos);
    if (bracket != null) {
      noticeWindow(sentAtNanos, resetAt);
    }
    long interval;
    if (left <= 0) {
      // No start left before the reset: the next one after those reserved goes at the reset.
      interval = span;
    } else {
      // The schedule holds the next start one interval (the one it was reserved at) after the
      // newest; from there `left` starts fit before the reset, the one after them at the reset.
      long next =
          newest == NEVER
              ? sentAtNanos
              : Math.max(sentAtNanos, Nanos.saturatedAdd(newest, lastReservedNanos));
      long until = resetAt - next;
      if (until <= 0) {
        return; // the next start is due at the reset or later: the reading limits nothing
      }
      interval = until / left + (until % left == 0 ? 0 : 1);
      if (window) {
        // A window's requests left may all be spent before its reset: the server said so.
        interval = 1;
      }
    }
    interval = clamp(interval);
    // Each answer counts the starts in flight a little differently: a quarter of the reading
    // goes in, so that one noisy count does not swing the rate.
    if (!window && quotaUntil != NEVER && sentAtNanos < quotaUntil) {
      interval = clamp(quotaNanos - quotaNanos / 4 + interval / 4);
    }
    quotaNanos = interval;
    quotaUntil = resetAt;
    if (window) {
      // Spent at once, or none left until the reset: the next start after the newest comes so.
      long next = left <= 0 ? span : Math.max(learnedNanos, interval);
      if (next < lastReservedNanos || left <= 0) {
        respace(next);
      }
    }
    // The rate the reading allows from its send on; the reading before it, kept for a throttle
    // of the attempt that carried this one (the executor reports the quota first).
    quotaRateNanos = clamp(resetNanos / (remaining + 1));
    if (sentAtNanos != quotaSentAt) {
      previousSentAt = quotaSentAt;
      previousRemaining = quotaRemaining;
      previousResetNanos = quotaResetNanos;
    }
    quotaSentAt = sentAtNanos;
    quotaRemaining = remaining;
    quotaResetNanos = resetNanos;
  }

  /**
   * The next start comes one {@code interval} after the newest reserved one, not one of the
   * interval it was reserved at, when that was longer ({@link PacerState#respace}). Under the lock.
   */
  private void respaceTo(long interval) {
    if (interval < lastReservedNanos) {
      respace(interval);
    }
  }

  /** Spaces the start after the newest reserved one at {@code interval}. Under the lock. */
  private void respace(long interval) {
    long newest = newestStart();
    if (newest != NEVER && state.respace(newest, lastReservedNanos, interval)) {
      lastReservedNanos = interval;
    }
  }

  /**
   * Tells a window from a bucket by its readings: two in the same window (sent before the last
   * reset) that name the same reset, within the second a reset stated in whole seconds may be off
   * by, are a window that counts down to a fixed reset; a reset that moved on within the window is
   * not. Under the lock.
   */
  private void noticeWindow(long sentAtNanos, long resetAt) {
    if (quotaUntil == NEVER || sentAtNanos >= quotaUntil) {
      return; // the first reading of a window says nothing of its shape
    }
    window = Math.abs(resetAt - quotaUntil) <= SECOND;
  }

  @Override
  public void onAccepted(long sentAtNanos) {
    lock();
    if (bracket != null) {
      bracket.onAccepted(sentAtNanos);
      if (bracket.interval() > 0) {
        pacing = true;
        publish();
        respaceTo(
            quotaUntil != NEVER && sentAtNanos < quotaUntil
                ? Math.max(learnedNanos, quotaNanos)
                : learnedNanos);
      }
      unlock();
      return;
    }
    if (pacing && (lastDecrease == NEVER || sentAtNanos >= lastDecrease)) {
      double grown = congestion == Pacer.Congestion.CUBIC ? cubic(sentAtNanos) : aimd();
      if (measured > 0) {
        grown = Math.min(grown, 2 * measured);
      }
      // Growth never lowers the rate: a cap below the rate only stops it growing.
      if (grown > rate) {
        rate = grown;
        publish();
      }
    }
    unlock();
  }

  @Override
  public void onThrottled(long sentAtNanos, long nowNanos) {
    lock();
    try {
      if (noticeOthers(sentAtNanos, nowNanos) && excuse(nowNanos)) {
        return;
      }
      if (bracket != null) {
        pacing = true;
        boolean slowed = bracket.onThrottled(sentAtNanos, nowNanos);
        publish();
        if (slowed) {
          lastDecrease = nowNanos;
          shareAndRespace();
        }
        return;
      }
      if (roundEnd != NEVER && sentAtNanos <= roundEnd) {
        if (sentAtNanos > roundStart && sentAtNanos <= measureEnd) {
          // Another refusal of the round, answered after the first: the share of the round's
          // starts refused says how far above the limit it was sent.
          roundThrottles++;
          decrease(nowNanos);
        }
        return;
      }
      double sent = sendRate(nowNanos);
      double base;
      boolean burst = !pacing;
      if (burst) {
        // Starts nobody paced: fall from what was sent, as the AWS SDKs do, but counted over the
        // last half second, wherever a bucket boundary fell; the share refused is learned from the
        // rounds that are paced.
        double recent =
            startsAfter(nowNanos - MEASURE_BUCKET_NANOS) * (SECOND / MEASURE_BUCKET_NANOS);
        base = Math.max(sent, recent);
        base = base > 0 ? base : rate;
      } else if (lastStartWaited || !(sent > 0)) {
        // The pacer set the pace: it sent at its rate. A send rate measured in half-second buckets
        // is too coarse to fall from at a few starts a second, and counts any pause as idle.
        base = rate;
      } else {
        base = Math.min(rate, sent);
      }
      roundBase = Math.max(base, (double) SECOND / slowestNanos);
      roundStart = roundEnd;
      measureEnd = sentAtNanos;
      roundEnd = Math.max(nowNanos, newestStart());
      long starts = burst ? 1 : Math.max(1, startsBetween(roundStart, sentAtNanos));
      boolean shortRound = starts < SHORT_ROUND;
      // One short round refused may be a late start bunching with the next; two in a row are a
      // trend. Until then the round counts as one start: the factor alone.
      roundStarts = shortRound && !lastRoundShort ? 1 : starts;
      lastRoundShort = shortRound;
      roundThrottles = 1;
      pacing = true;
      decrease(nowNanos);
    } finally {
      unlock();
    }
  }

  /**
   * Whether someone else spends the account, told by a throttle: with a policy, a refusal before
   * this pacer started the policy's quota in its window ({@link #othersSpent}); without one, a
   * refusal of a start that the last quota read before it still allowed (this pacer's own starts
   * since that reading's send, the refused one included, no more than its remaining). The headroom
   * then holds for {@value #SHARED_QUOTA_HOLD} of the policy's windows or the quota's resets.
   * Returns whether the headroom is now in force, so that the refusal may be excused. Under the
   * lock.
   */
  private boolean noticeOthers(long sentAtNanos, long nowNanos) {
    if (policyQuota > 0
        && policyQuota < Long.MAX_VALUE
        && othersSpent(sentAtNanos, policyQuota + 1)) {
      // Refused before this pacer spent the policy's quota (the refused start is its own too).
      othersSeen(nowNanos, holdFor(othersWindowNanos()));
      return headroomAt(nowNanos);
    }
    long readAt = quotaSentAt;
    long remaining = quotaRemaining;
    long reset = quotaResetNanos;
    if (readAt == sentAtNanos) {
      // The throttle's own answer carried a quota: the one read before it is what allowed it.
      readAt = previousSentAt;
      remaining = previousRemaining;
      reset = previousResetNanos;
    }
    if (readAt == NEVER
        || sentAtNanos <= readAt
        || sentAtNanos >= Nanos.saturatedAdd(readAt, reset)
        || startsBetween(readAt, sentAtNanos) > remaining) {
      return false;
    }
    othersSeen(nowNanos, holdFor(reset));
    return headroomAt(nowNanos);
  }

  /** Whether the headroom for another caller is in force at {@code now}, with a rate to leave. */
  private boolean headroomAt(long nowNanos) {
    return nowNanos < sharedUntil
        && (policyRateNanos > 0 || (quotaUntil != NEVER && nowNanos < quotaUntil));
  }

  /**
   * Whether a refusal that another caller's spending explains may leave the rate as it is: the
   * headroom answers it. One in a window of the policy (or of the quota's reset) is excused; more
   * say that the limit is lower than stated, and the controller lowers the rate. Under the lock.
   */
  private boolean excuse(long nowNanos) {
    long window = othersWindowNanos();
    if (window <= 0 || (lastExcused != NEVER && nowNanos - lastExcused < window)) {
      return false;
    }
    lastExcused = nowNanos;
    return true;
  }

  /**
   * Another caller was seen at {@code atNanos}: leave it headroom for {@code hold}, or twice the
   * time since it was seen before if longer (a caller that comes back every 30 s keeps it). Under
   * the lock.
   */
  private void othersSeen(long atNanos, long hold) {
    if (othersSeenAt != NEVER && atNanos > othersSeenAt) {
      hold = Math.max(hold, 2 * Math.min(Long.MAX_VALUE / 4, atNanos - othersSeenAt));
    }
    othersSeenAt = Math.max(othersSeenAt, atNanos);
    sharedUntil = Math.max(sharedUntil, Nanos.saturatedAdd(atNanos, hold));
  }

  /**
   * Falls from the round's base by the share of its starts not refused, then by the controller's
   * factor; that share times the base is the new {@code wMax}. A further refusal of the round never
   * raises the rate. Under the lock.
   */
  private void decrease(long nowNanos) {
    double accepted = Math.max(1, roundStarts - roundThrottles) / (double) roundStarts;
    double target = Math.max(roundBase * accepted, (double) SECOND / slowestNanos);
    double next = congestion == Pacer.Congestion.CUBIC ? CUBIC_BETA * target : AIMD_BETA * target;
    if (roundThrottles > 1 && next >= rate) {
      return;
    }
    if (roundThrottles == 1) {
      // A new round refused near the rate the last one was: the same limit, found again.
      boolean same = wMax > 0 && Math.abs(target - wMax) <= AIMD_SAME_LIMIT * wMax;
      confirmed = same ? Math.min(AIMD_MAX_CONFIRMED, confirmed + 1) : 0;
    }
    wMax = target;
    if (congestion == Pacer.Congestion.CUBIC) {
      k = Math.cbrt(wMax * (1 - CUBIC_BETA) / CUBIC_C);
      epoch = nowNanos;
    }
    rate = next;
    lastDecrease = nowNanos;
    probeAnswers = 0;
    // Every start reserved by now was reserved at a rate this decrease corrects, even one that
    // starts later: its throttle is answered already.
    long newest = newestStart();
    roundEnd = Math.max(roundEnd, Math.max(nowNanos, newest));
    publish();
    shareAndRespace();
  }

  /**
   * After a decrease: a state shared with other processes slows them too, and the starts booked at
   * the old interval are booked again at the new one. Under the lock.
   */
  private void shareAndRespace() {
    long newest = newestStart();
    // A state shared with other processes slows them too, for as long as this pacer would take to
    // win the rate back (AIMD: about 16 answers at the new interval), and at least a second.
    state.shareInterval(
        learnedNanos,
        Math.max(
            SECOND,
            learnedNanos > Long.MAX_VALUE / SHARED_HOLD
                ? Long.MAX_VALUE
                : learnedNanos * SHARED_HOLD));
    if (newest != NEVER) {
      // The schedule spaced the next start from the newest at the old interval: the new one
      // counts from there too.
      state.pauseUntil(Nanos.saturatedAdd(newest, learnedNanos));
    }
  }

  // ---------------------------------------------------------------- the controllers

  /** CUBIC's rate at {@code at}: {@code C (t - K)^3 + wMax}, t in seconds since the epoch. */
  private double cubic(long at) {
    double t = Math.max(0, at - epoch) / (double) SECOND;
    double d = t - k;
    return CUBIC_C * d * d * d + wMax;
  }

  /**
   * AIMD's rate after one more answer: back to {@code (1 - }{@value #AIMD_MARGIN}{@code ) wMax} by
   * {@value #AIMD_RECOVERY_PER_ANSWER} of {@code wMax} per answer, then a probe above it. The
   * probe's growth doubles every D answers, D the starts of the round that set {@code wMax} (at
   * least {@value #AIMD_PROBE_DOUBLING_MIN}), and starts at {@value #AIMD_PROBE} / D per answer: as
   * patient as the evidence was long. A {@code wMax} found after a long round is met again after
   * about 2.4 D answers; one learned from a short round, or a limit that rose, is found within a
   * few dozen. Each refusal within {@value #AIMD_SAME_LIMIT} of the last refused rate finds the
   * same limit again and doubles D, up to {@value #AIMD_MAX_CONFIRMED} times in a row: a limit that
   * holds costs a refusal a quarter as often, and a limit that doubles is found within about 1 700
   * answers instead of 430. Counted in answers, not seconds, so that it behaves the same at 2
   * requests a second as at 200.
   */
  private double aimd() {
    double plateau = (1 - AIMD_MARGIN) * wMax;
    if (rate < plateau) {
      probeAnswers = 0;
      return Math.min(plateau, rate + AIMD_RECOVERY_PER_ANSWER * wMax);
    }
    // As patient as the evidence is long: a rate refused after a long round is probed gently, one
    // learned from a burst or a short round quickly.
    double doubling = Math.max(AIMD_PROBE_DOUBLING_MIN, roundStarts) * (1L << confirmed);
    double growth = AIMD_PROBE / doubling * Math.pow(2, Math.min(64, probeAnswers++ / doubling));
    // A start a nanosecond at most, so that the rate stays finite however long no throttle comes.
    return Math.min((double) SECOND, rate * (1 + growth));
  }

  /** Sets the interval the controller's rate gives. Under the lock. */
  private void publish() {
    if (bracket != null) {
      learnedNanos = bracket.interval() > 0 ? clamp(bracket.interval()) : ceilingNanos;
      return;
    }
    learnedNanos = pacing ? clamp(intervalOf(rate)) : ceilingNanos;
  }

  private static long intervalOf(double perSecond) {
    if (!(perSecond > 0)) {
      return Long.MAX_VALUE;
    }
    double nanos = Math.ceil(SECOND / perSecond);
    return nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1L, (long) nanos);
  }

  /** Never faster than the ceiling, never slower than the slowest rate. */
  private long clamp(long interval) {
    return Math.max(ceilingNanos, Math.min(slowestNanos, interval));
  }

  /** The interval in force at {@code now}: the quota's until its reset, else the controller's. */
  private long intervalAt(long nowNanos) {
    long interval = learnedNanos;
    long until = quotaUntil;
    boolean quotaInForce = until != NEVER && nowNanos < until;
    if (quotaInForce) {
      interval = Math.max(interval, quotaNanos);
    }
    if (nowNanos < sharedUntil) {
      // Another caller spends the account: leave it a share of the policy's rate, or of the
      // quota's while one is in force.
      long rate = policyRateNanos > 0 ? policyRateNanos : quotaInForce ? quotaRateNanos : 0;
      if (rate > 0) {
        interval = Math.max(interval, clamp((long) (rate / (1 - SHARED_HEADROOM))));
      }
    }
    return interval;
  }

  // ---------------------------------------------------------------- the send rate

  /** Records a reserved start: the recent starts and the measured send rate. Under the lock. */
  private void recordStart(long start) {
    recent[recentNext] = start;
    recentNext = (recentNext + 1) % RECENT;
    recentSize = Math.min(RECENT, recentSize + 1);
    long b = Math.floorDiv(start, MEASURE_BUCKET_NANOS);
    if (bucket == NEVER) {
      bucket = b;
    } else if (b > bucket) {
      double spanSeconds = (b - bucket) * (MEASURE_BUCKET_NANOS / (double) SECOND);
      measured = SMOOTHING * (bucketCount / spanSeconds) + (1 - SMOOTHING) * measured;
      bucketCount = 0;
      bucket = b;
    }
    bucketCount++;
  }

  /**
   * The send rate to fall from at {@code now}: the smoothed measurement, or, before one whole
   * bucket was measured, the starts of the current bucket over its length.
   */
  private double sendRate(long nowNanos) {
    if (measured > 0) {
      return measured;
    }
    return bucketCount / (MEASURE_BUCKET_NANOS / (double) SECOND);
  }

  /** How many remembered starts lie after {@code t} (at most {@value #RECENT}). */
  private long startsAfter(long t) {
    return startsBetween(t, Long.MAX_VALUE);
  }

  /** How many remembered starts lie in {@code (from, to]} (at most {@value #RECENT}). */
  private long startsBetween(long from, long to) {
    long n = 0;
    for (int i = 0; i < recentSize; i++) {
      if (recent[i] > from && recent[i] <= to) {
        n++;
      }
    }
    return n;
  }

  private long oldestStart() {
    return recentSize < RECENT ? recent[0] : recent[recentNext];
  }

  private static long ceilDiv(long a, long b) {
    return a / b + (a % b == 0 ? 0 : 1);
  }

  private long newestStart() {
    return recentSize == 0 ? NEVER : recent[(recentNext + RECENT - 1) % RECENT];
  }

  private static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return (hi == 0 && lo >= 0) ? lo : Long.MAX_VALUE;
  }

  // ---------------------------------------------------------------- inspection

  @Override
  public boolean isAdaptive() {
    return true;
  }

  @Override
  public boolean holdsReservedStarts() {
    return true;
  }

  @Override
  public long pausedUntilNanos() {
    return state.pausedUntil();
  }

  @Override
  public Duration interval() {
    return Duration.ofNanos(intervalAt(time.ticker().read()));
  }

  @Override
  public int burst() {
    return burst;
  }

  @Override
  public Optional<Instant> pausedUntil() {
    return PacerImpl.pausedUntil(state, time);
  }

  @Override
  public Duration pauseRemaining() {
    return Duration.ofNanos(PacerImpl.pauseNanosLeft(state, time));
  }

  @Override
  public boolean sharesState() {
    return state.isShared();
  }

  @Override
  public String toString() {
    return "Pacer[adaptive="
        + congestion.name().toLowerCase(java.util.Locale.ROOT)
        + ", interval="
        + Durations.format(intervalAt(time.ticker().read()))
        + ", ceiling="
        + (ceilingNanos <= 1 ? "none" : Durations.format(ceilingNanos))
        + ", burst="
        + burst
        + "]";
  }
}
