package dev.relent.guard;

import dev.relent.internal.BucketedCounts;
import dev.relent.internal.SpinLocked;
import dev.relent.time.Durations;
import dev.relent.time.RandomSource;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/** The in-memory throttle: two counters over bucketed time behind a spin lock. */
final class AdaptiveThrottleImpl extends SpinLocked implements AdaptiveThrottle {
  private final double k;
  private final Duration window;
  private final BucketedCounts counts; // first: requests, second: accepts

  AdaptiveThrottleImpl(double k, Duration window) {
    this.k = k;
    this.window = window;
    this.counts =
        new BucketedCounts(
            window.toNanos() / AdaptiveThrottle.Builder.BUCKETS, AdaptiveThrottle.Builder.BUCKETS);
  }

  @Override
  public boolean tryAcquire(long nowNanos, RandomSource random) {
    Objects.requireNonNull(random, "random cannot be null");
    lock();
    double p = probability(nowNanos);
    counts.addFirst(nowNanos, 1);
    unlock();
    return p <= 0 || random.nextDouble() >= p;
  }

  @Override
  public void onAccepted(long nowNanos) {
    lock();
    counts.addSecond(nowNanos, 1);
    unlock();
  }

  @Override
  public double rejectionProbability(long nowNanos) {
    lock();
    double p = probability(nowNanos);
    unlock();
    return p;
  }

  /** Under the lock. */
  private double probability(long nowNanos) {
    counts.advance(nowNanos);
    double requests = counts.firstTotal();
    double accepts = counts.secondTotal();
    return Math.max(0, (requests - k * accepts) / (requests + 1));
  }

  @Override
  public String describe(long nowNanos) {
    lock();
    double p = probability(nowNanos);
    long requests = counts.firstTotal();
    long accepts = counts.secondTotal();
    unlock();
    return "accepted "
        + accepts
        + " of "
        + requests
        + " requests in the last "
        + Durations.format(window.toNanos())
        + ", K "
        + number(k)
        + ": rejecting "
        + String.format(Locale.ROOT, "%.0f", p * 100)
        + " %";
  }

  @Override
  public String toString() {
    return "AdaptiveThrottle[k="
        + number(k)
        + ", window="
        + Durations.format(window.toNanos())
        + "]";
  }

  private static String number(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }
}
