package dev.relent.guard;

import dev.relent.spi.PacerState;

/**
 * A pacer state that passes every call to an in-memory one: a test overrides the methods whose
 * calls it wants to see or whose answer it wants to change ({@code shareInterval}, {@code
 * isShared}).
 */
class ForwardingPacerState implements PacerState {
  final PacerState inMemory = PacerState.inMemory();

  @Override
  public long reserve(long now, long interval, long tolerance, long maxWait) {
    return inMemory.reserve(now, interval, tolerance, maxWait);
  }

  @Override
  public boolean refund(long reservedAt, long interval) {
    return inMemory.refund(reservedAt, interval);
  }

  @Override
  public void pauseUntil(long until) {
    inMemory.pauseUntil(until);
  }

  @Override
  public long pausedUntil() {
    return inMemory.pausedUntil();
  }
}
