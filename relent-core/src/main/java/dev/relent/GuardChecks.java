package dev.relent;

import java.time.Duration;
import java.util.Objects;

/** Validation shared by the guard builders; messages name the value and its unit. */
final class GuardChecks {
  private GuardChecks() {}

  /**
   * Converts a positive duration to nanoseconds.
   *
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if it is not positive or does not fit a long of nanoseconds
   */
  static long positiveNanos(String name, Duration value) {
    Objects.requireNonNull(value, () -> name + " cannot be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0: " + format(value));
    }
    try {
      return value.toNanos();
    } catch (ArithmeticException tooLong) {
      throw new IllegalArgumentException(
          name + " must be at most 292 years (a long of nanoseconds): " + format(value), tooLong);
    }
  }

  /** Formats a duration in the largest of ns, us, ms, s that shows it exactly. */
  static String format(Duration value) {
    if (value.getNano() % 1_000_000 == 0) {
      if (value.getNano() == 0) {
        return value.getSeconds() + " s";
      }
      return value.toMillis() + " ms";
    }
    if (value.getNano() % 1_000 == 0) {
      return (value.getSeconds() * 1_000_000L + value.getNano() / 1_000) + " us";
    }
    try {
      return value.toNanos() + " ns";
    } catch (ArithmeticException tooLong) {
      return value.toString();
    }
  }
}
