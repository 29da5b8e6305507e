package dev.relent.time;

/**
 * Every source of time and chance an executor or a guard uses, bundled so that a test replaces all
 * of them at once: the monotonic {@link Ticker} for deadlines and guard decisions, the wall {@link
 * Clock} for saying when a retry may be made, the {@link Sleeper} synchronous calls wait with, the
 * {@link Scheduler} asynchronous calls wait with, and the {@link RandomSource} for jitter and the
 * spread on server waits.
 *
 * <p>{@link #system()} is the default everywhere. In tests, relent-testing's {@code FakeTime} is a
 * time source whose sleeper and scheduler advance virtual time, so a test sets one object:
 *
 * <pre>{@code
 * FakeTime time = new FakeTime();
 * RelentExecutor<String> executor = RelentExecutor.<String>builder(policy).withTime(time).build();
 * }</pre>
 *
 * <p>Implementations must be thread-safe and must return the same objects on every call.
 */
public interface TimeSource {

  /**
   * Returns the monotonic time source.
   *
   * @return the ticker
   */
  Ticker ticker();

  /**
   * Returns the wall clock.
   *
   * @return the clock
   */
  Clock clock();

  /**
   * Returns how synchronous calls wait.
   *
   * @return the sleeper
   */
  Sleeper sleeper();

  /**
   * Returns how asynchronous calls wait.
   *
   * @return the scheduler
   */
  Scheduler scheduler();

  /**
   * Returns the randomness for jitter and spreads.
   *
   * @return the random source
   */
  RandomSource random();

  /**
   * Returns the system's time: {@link Ticker#system()}, {@link Clock#system()}, {@link
   * Sleeper#system()}, {@link Scheduler#system()} and {@link RandomSource#system()}.
   *
   * @return the shared system time source
   */
  static TimeSource system() {
    return TimeBundle.SYSTEM;
  }

  /**
   * Returns a time source made of the given parts.
   *
   * @param ticker the monotonic time source
   * @param clock the wall clock
   * @param sleeper how synchronous calls wait
   * @param scheduler how asynchronous calls wait
   * @param random the randomness
   * @return an immutable time source
   * @throws NullPointerException if any part is null
   */
  static TimeSource of(
      Ticker ticker, Clock clock, Sleeper sleeper, Scheduler scheduler, RandomSource random) {
    return new TimeBundle(ticker, clock, sleeper, scheduler, random);
  }

  /**
   * Returns this time source with other randomness, e.g. {@code
   * TimeSource.system().withRandom(RandomSource.seeded(42))} for repeatable jitter.
   *
   * @param random the randomness
   * @return a new time source
   * @throws NullPointerException if {@code random} is null
   */
  default TimeSource withRandom(RandomSource random) {
    return of(ticker(), clock(), sleeper(), scheduler(), random);
  }
}
