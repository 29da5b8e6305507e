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
 *   <li>A quota ({@link #observeQuota}): {@code remaining} requests in the {@code reset} after the
 *       attempt was sent, less the starts made since (the server had not counted them), spread
 *       evenly up to the reset, a quarter of each new reading averaged into the last. That interval
 *       is a floor until the reset: the pacer is never faster than the quota allows, whatever the
 *       controller says. A quota that promises more than the server gives (one that lies, or one
 *       that does not count another caller on the account) is corrected by the controller, since
 *       the slower of the two governs.
 *   <li>Throttles ({@link #onThrottled}), by round: the starts reserved up to the first throttle of
 *       a round are that round, and the rate falls from the rate they were sent at times the share
 *       of them not refused, times the controller's factor. Each further throttle of the same round
 *       lowers it by its share again; a throttle of a start reserved before a decrease but not
 *       counted in the round lowers nothing (that decrease answered it). The rate the round was
 *       sent at is the learned rate while the pacer set the pace (its last start waited), else
 *       {@code min(learned rate, measured send rate)}, measured as the AWS SDKs measure it (starts
 *       per 0.5 s, smoothed 0.8/0.2), so that a pacer that was not pacing yet (no ceiling, no
 *       signal) falls from what it actually sent. After a decrease the next start is spaced from
 *       the newest reserved one at the new interval.
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

  /** CUBIC's multiplicative decrease and scale constant, as in the AWS SDKs. */
  static final double CUBIC_BETA = 0.7;

  static final double CUBIC_C = 0.4;

  /** AIMD: the decrease, relative to the rate the round was refused at. */
  static final double AIMD_BETA = 0.9;

  /** AIMD: how close below the refused rate the recovery goes, as a share of that rate. */
  static final double AIMD_MARGIN = 0.02;

  /** AIMD: the recovery per second, as a share of the refused rate. */
  static final double AIMD_RECOVERY_PER_SECOND = 0.02;

  /** AIMD: the probe's first growth per second, relative to the rate. */
  static final double AIMD_PROBE_PER_SECOND = 0.0001;

  /** AIMD: the probe's growth doubles every so many seconds without a throttle. */
  static final double AIMD_PROBE_DOUBLING_SECONDS = 20;

  /** The send rate is measured in buckets of half a second, smoothed as the AWS SDKs do. */
  static final long MEASURE_BUCKET_NANOS = SECOND / 2;

  static final double SMOOTHING = 0.8;

  /** How many recent starts are remembered, to count those a quota answer had not seen. */
  static final int RECENT = 64;

  private static final long NEVER = Long.MIN_VALUE;

  private final Pacer.Congestion congestion;
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
  private long probeSince = NEVER;
  private double roundBase;
  private long roundStarts;
  private long roundThrottles;
  private boolean lastStartWaited;
  private long lastGrowth = NEVER;
  private final long[] recent = new long[RECENT];
  private int recentNext;
  private int recentSize;
  private double measured;
  private long bucket = NEVER;
  private long bucketCount;

  // Read without the lock by tryAcquire.
  private volatile long learnedNanos;
  private volatile long quotaNanos;
  private volatile long quotaUntil = NEVER;
  private volatile long lastReservedNanos;

  AdaptivePacer(
      Pacer.Congestion congestion,
      long ceilingNanos,
      long slowestNanos,
      int burst,
      PacerState state,
      TimeSource time) {
    this.congestion = congestion;
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
      recordStart(Nanos.saturatedAdd(nowNanos, wait));
      lastStartWaited = wait > 0;
      unlock();
    }
    return wait;
  }

  @Override
  public void refund(long reservedAtNanos) {
    state.refund(reservedAtNanos, lastReservedNanos);
  }

  @Override
  public void pauseUntil(long untilNanos) {
    state.pauseUntil(untilNanos);
  }

  @Override
  public void observeQuota(long sentAtNanos, long remaining, long resetNanos) {
    if (remaining < 0 || resetNanos <= 0) {
      return; // cannot be true: no rate to learn
    }
    lock();
    try {
      long resetAt = Nanos.saturatedAdd(sentAtNanos, resetNanos);
      long from = Math.max(sentAtNanos, newestStart());
      long span = resetAt - from;
      if (span <= 0) {
        return; // the window ended before the next start: nothing to learn
      }
      long left = remaining - startsAfter(sentAtNanos);
      // No start left before the reset: the next one goes at the reset.
      long interval = clamp(left <= 1 ? span : span / left);
      // Each answer counts the starts in flight a little differently: a quarter of the reading
      // goes in, so that one noisy count does not swing the rate.
      if (quotaUntil != NEVER && sentAtNanos < quotaUntil) {
        interval = clamp(quotaNanos - quotaNanos / 4 + interval / 4);
      }
      quotaNanos = interval;
      quotaUntil = resetAt;
    } finally {
      unlock();
    }
  }

  @Override
  public void onAccepted(long sentAtNanos) {
    lock();
    if (pacing && (lastDecrease == NEVER || sentAtNanos >= lastDecrease)) {
      double grown = congestion == Pacer.Congestion.CUBIC ? cubic(sentAtNanos) : aimd(sentAtNanos);
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
      if (roundEnd != NEVER && sentAtNanos <= roundEnd) {
        if (sentAtNanos > roundStart && sentAtNanos <= measureEnd) {
          // Another throttle of the round that was answered already: the share of the round's
          // starts refused says how far above the limit it was sent.
          roundThrottles++;
          decrease(nowNanos);
        }
        return;
      }
      double sent = sendRate(nowNanos);
      double base;
      if (!pacing) {
        base = sent > 0 ? sent : rate;
      } else if (lastStartWaited || !(sent > 0)) {
        // The pacer set the pace: it sent at its rate. A send rate measured in half-second buckets
        // is too coarse to fall from at a few starts a second, and counts any pause as idle.
        base = rate;
      } else {
        base = Math.min(rate, sent);
      }
      roundBase = Math.max(base, (double) SECOND / slowestNanos);
      roundStart = roundEnd;
      measureEnd = Math.max(nowNanos, newestStart());
      roundEnd = measureEnd;
      roundStarts = Math.max(1, startsBetween(roundStart, measureEnd));
      roundThrottles = 1;
      pacing = true;
      decrease(nowNanos);
    } finally {
      unlock();
    }
  }

  /**
   * Falls from the round's base by the controller's factor and by the share of the round's starts
   * that were refused: one refused of 64 costs little more than the factor, seven of eight (a burst
   * into a limiter that takes one) fall to an eighth of the rate at once instead of a tenth per
   * round. Never raises the rate. Under the lock.
   */
  private void decrease(long nowNanos) {
    double accepted = Math.max(1, roundStarts - roundThrottles) / (double) roundStarts;
    double target = Math.max(roundBase * accepted, (double) SECOND / slowestNanos);
    double next = congestion == Pacer.Congestion.CUBIC ? CUBIC_BETA * target : AIMD_BETA * target;
    if (roundThrottles > 1 && next >= rate) {
      return;
    }
    wMax = target;
    if (congestion == Pacer.Congestion.CUBIC) {
      k = Math.cbrt(wMax * (1 - CUBIC_BETA) / CUBIC_C);
      epoch = nowNanos;
    }
    rate = next;
    lastDecrease = nowNanos;
    lastGrowth = nowNanos;
    probeSince = NEVER;
    // Every start reserved by now was reserved at a rate this decrease corrects, even one that
    // starts later: its throttle is answered already.
    long newest = newestStart();
    roundEnd = Math.max(roundEnd, Math.max(nowNanos, newest));
    publish();
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
   * AIMD's rate at {@code at}: back to just below the rate last refused ({@code wMax}) at {@value
   * #AIMD_RECOVERY_PER_SECOND} of it per second, then a probe above it whose growth starts at
   * {@value #AIMD_PROBE_PER_SECOND} per second and doubles every {@value
   * #AIMD_PROBE_DOUBLING_SECONDS} s: a limit that holds is met rarely, one that rose (or a {@code
   * wMax} learned too low) is found in a few minutes at most.
   */
  private double aimd(long at) {
    if (lastGrowth == NEVER || at <= lastGrowth) {
      lastGrowth = lastGrowth == NEVER ? at : lastGrowth;
      return rate;
    }
    double seconds = (at - lastGrowth) / (double) SECOND;
    lastGrowth = at;
    double plateau = (1 - AIMD_MARGIN) * wMax;
    if (rate < plateau) {
      double recovered = rate + AIMD_RECOVERY_PER_SECOND * wMax * seconds;
      if (recovered < plateau) {
        return recovered;
      }
      probeSince = at;
      return plateau;
    }
    if (probeSince == NEVER) {
      probeSince = at;
    }
    double probing = (at - probeSince) / (double) SECOND;
    double growth = AIMD_PROBE_PER_SECOND * Math.pow(2, probing / AIMD_PROBE_DOUBLING_SECONDS);
    return rate * (1 + growth * seconds);
  }

  /** Sets the interval the controller's rate gives. Under the lock. */
  private void publish() {
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
    long learned = learnedNanos;
    long until = quotaUntil;
    return until != NEVER && nowNanos < until ? Math.max(learned, quotaNanos) : learned;
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
