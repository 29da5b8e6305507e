package dev.relent.time;

import java.util.Objects;

/** A {@link TimeSource} made of fixed parts. Immutable and thread-safe. */
record TimeBundle(
    Ticker ticker, Clock clock, Sleeper sleeper, Scheduler scheduler, RandomSource random)
    implements TimeSource {
  static final TimeSource SYSTEM =
      new TimeBundle(
          Ticker.system(),
          Clock.system(),
          Sleeper.system(),
          Scheduler.system(),
          RandomSource.system());

  /** Checks every part. */
  TimeBundle {
    Objects.requireNonNull(ticker, "ticker cannot be null");
    Objects.requireNonNull(clock, "clock cannot be null");
    Objects.requireNonNull(sleeper, "sleeper cannot be null");
    Objects.requireNonNull(scheduler, "scheduler cannot be null");
    Objects.requireNonNull(random, "random cannot be null");
  }
}
