package dev.relent.mockserver;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand: wall time and monotonic time advance together. */
final class FakeClock implements MockClock {
  private final AtomicLong wall;
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  FakeClock(Instant start) {
    this.wall = new AtomicLong(start.toEpochMilli());
  }

  void advance(Duration d) {
    wall.addAndGet(d.toMillis());
    nanos.addAndGet(d.toNanos());
  }

  @Override
  public long wallMillis() {
    return wall.get();
  }

  @Override
  public long monotonicNanos() {
    return nanos.get();
  }
}
