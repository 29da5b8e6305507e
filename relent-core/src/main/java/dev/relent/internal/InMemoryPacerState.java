package dev.relent.internal;

import dev.relent.spi.PacerState;

/**
 * The default {@link PacerState}: the four numbers of the reference algorithm behind one monitor.
 *
 * <p>Concurrency: every method holds the monitor of a private lock for a handful of arithmetic
 * operations, so the four fields always change together (a lock-free version would need them in one
 * word). Nothing is allocated per call.
 */
public final class InMemoryPacerState implements PacerState {
  private final Object lock = new Object();
  private long tat = Long.MIN_VALUE;
  private long lastStart = Long.MIN_VALUE;
  private long lastStartCount;
  private long pausedUntil = Long.MIN_VALUE;

  /** Creates an empty schedule. */
  public InMemoryPacerState() {}

  @Override
  public long reserve(long nowNanos, long intervalNanos, long toleranceNanos, long maxWaitNanos) {
    synchronized (lock) {
      long start = PacerState.earliestStart(tat, pausedUntil, nowNanos, toleranceNanos);
      long wait = saturatedDifference(start, nowNanos);
      if (wait > maxWaitNanos) {
        return -wait;
      }
      tat = PacerState.nextTheoreticalArrival(tat, start, intervalNanos);
      if (start == lastStart) {
        lastStartCount++;
      } else {
        lastStart = start;
        lastStartCount = 1;
      }
      return wait;
    }
  }

  @Override
  public boolean refund(long reservedAtNanos, long intervalNanos) {
    synchronized (lock) {
      if (reservedAtNanos != lastStart || lastStartCount <= 0) {
        return false;
      }
      tat -= intervalNanos;
      lastStartCount--;
      return true;
    }
  }

  @Override
  public void pauseUntil(long untilNanos) {
    synchronized (lock) {
      pausedUntil = Math.max(pausedUntil, untilNanos);
    }
  }

  @Override
  public long pausedUntil() {
    synchronized (lock) {
      return pausedUntil;
    }
  }

  /** {@code start >= now} here, so only an overflow to negative needs catching. */
  private static long saturatedDifference(long start, long now) {
    long difference = start - now;
    return difference < 0 ? Long.MAX_VALUE : difference;
  }
}
