package dev.relent.time;

import dev.relent.internal.Nanos;
import java.time.Duration;
import java.util.Locale;

/** Duration arithmetic and formatting shared by the policies: saturating, never throwing. */
public final class Durations {

  private Durations() {}

  /**
   * Formats a duration exactly, in the largest unit that shows it without rounding: {@code 30 s},
   * {@code 250 ms}, {@code 1500 us}, {@code 7 ns}.
   *
   * @param value the duration
   * @return the text
   */
  public static String exact(Duration value) {
    return Nanos.exact(value);
  }

  /**
   * Formats for people: {@code 250 ms}, {@code 2.31 s}, {@code 30 s}, {@code 86400 s}. Seconds are
   * used from one second up, because servers speak in seconds ({@code Retry-After: 86400}) and the
   * person reading must be able to compare the two.
   */
  public static String format(long nanos) {
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
