package dev.relent.idempotency.spi;

/**
 * Wall-clock time for record creation and expiry. This module cannot depend on relent-core, so it
 * has its own one-method clock; adapt relent-core's clock with a method reference ({@code
 * withClock(coreClock::millis)}). Records written by several processes to one shared store compare
 * these times, so every process should use a synchronized wall clock, not a monotonic ticker.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface WallClock {

  /**
   * Returns the current wall-clock time.
   *
   * @return milliseconds since the Unix epoch
   */
  long millis();

  /**
   * Returns the clock backed by {@link System#currentTimeMillis()}.
   *
   * @return the system clock, shared and thread-safe
   */
  static WallClock system() {
    return SystemWallClock.INSTANCE;
  }
}
