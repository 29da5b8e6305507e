package dev.relent.guard;

import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Scheduler;
import dev.relent.time.Sleeper;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;

/**
 * A time source for the guards' inspection methods: a ticker and a clock that move together, only
 * when told. Sleeping and scheduling are the system's (the guards never use them).
 */
final class ManualTime implements TimeSource {
  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private long nanos;

  /** Moves both the ticker and the clock forward. */
  ManualTime advance(Duration duration) {
    nanos += duration.toNanos();
    return this;
  }

  @Override
  public Ticker ticker() {
    return () -> nanos;
  }

  @Override
  public Clock clock() {
    return () -> START.toEpochMilli() + nanos / 1_000_000L;
  }

  @Override
  public Sleeper sleeper() {
    return TimeSource.system().sleeper();
  }

  @Override
  public Scheduler scheduler() {
    return TimeSource.system().scheduler();
  }

  @Override
  public RandomSource random() {
    return TimeSource.system().random();
  }
}
