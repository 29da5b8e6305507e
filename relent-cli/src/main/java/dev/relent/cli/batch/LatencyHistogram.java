package dev.relent.cli.batch;

/**
 * Durations counted in log-linear bins, for percentiles in bounded memory: values below {@value
 * #SUB} ns exactly, larger ones in {@value #SUB} bins per power of two, so that a percentile is
 * within 1/{@value #SUB} (about 3 %) of the value it stands for, and never outside the smallest and
 * largest value seen. 1 888 counters whatever the number of values. Not thread-safe: {@link
 * BatchReport} guards it.
 */
final class LatencyHistogram {
  private static final int BITS = 5;
  static final int SUB = 1 << BITS;
  private static final int BINS = (63 - BITS + 1) * SUB;

  private final long[] counts;
  private long count;
  private long min = Long.MAX_VALUE;
  private long max = Long.MIN_VALUE;

  LatencyHistogram() {
    this.counts = new long[BINS];
  }

  private LatencyHistogram(LatencyHistogram other) {
    this.counts = other.counts.clone();
    this.count = other.count;
    this.min = other.min;
    this.max = other.max;
  }

  /** Counts a duration in nanoseconds; a negative one counts as 0. */
  void add(long nanos) {
    long v = Math.max(0L, nanos);
    counts[bin(v)]++;
    count++;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }

  static int bin(long v) {
    if (v < SUB) {
      return (int) v;
    }
    int e = 63 - Long.numberOfLeadingZeros(v);
    int sub = (int) ((v >>> (e - BITS)) & (SUB - 1));
    return (e - BITS + 1) * SUB + sub;
  }

  /** The largest value a bin holds. */
  static long upper(int bin) {
    if (bin < SUB) {
      return bin;
    }
    int e = bin / SUB + BITS - 1;
    long sub = bin % SUB;
    long lower = (SUB + sub) << (e - BITS);
    long last = lower + (1L << (e - BITS)) - 1;
    return last < 0 ? Long.MAX_VALUE : last;
  }

  long count() {
    return count;
  }

  long min() {
    return count == 0 ? 0 : min;
  }

  long max() {
    return count == 0 ? 0 : max;
  }

  /**
   * The value at or below which {@code percent} of the durations fall (nearest rank), as the
   * largest value of its bin, kept between the smallest and the largest seen; 0 when empty.
   */
  long percentile(double percent) {
    if (count == 0) {
      return 0;
    }
    long rank = Math.max(1L, (long) Math.ceil(percent / 100.0 * count));
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return Math.max(min, Math.min(max, upper(i)));
      }
    }
    return max;
  }

  LatencyHistogram copy() {
    return new LatencyHistogram(this);
  }
}
