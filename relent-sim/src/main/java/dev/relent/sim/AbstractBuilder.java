package dev.relent.sim;

import java.util.function.Function;

/**
 * The settings every model has: the seed and the trials per cell. Mutable and not thread-safe; a
 * model's {@code build()} copies them.
 *
 * @param <B> the model's builder
 * @param <M> the model
 */
abstract class AbstractBuilder<B extends AbstractBuilder<B, M>, M> {
  private final Function<B, M> build;
  private long seed = 1;
  private int trials;

  AbstractBuilder(int defaultTrials, Function<B, M> build) {
    this.trials = defaultTrials;
    this.build = build;
  }

  /**
   * Sets the seed; default 1. The same seed gives the same numbers.
   *
   * @param seed any value
   * @return this builder
   */
  public B withSeed(long seed) {
    this.seed = seed;
    return self();
  }

  /**
   * Sets the trials per cell (per strategy, and per client count or scenario); the default depends
   * on the model.
   *
   * @param trials from 1 to 100 000
   * @return this builder
   * @throws IllegalArgumentException if {@code trials} is outside [1, 100000]
   */
  public B withTrials(int trials) {
    this.trials = Numbers.requireTrials(trials);
    return self();
  }

  /**
   * Returns the run with the current settings.
   *
   * @return a new run, immutable
   */
  public M build() {
    return build.apply(self());
  }

  @SuppressWarnings("unchecked") // B is the class of this builder, as its declaration says
  private B self() {
    return (B) this;
  }

  Settings settings() {
    return new Settings(seed, trials);
  }

  /** A model's seed and trials per cell. */
  record Settings(long seed, int trials) {}
}
