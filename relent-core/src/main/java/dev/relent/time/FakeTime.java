package dev.relent.time;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Virtual time: a {@link Ticker} and a {@link Clock} that move only when told to, and always
 * together (advancing by one second moves the monotonic reading and the wall clock by exactly one
 * second), bundled as a {@link TimeSource} with a {@link RecordingSleeper} and a {@link
 * ManualScheduler} that advance it and a seeded {@link RandomSource}. One object wires an executor,
 * a guard or an HTTP adapter to virtual time:
 *
 * <pre>{@code
 * FakeTime time = new FakeTime();
 * RelentExecutor<String> executor = RelentExecutor.<String>builder(policy).withTime(time).build();
 * executor.get(() -> call());
 * time.sleeper().waits(); // every wait the executor made, exactly
 * }</pre>
 *
 * <p>The test kit hands the same instance to its mock server ({@code
 * MockServerExtension.withClock(time)}), so that the server's journal records arrivals on the
 * client's virtual time and the gaps between attempts can be asserted to the nanosecond while
 * nobody waits for real. The simulator runs its trials on it.
 *
 * <p>Defaults: the ticker starts at 0, the wall clock at 2026-01-01T00:00:00Z, and the randomness
 * is {@code RandomSource.seeded(42)} ({@link #withSeed(long)} changes it). Thread-safe.
 */
public final class FakeTime implements TimeSource, Ticker, Clock {
  /** The seed of {@link #random()} unless {@link #withSeed(long)} says otherwise. */
  public static final long DEFAULT_SEED = 42;

  /** The wall-clock time a new {@code FakeTime} starts at unless told otherwise. */
  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

  private final AtomicLong nanos = new AtomicLong();
  private final long wallOriginNanos;
  private final RecordingSleeper sleeper = new RecordingSleeper(this);
  private final ManualScheduler scheduler = new ManualScheduler(this);
  private volatile RandomSource random = RandomSource.seeded(DEFAULT_SEED);

  /** Creates fake time starting at {@link #DEFAULT_START}. */
  public FakeTime() {
    this(DEFAULT_START);
  }

  /**
   * Creates fake time whose wall clock starts at the given instant.
   *
   * @param wallStart the wall-clock time at ticker reading 0
   * @throws NullPointerException if {@code wallStart} is null
   */
  public FakeTime(Instant wallStart) {
    Objects.requireNonNull(wallStart, "wallStart cannot be null");
    this.wallOriginNanos = Math.multiplyExact(wallStart.toEpochMilli(), 1_000_000L);
  }

  /**
   * Returns this time as its own ticker.
   *
   * @return this
   */
  @Override
  public Ticker ticker() {
    return this;
  }

  /**
   * Returns this time as its own wall clock.
   *
   * @return this
   */
  @Override
  public Clock clock() {
    return this;
  }

  /**
   * Returns the sleeper that records each wait and advances this time by it.
   *
   * @return the same sleeper on every call
   */
  @Override
  public RecordingSleeper sleeper() {
    return sleeper;
  }

  /**
   * Returns the scheduler whose tasks run when this time is advanced through it.
   *
   * @return the same scheduler on every call
   */
  @Override
  public ManualScheduler scheduler() {
    return scheduler;
  }

  /**
   * Returns the seeded randomness for jitter and spreads.
   *
   * @return the random source
   */
  @Override
  public RandomSource random() {
    return random;
  }

  /**
   * Seeds the randomness anew, e.g. to run the same test under several seeds. Set it before the
   * code under test is built.
   *
   * @param seed the seed
   * @return this
   */
  public FakeTime withSeed(long seed) {
    this.random = RandomSource.seeded(seed);
    return this;
  }

  @Override
  public long read() {
    return nanos.get();
  }

  @Override
  public long millis() {
    return Math.floorDiv(wallOriginNanos + nanos.get(), 1_000_000L);
  }

  /**
   * Moves time forward.
   *
   * @param duration how far; zero is allowed
   * @return this
   * @throws IllegalArgumentException if {@code duration} is negative: time never runs backwards
   */
  public FakeTime advance(Duration duration) {
    return advanceNanos(duration.toNanos());
  }

  /**
   * Moves time forward.
   *
   * @param delta nanoseconds, zero or more
   * @return this
   * @throws IllegalArgumentException if {@code delta} is negative
   */
  public FakeTime advanceNanos(long delta) {
    if (delta < 0) {
      throw new IllegalArgumentException("time cannot run backwards: " + delta + " ns");
    }
    nanos.addAndGet(delta);
    return this;
  }

  /**
   * Moves time forward to the given ticker reading, if it lies ahead.
   *
   * @param tickerNanos the target reading
   * @return this
   */
  public FakeTime advanceTo(long tickerNanos) {
    nanos.accumulateAndGet(tickerNanos, Math::max);
    return this;
  }

  /**
   * Returns the time elapsed since the ticker read 0.
   *
   * @return the elapsed time
   */
  public Duration elapsed() {
    return Duration.ofNanos(nanos.get());
  }
}
