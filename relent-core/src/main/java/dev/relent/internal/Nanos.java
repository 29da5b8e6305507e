package dev.relent.internal;

import java.time.Duration;
import java.util.Objects;

/** Saturating nanosecond arithmetic and the validation of durations that setters share. */
public final class Nanos {
  private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

  private Nanos() {}

  /** Nanoseconds of a duration, saturating at {@code Long.MAX_VALUE} instead of throwing. */
  public static long saturatedNanos(Duration duration) {
    if (duration.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L) {
      return Long.MAX_VALUE;
    }
    if (duration.getSeconds() < Long.MIN_VALUE / 1_000_000_000L) {
      return Long.MIN_VALUE;
    }
    return duration.toNanos();
  }

  /** {@code a * b} for {@code a, b >= 0}, saturating at {@code Long.MAX_VALUE}. */
  public static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return (hi == 0 && lo >= 0) ? lo : Long.MAX_VALUE;
  }

  /** {@code a + b}, saturating at the bounds of long. */
  public static long saturatedAdd(long a, long b) {
    long sum = a + b;
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }

  /**
   * Validates a setting that must be strictly positive and fit a long of nanoseconds.
   *
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if it is zero, negative or longer than about 292 years
   */
  public static Duration requirePositive(Duration value, String name) {
    Objects.requireNonNull(value, () -> name + " cannot be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0: " + exact(value));
    }
    return requireFits(value, name);
  }

  /** Like {@link #requirePositive} but returns the nanoseconds. */
  public static long positiveNanos(String name, Duration value) {
    return requirePositive(value, name).toNanos();
  }

  /**
   * Validates a setting that must not be negative and must fit a long of nanoseconds.
   *
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if it is negative or longer than about 292 years
   */
  public static Duration requireNonNegative(Duration value, String name) {
    Objects.requireNonNull(value, () -> name + " cannot be null");
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must be >= 0: " + exact(value));
    }
    return requireFits(value, name);
  }

  private static Duration requireFits(Duration value, String name) {
    if (value.compareTo(MAX_NANOS) > 0) {
      throw new IllegalArgumentException(
          name + " must be at most 292 years (a long of nanoseconds): " + exact(value));
    }
    return value;
  }

  /**
   * Formats a setting for a validation message exactly, in the largest of s, ms, us or ns that
   * shows it without rounding ("-5 ms", "1500 us", "0 s"), so the message repeats what was given.
   */
  public static String exact(Duration value) {
    if (value.getNano() % 1_000_000 == 0) {
      if (value.getNano() == 0) {
        return value.getSeconds() + " s";
      }
      if (value.compareTo(MAX_NANOS) <= 0 && value.compareTo(MAX_NANOS.negated()) >= 0) {
        return value.toMillis() + " ms";
      }
      return value.toString();
    }
    if (value.compareTo(MAX_NANOS) > 0 || value.compareTo(MAX_NANOS.negated()) < 0) {
      return value.toString();
    }
    long nanos = value.toNanos();
    return nanos % 1_000L == 0 ? nanos / 1_000L + " us" : nanos + " ns";
  }
}
