package dev.relent.spi;

import dev.relent.internal.SpinLocked;

/**
 * The default {@link PacerState}: the four numbers of the reference algorithm behind one monitor.
 *
 * <p>Concurrency: every change holds a {@link SpinLocked spin lock} for a handful of arithmetic
 * operations, so the four fields always change together (a lock-free version would need them in one
 * word); {@link #pausedUntil()} reads a volatile field without it. Nothing is allocated per call.
 */
final class InMemoryPacerState extends SpinLocked implements PacerState {
  private long tat = Long.MIN_VALUE;
  private long lastStart = Long.MIN_VALUE;
  private long lastStartCount;
  private volatile long pausedUntil = Long.MIN_VALUE;

  /** Creates an empty schedule. */
  public InMemoryPacerState() {}

  @Override
  public long reserve(long nowNanos, long intervalNanos, long toleranceNanos, long maxWaitNanos) {
    lock();
    long start = PacerState.earliestStart(tat, pausedUntil, nowNanos, toleranceNanos);
    long wait = saturatedDifference(start, nowNanos);
    if (wait <= maxWaitNanos) {
      tat = PacerState.nextTheoreticalArrival(tat, start, intervalNanos);
      if (start == lastStart) {
        lastStartCount++;
      } else {
        lastStart = start;
        lastStartCount = 1;
      }
    }
    unlock();
    return wait <= maxWaitNanos ? wait : -wait;
  }

  @Override
  public boolean refund(long reservedAtNanos, long intervalNanos) {
    lock();
    boolean refunded = reservedAtNanos == lastStart && lastStartCount > 0;
    if (refunded) {
      tat -= intervalNanos;
      lastStartCount--;
    }
    unlock();
    return refunded;
  }

  @Override
  public boolean respace(long reservedAtNanos, long oldIntervalNanos, long newIntervalNanos) {
    lock();
    boolean respaced = reservedAtNanos == lastStart && lastStartCount > 0;
    if (respaced) {
      tat += newIntervalNanos - oldIntervalNanos;
    }
    unlock();
    return respaced;
  }

  @Override
  public void pauseUntil(long untilNanos) {
    lock();
    if (untilNanos > pausedUntil) {
      pausedUntil = untilNanos;
    }
    unlock();
  }

  @Override
  public long pausedUntil() {
    return pausedUntil;
  }

  /** {@code start >= now} here, so only an overflow to negative needs catching. */
  private static long saturatedDifference(long start, long now) {
    long difference = start - now;
    return difference < 0 ? Long.MAX_VALUE : difference;
  }
}
