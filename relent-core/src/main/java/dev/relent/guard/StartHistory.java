package dev.relent.guard;

import dev.relent.internal.Nanos;

/**
 * The starts an {@link AdaptivePacer} reserved: the newest {@value #RECENT} in a ring (to count
 * those a server's answer had not seen), whether the newest waited for its turn, and the send rate
 * measured as the AWS SDKs measure it (starts per half second, smoothed 0.8/0.2).
 *
 * <p>Not thread-safe: the pacer calls it under its lock. Allocates only at construction.
 */
final class StartHistory {
  static final long NEVER = Long.MIN_VALUE;

  /**
   * How much later than its send a start may be booked: with several pacers, each books the start
   * at its own reading of the time, a little after the executor's.
   */
  static final long BOOKED_LATE_NANOS = 1_000_000L;

  /** How many recent starts are remembered, to count those a quota answer had not seen. */
  static final int RECENT = 64;

  /** The send rate is measured in buckets of half a second, smoothed as the AWS SDKs do. */
  static final long MEASURE_BUCKET_NANOS = AdaptivePacer.SECOND / 2;

  static final double SMOOTHING = 0.8;

  private final long[] recent = new long[RECENT];

  /** The starts a server will not count: refused, or dropped from a hold ({@link #dropBetween}). */
  private final boolean[] uncounted = new boolean[RECENT];

  private int next;
  private int size;
  private boolean newestWaited;
  private double measured;
  private long bucket = NEVER;
  private long bucketCount;

  /** Records a reserved start at {@code start}, which waited for its turn or not. */
  void record(long start, boolean waited) {
    recent[next] = start;
    uncounted[next] = false;
    next = (next + 1) % RECENT;
    size = Math.min(RECENT, size + 1);
    newestWaited = waited;
    long b = Math.floorDiv(start, MEASURE_BUCKET_NANOS);
    if (bucket == NEVER) {
      bucket = b;
    } else if (b > bucket) {
      double spanSeconds = (b - bucket) * (MEASURE_BUCKET_NANOS / (double) AdaptivePacer.SECOND);
      measured = SMOOTHING * (bucketCount / spanSeconds) + (1 - SMOOTHING) * measured;
      bucketCount = 0;
      bucket = b;
    }
    bucketCount++;
  }

  /**
   * Forgets the newest start if it is the one at {@code start}: a start given back is no start, so
   * a caller deferring to the newest waits for a real one. The measured rate keeps it.
   */
  void forgetNewest(long start) {
    if (size > 0 && newest() == start) {
      next = (next + RECENT - 1) % RECENT;
      size--;
    }
  }

  /** The newest remembered start, or {@link #NEVER}. */
  long newest() {
    return size == 0 ? NEVER : recent[(next + RECENT - 1) % RECENT];
  }

  /** Whether the newest start waited for its turn: the pacer, not the callers, set the pace. */
  boolean newestWaited() {
    return newestWaited;
  }

  /**
   * How many remembered starts lie after {@code t} (at most {@value #RECENT}), as counted below.
   */
  long startsAfter(long t) {
    return startsBetween(t, Long.MAX_VALUE);
  }

  /**
   * How many remembered starts lie in {@code (from, to]} (at most {@value #RECENT}), but for those
   * refused or dropped: a server counts neither.
   */
  long startsBetween(long from, long to) {
    long n = 0;
    for (int i = 0; i < size; i++) {
      if (!uncounted[i] && recent[i] > from && recent[i] <= to) {
        n++;
      }
    }
    return n;
  }

  /**
   * The {@code n}-th newest remembered start at or before {@code t} (the newest is the first) that
   * was not refused, or {@link #NEVER} when fewer than {@code n} are remembered there. Counts back
   * in the order the starts were recorded, which is the order of their times on one schedule.
   */
  long nthNewestUpTo(long t, long n) {
    long seen = 0;
    for (int i = 1; i <= size; i++) {
      int at = (next + RECENT - i) % RECENT;
      if (!uncounted[at] && recent[at] <= t && ++seen == n) {
        return recent[at];
      }
    }
    return NEVER;
  }

  /**
   * Forgets the starts booked in {@code (from, to)}: a hold until {@code to} set at {@code from}
   * holds them too, and their callers book again after it.
   */
  void dropBetween(long from, long to) {
    for (int i = 0; i < size; i++) {
      if (recent[i] > from && recent[i] < to) {
        uncounted[i] = true;
      }
    }
  }

  /**
   * Marks the start sent at {@code sentAt} refused (the newest not yet marked at or before it): a
   * server does not count a request it refused.
   */
  void refused(long sentAt) {
    for (int i = 1; i <= size; i++) {
      int at = (next + RECENT - i) % RECENT;
      if (!uncounted[at] && recent[at] <= Nanos.saturatedAdd(sentAt, BOOKED_LATE_NANOS)) {
        uncounted[at] = true;
        return;
      }
    }
  }

  /**
   * Whether every start after {@code from} is remembered: none was forgotten yet, or the oldest
   * remembered is no later than {@code from} ({@link #NEVER}: every start ever).
   */
  boolean remembersAllAfter(long from) {
    return size < RECENT || (from != NEVER && recent[next] <= from);
  }

  /** The smoothed send rate, per second; 0 before a whole bucket was measured. */
  double measured() {
    return measured;
  }

  /**
   * The send rate to fall from: the smoothed measurement, or, before one whole bucket was measured,
   * the starts of the current bucket over its length.
   */
  double sendRate() {
    if (measured > 0) {
      return measured;
    }
    return bucketCount / (MEASURE_BUCKET_NANOS / (double) AdaptivePacer.SECOND);
  }

  /**
   * The starts of the half second before {@code now}, per second, wherever a bucket boundary fell.
   */
  double lastHalfSecondRate(long nowNanos) {
    return startsAfter(nowNanos - MEASURE_BUCKET_NANOS)
        * (AdaptivePacer.SECOND / MEASURE_BUCKET_NANOS);
  }
}
