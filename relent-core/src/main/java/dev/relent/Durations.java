package dev.relent;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/** Duration arithmetic and formatting shared by the policies: saturating, never throwing. */
final class Durations {
  private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

  private Durations() {}

  /** Nanoseconds of a duration, saturating at {@code Long.MAX_VALUE} instead of throwing. */
  static long saturatedNanos(Duration duration) {
    if (duration.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L) {
      return Long.MAX_VALUE;
    }
    if (duration.getSeconds() < Long.MIN_VALUE / 1_000_000_000L) {
      return Long.MIN_VALUE;
    }
    return duration.toNanos();
  }

  /** {@code a + b}, saturating at the bounds of long. */
  static long saturatedAdd(long a, long b) {
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
  static Duration requirePositive(Duration value, String name) {
    Objects.requireNonNull(value, () -> name + " cannot be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0: " + exact(value));
    }
    return requireFits(value, name);
  }

  /** Like {@link #requirePositive} but returns the nanoseconds. */
  static long positiveNanos(String name, Duration value) {
    return requirePositive(value, name).toNanos();
  }

  /**
   * Validates a setting that must not be negative and must fit a long of nanoseconds.
   *
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if it is negative or longer than about 292 years
   */
  static Duration requireNonNegative(Duration value, String name) {
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
  static String exact(Duration value) {
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

  /**
   * Formats for people: {@code 250 ms}, {@code 2.31 s}, {@code 30 s}, {@code 86400 s}. Seconds are
   * used from one second up, because servers speak in seconds ({@code Retry-After: 86400}) and the
   * person reading must be able to compare the two.
   */
  static String format(long nanos) {
    if (nanos < 0) {
      return nanos == Long.MIN_VALUE ? "-292 years" : "-" + format(-nanos);
    }
    if (nanos == Long.MAX_VALUE) {
      return "forever";
    }
    if (nanos < 1_000_000L) {
      return nanos == 0 ? "0 s" : trim(String.format(Locale.ROOT, "%.3f", nanos / 1e6)) + " ms";
    }
    if (nanos < 1_000_000_000L) {
      return trim(String.format(Locale.ROOT, "%.1f", nanos / 1e6)) + " ms";
    }
    return trim(String.format(Locale.ROOT, "%.2f", nanos / 1e9)) + " s";
  }

  private static String trim(String decimal) {
    if (decimal.indexOf('.') < 0) {
      return decimal;
    }
    int end = decimal.length();
    while (decimal.charAt(end - 1) == '0') {
      end--;
    }
    if (decimal.charAt(end - 1) == '.') {
      end--;
    }
    return decimal.substring(0, end);
  }
}
