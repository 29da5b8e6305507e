package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.spi.PacerState;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The {@link Pacer}: an immutable rate in front of a {@link PacerState}, which runs GCRA
 * atomically. Stateless itself, so thread-safe whenever the state is; nothing is allocated per
 * call.
 */
final class PacerImpl implements Pacer {
  private final long intervalNanos;
  private final int burst;
  private final long toleranceNanos;
  private final PacerState state;
  private final TimeSource time;

  PacerImpl(long intervalNanos, int burst, long toleranceNanos, PacerState state, TimeSource time) {
    this.intervalNanos = intervalNanos;
    this.burst = burst;
    this.toleranceNanos = toleranceNanos;
    this.state = state;
    this.time = time;
  }

  @Override
  public long tryAcquire(long nowNanos, long maxWaitNanos) {
    if (maxWaitNanos < 0) {
      throw new IllegalArgumentException("maxWaitNanos must be >= 0: " + maxWaitNanos + " ns");
    }
    return state.reserve(nowNanos, intervalNanos, toleranceNanos, maxWaitNanos);
  }

  @Override
  public void refund(long reservedAtNanos) {
    state.refund(reservedAtNanos, intervalNanos);
  }

  @Override
  public void pauseUntil(long untilNanos) {
    state.pauseUntil(untilNanos);
  }

  @Override
  public Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  @Override
  public int burst() {
    return burst;
  }

  @Override
  public Optional<Instant> pausedUntil() {
    long left = pauseNanosLeft();
    return left == 0 ? Optional.empty() : Optional.of(time.clock().instant().plusNanos(left));
  }

  @Override
  public Duration pauseRemaining() {
    return Duration.ofNanos(pauseNanosLeft());
  }

  /** The nanos from now until the pause ends, 0 if not paused. */
  private long pauseNanosLeft() {
    long until = state.pausedUntil();
    long now = time.ticker().read();
    // Compared as the state compares them; MIN_VALUE (never paused) is before any reading.
    return until <= now ? 0 : Nanos.saturatedAdd(until, -now);
  }

  @Override
  public String toString() {
    return "Pacer[interval=" + Durations.format(intervalNanos) + ", burst=" + burst + "]";
  }
}
