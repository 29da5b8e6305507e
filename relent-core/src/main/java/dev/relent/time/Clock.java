package dev.relent.time;

import java.time.Instant;

/**
 * Wall-clock time, used only where the outside world speaks in dates: an HTTP-date in {@code
 * Retry-After} or {@code Date}, a quota that resets at midnight. Deadlines and waits use {@link
 * Ticker}, which never jumps. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Clock {

  /**
   * Returns the current wall-clock time.
   *
   * @return milliseconds since the Unix epoch
   */
  long millis();

  /**
   * Returns the current wall-clock time as an instant.
   *
   * @return the current instant, at millisecond precision
   */
  default Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  /**
   * Returns the clock backed by {@link System#currentTimeMillis()}.
   *
   * @return the system clock, shared and thread-safe
   */
  static Clock system() {
    return SystemTime.INSTANCE;
  }
}
