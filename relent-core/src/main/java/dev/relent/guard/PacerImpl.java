package dev.relent.guard;

import dev.relent.spi.PacerState;

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

  PacerImpl(long intervalNanos, int burst, long toleranceNanos, PacerState state) {
    this.intervalNanos = intervalNanos;
    this.burst = burst;
    this.toleranceNanos = toleranceNanos;
    this.state = state;
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
  public long intervalNanos() {
    return intervalNanos;
  }

  @Override
  public int burst() {
    return burst;
  }

  @Override
  public long pausedUntil() {
    return state.pausedUntil();
  }

  @Override
  public String toString() {
    return "Pacer[interval=" + intervalNanos + " ns, burst=" + burst + "]";
  }
}
