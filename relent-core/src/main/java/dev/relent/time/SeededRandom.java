package dev.relent.time;

import java.util.concurrent.atomic.AtomicLong;

/**
 * SplitMix64 over an atomic counter: each draw advances the counter by the golden gamma and mixes
 * the result (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014). One
 * {@code getAndAdd} per draw makes it thread-safe without a lock, and the sequence depends only on
 * the seed and the order of the draws.
 */
final class SeededRandom implements RandomSource {
  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
  private static final double DOUBLE_UNIT = 0x1.0p-53;

  private final AtomicLong state;

  /**
   * Creates a source with the given seed.
   *
   * @param seed any value
   */
  public SeededRandom(long seed) {
    this.state = new AtomicLong(seed);
  }

  @Override
  public double nextDouble() {
    long z = state.addAndGet(GOLDEN_GAMMA);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    z = z ^ (z >>> 31);
    return (z >>> 11) * DOUBLE_UNIT;
  }
}
