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
 *   <li>Throttles ({@link #onThrottled}), once per round: a throttle of an attempt sent before the
 *       last decrease lowers nothing. The rate that falls is {@code min(learned rate, measured send
 *       rate)}, the send rate measured as the AWS SDKs measure it (starts per 0.5 s, smoothed
 *       0.8/0.2), so that a pacer that was not pacing yet (no ceiling, no signal) falls from what
 *       it actually sent.
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

  /** AIMD: the decrease and the growth per second of sending, relative to the rate. */
  static final double AIMD_BETA = 0.9;

  static final double AIMD_GROWTH_PER_SECOND = 0.0025;

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
  private long roundEnd = NEVER;
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
        return; // reserved at the old rate: this round has been answered already
      }
      double sent = sendRate(nowNanos);
      double base = pacing && sent > 0 ? Math.min(rate, sent) : sent > 0 ? sent : rate;
      base = Math.max(base, (double) SECOND / slowestNanos);
      if (congestion == Pacer.Congestion.CUBIC) {
        wMax = base;
        k = Math.cbrt(wMax * (1 - CUBIC_BETA) / CUBIC_C);
        epoch = nowNanos;
        rate = CUBIC_BETA * base;
      } else {
        rate = AIMD_BETA * base;
      }
      pacing = true;
      lastDecrease = nowNanos;
      // Every start reserved by now was reserved at the old rate, even one that starts later.
      roundEnd = Math.max(nowNanos, newestStart());
      lastGrowth = nowNanos;
      publish();
    } finally {
      unlock();
    }
  }

  // ---------------------------------------------------------------- the controllers

  /** CUBIC's rate at {@code at}: {@code C (t - K)^3 + wMax}, t in seconds since the epoch. */
  private double cubic(long at) {
    double t = Math.max(0, at - epoch) / (double) SECOND;
    double d = t - k;
    return CUBIC_C * d * d * d + wMax;
  }

  /** AIMD's rate at {@code at}: the growth for the time since the last growth. */
  private double aimd(long at) {
    if (lastGrowth == NEVER || at <= lastGrowth) {
      lastGrowth = lastGrowth == NEVER ? at : lastGrowth;
      return rate;
    }
    double seconds = (at - lastGrowth) / (double) SECOND;
    lastGrowth = at;
    return rate * (1 + AIMD_GROWTH_PER_SECOND * seconds);
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
    long n = 0;
    for (int i = 0; i < recentSize; i++) {
      if (recent[i] > t) {
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
