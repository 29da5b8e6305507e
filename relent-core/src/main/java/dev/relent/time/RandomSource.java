package dev.relent.time;

/**
 * A source of uniform random numbers for jitter. Injected so that tests can seed it and assert
 * exact waits. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface RandomSource {

  /**
   * Returns the next random number.
   *
   * @return a uniformly distributed value in {@code [0, 1)}
   */
  double nextDouble();

  /**
   * Returns a source backed by {@link java.util.concurrent.ThreadLocalRandom}: fast, unseeded.
   *
   * @return the system random source, shared and thread-safe
   */
  static RandomSource system() {
    return SystemTime.INSTANCE;
  }

  /**
   * Returns a deterministic source: the same seed gives the same sequence of numbers (in the order
   * they are drawn, whichever thread draws them).
   *
   * @param seed any value
   * @return a new seeded source, thread-safe and lock-free
   */
  static RandomSource seeded(long seed) {
    return new SeededRandom(seed);
  }
}
