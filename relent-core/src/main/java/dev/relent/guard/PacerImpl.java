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
    requireMaxWait(maxWaitNanos);
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
    return pausedUntil(state, time);
  }

  @Override
  public Duration pauseRemaining() {
    return Duration.ofNanos(pauseNanosLeft(state, time));
  }

  /** When the state's pause ends, read with {@code time}; empty if not paused. Every pacer's. */
  static Optional<Instant> pausedUntil(PacerState state, TimeSource time) {
    long left = pauseNanosLeft(state, time);
    return left == 0 ? Optional.empty() : Optional.of(time.clock().instant().plusNanos(left));
  }

  /** The nanos from now until the state's pause ends, 0 if not paused. */
  static long pauseNanosLeft(PacerState state, TimeSource time) {
    long until = state.pausedUntil();
    long now = time.ticker().read();
    // Compared as the state compares them; MIN_VALUE (never paused) is before any reading.
    return until <= now ? 0 : Nanos.saturatedAdd(until, -now);
  }

  /** Refuses a negative longest wait, as every pacer does. */
  static void requireMaxWait(long maxWaitNanos) {
    if (maxWaitNanos < 0) {
      throw new IllegalArgumentException("maxWaitNanos must be >= 0: " + maxWaitNanos + " ns");
    }
  }

  @Override
  public boolean sharesState() {
    return state.isShared();
  }

  @Override
  public String toString() {
    return "Pacer[interval=" + Durations.format(intervalNanos) + ", burst=" + burst + "]";
  }
}
