package dev.relent.mockserver;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Latency emulation: every answer waits a duration drawn uniformly from {@code [min, max]}, added
 * to the step's own delay. The n-th request of a route always draws the same value for the same
 * {@code seed}, so runs repeat. Defaults: seed 0. Immutable and thread-safe.
 */
public final class Latency {

  private final Duration min;
  private final Duration max;
  private final long seed;

  private Latency(Duration min, Duration max, long seed) {
    this.min = min;
    this.max = max;
    this.seed = seed;
  }

  /**
   * Returns a latency between {@code min} and {@code max} inclusive.
   *
   * @param min the shortest latency
   * @param max the longest latency
   * @return a new latency
   * @throws NullPointerException if {@code min} or {@code max} is null
   * @throws IllegalArgumentException if {@code min} is negative or greater than {@code max}
   */
  public static Latency between(Duration min, Duration max) {
    Objects.requireNonNull(min, "min cannot be null");
    Objects.requireNonNull(max, "max cannot be null");
    if (min.isNegative()) {
      throw new IllegalArgumentException("min must be >= 0: " + min.toMillis() + " ms");
    }
    if (max.compareTo(min) < 0) {
      throw new IllegalArgumentException(
          "max must be >= min: max " + max.toMillis() + " ms, min " + min.toMillis() + " ms");
    }
    return new Latency(min, max, 0);
  }

  /**
   * Returns a copy drawing from the sequence of {@code seed}.
   *
   * @param seed the seed
   * @return a new latency
   */
  public Latency withSeed(long seed) {
    return new Latency(min, max, seed);
  }

  /** The latency of the {@code n}-th request (0-based) in nanoseconds: SplitMix64 of seed and n. */
  long nanosFor(long n) {
    long lo = min.toNanos();
    long span = max.toNanos() - lo;
    if (span == 0) {
      return lo;
    }
    long z = seed + (n + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z = z ^ (z >>> 31);
    return lo + Math.floorMod(z, span + 1);
  }

  /** A fresh sequence of draws, for one server. */
  Emulation start() {
    return new Draws(this);
  }

  /** Counts the requests of one level and delays each by its draw; never rejects. */
  private static final class Draws implements Emulation {
    private final Latency cfg;
    private final AtomicLong count = new AtomicLong();

    Draws(Latency cfg) {
      this.cfg = cfg;
    }

    @Override
    public Rejection admit(ServerExchange ex, MockClock clock, RateLimitHeaders shown) {
      ex.delayNanos += cfg.nanosFor(count.getAndIncrement());
      return null;
    }

    @Override
    public void reset() {
      count.set(0);
    }
  }
}
