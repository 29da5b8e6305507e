package dev.relent.internal;

/**
 * Two counters over a sliding time window made of {@code buckets} equal buckets: the shared
 * bookkeeping of the retry budget (first attempts, retries) and of a time-window circuit breaker
 * (calls, failures).
 *
 * <p>Design: bucket {@code i} covers the times {@code [i * bucketNanos, (i + 1) * bucketNanos)};
 * the window at time {@code now} is the bucket of {@code now} and the {@code buckets - 1} before
 * it, so an event counts for between {@code (buckets - 1) * bucketNanos} and {@code buckets *
 * bucketNanos} after it happened. Running totals make every operation O(1) amortised (advancing
 * clears at most {@code buckets} slots). Times are ticker readings and may be negative; a reading
 * older than the newest one seen ({@code now} read before another thread's call) is counted in its
 * own bucket while that bucket is still in the window.
 *
 * <p>Not thread-safe: the owner guards it with its own lock. Allocates only in the constructor.
 */
public final class BucketedCounts {
  private final long bucketNanos;
  private final int buckets;
  private final long[] first;
  private final long[] second;
  private long head;
  private boolean started;
  private long firstTotal;
  private long secondTotal;

  /**
   * Creates empty counts.
   *
   * @param bucketNanos the width of one bucket, &gt; 0
   * @param buckets the number of buckets in the window, &gt; 0
   * @throws IllegalArgumentException if either is not positive
   */
  public BucketedCounts(long bucketNanos, int buckets) {
    if (bucketNanos <= 0) {
      throw new IllegalArgumentException("bucketNanos must be > 0: " + bucketNanos + " ns");
    }
    if (buckets <= 0) {
      throw new IllegalArgumentException("buckets must be > 0: " + buckets);
    }
    this.bucketNanos = bucketNanos;
    this.buckets = buckets;
    this.first = new long[buckets];
    this.second = new long[buckets];
  }

  /**
   * Returns the bucket width.
   *
   * @return nanoseconds
   */
  public long bucketNanos() {
    return bucketNanos;
  }

  /**
   * Returns the number of buckets.
   *
   * @return the bucket count
   */
  public int buckets() {
    return buckets;
  }

  /**
   * Moves the window so that it ends with the bucket of {@code nowNanos}; never moves it back.
   *
   * @param nowNanos a ticker reading
   */
  public void advance(long nowNanos) {
    long index = Math.floorDiv(nowNanos, bucketNanos);
    if (!started) {
      started = true;
      head = index;
      return;
    }
    if (index <= head) {
      return;
    }
    long steps = index - head;
    if (steps >= buckets) {
      java.util.Arrays.fill(first, 0L);
      java.util.Arrays.fill(second, 0L);
      firstTotal = 0;
      secondTotal = 0;
    } else {
      for (long k = 1; k <= steps; k++) {
        int slot = (int) Math.floorMod(head + k, (long) buckets);
        firstTotal -= first[slot];
        secondTotal -= second[slot];
        first[slot] = 0;
        second[slot] = 0;
      }
    }
    head = index;
  }

  /**
   * Adds to the first counter in the bucket of {@code nowNanos} (after advancing to it); an event
   * already older than the window is dropped.
   *
   * @param nowNanos when the event happened
   * @param delta how much to add, usually 1
   */
  public void addFirst(long nowNanos, long delta) {
    int slot = slotFor(nowNanos);
    if (slot >= 0) {
      first[slot] += delta;
      firstTotal += delta;
    }
  }

  /**
   * Adds to the second counter in the bucket of {@code nowNanos} (after advancing to it); an event
   * already older than the window is dropped.
   *
   * @param nowNanos when the event happened
   * @param delta how much to add, usually 1
   */
  public void addSecond(long nowNanos, long delta) {
    int slot = slotFor(nowNanos);
    if (slot >= 0) {
      second[slot] += delta;
      secondTotal += delta;
    }
  }

  /**
   * Adds to the second counter in the newest bucket, whatever the bucket of {@code nowNanos}: for
   * withdrawals, which must not expire earlier than the window they were checked against.
   *
   * @param nowNanos a ticker reading
   * @param delta how much to add, usually 1
   */
  public void addSecondAtHead(long nowNanos, long delta) {
    advance(nowNanos);
    int slot = (int) Math.floorMod(head, (long) buckets);
    second[slot] += delta;
    secondTotal += delta;
  }

  /**
   * Returns the first counter's total over the window ending at the newest bucket seen.
   *
   * @return the total
   */
  public long firstTotal() {
    return firstTotal;
  }

  /**
   * Returns the second counter's total over the window ending at the newest bucket seen.
   *
   * @return the total
   */
  public long secondTotal() {
    return secondTotal;
  }

  /** Forgets every event. */
  public void clear() {
    java.util.Arrays.fill(first, 0L);
    java.util.Arrays.fill(second, 0L);
    firstTotal = 0;
    secondTotal = 0;
  }

  private int slotFor(long nowNanos) {
    advance(nowNanos);
    long index = Math.floorDiv(nowNanos, bucketNanos);
    if (index <= head - buckets) {
      return -1;
    }
    return (int) Math.floorMod(index, (long) buckets);
  }
}
