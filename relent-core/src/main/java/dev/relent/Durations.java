package dev.relent;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/** Duration arithmetic and formatting shared by the policies: saturating, never throwing. */
final class Durations {
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

  /** Validates a duration that must be strictly positive. */
  static Duration requirePositive(Duration value, String name) {
    Objects.requireNonNull(value, name + " cannot be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0: " + format(value));
    }
    return value;
  }

  /** Validates a duration that must not be negative. */
  static Duration requireNonNegative(Duration value, String name) {
    Objects.requireNonNull(value, name + " cannot be null");
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must be >= 0: " + format(value));
    }
    return value;
  }

  static String format(Duration duration) {
    if (duration.isNegative()) {
      return "-" + format(duration.negated());
    }
    return format(saturatedNanos(duration));
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
