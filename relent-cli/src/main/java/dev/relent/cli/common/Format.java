package dev.relent.cli.common;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * How the CLI prints numbers, durations and names: few digits, no trailing zeros, no locale.
 *
 * <p>relent-core's {@code Durations.format} is not used: the CLI's texts are a contract of their
 * own ({@code 0 ms}, two decimals below a second, minutes spelled out for long spans), which
 * scripts and docs/cli.md rely on.
 */
public final class Format {
  private Format() {}

  /**
   * An enum constant as the CLI writes it, in the journal, the results, the report and on stderr:
   * lower case with hyphens ({@code RETRIES_EXHAUSTED} is {@code retries-exhausted}).
   */
  public static String slug(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Milliseconds with at most three decimals (microseconds), as a JSON number: {@code 71.469}. */
  public static BigDecimal jsonMillis(long nanos) {
    return BigDecimal.valueOf(nanos)
        .movePointLeft(6)
        .setScale(3, RoundingMode.HALF_UP)
        .stripTrailingZeros();
  }

  /**
   * A number with at most two decimals and no trailing zeros: {@code 1.5}, {@code 3}, {@code
   * 666.67}.
   */
  public static String number(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return String.valueOf(value);
    }
    BigDecimal rounded = BigDecimal.valueOf(value).setScale(2, RoundingMode.HALF_UP);
    String text = rounded.stripTrailingZeros().toPlainString();
    return text.equals("-0") ? "0" : text;
  }

  /** Whole milliseconds, rounded: {@code 667 ms}. */
  public static String millis(Duration d) {
    return Math.round(d.toNanos() / 1e6) + " ms";
  }

  /**
   * {@code 400 s}, {@code 2 s}, {@code 250 ms}, {@code 1.5 s}; long spans add minutes: {@code 400 s
   * (6 min 40 s)}.
   */
  public static String duration(Duration d) {
    long nanos = d.toNanos();
    if (nanos < 1_000_000_000L) {
      return number(nanos / 1e6) + " ms";
    }
    String seconds = number(nanos / 1e9) + " s";
    long whole = d.getSeconds();
    if (whole < 120) {
      return seconds;
    }
    long h = whole / 3600;
    long m = (whole % 3600) / 60;
    long s = whole % 60;
    String spelled = (h > 0 ? h + " h " : "") + m + " min" + (s > 0 ? " " + s + " s" : "");
    return seconds + " (" + spelled + ")";
  }

  /**
   * A time a wait ends, as the CLI prints it everywhere (the summary, stderr, the results, the
   * journal, the report): ISO-8601 in UTC to the whole second, {@code 2026-12-02T09:00:00Z}. The
   * fraction is dropped: a server gives its waits in whole seconds (a quota that resets at midnight
   * says {@code t=21599} at 18:00:00.4), so the fraction is the moment the answer came, not part of
   * the reset.
   */
  public static Instant wholeSecond(Instant at) {
    return Instant.ofEpochSecond(at.getEpochSecond());
  }

  /** {@link #wholeSecond} as text: {@code 2026-12-02T09:00:00Z}. */
  public static String instant(Instant at) {
    return wholeSecond(at).toString();
  }

  /**
   * A span for people, rounded to the second: {@code 42 s}, {@code 5 min 3 s}, {@code 7 h 12 min}.
   */
  public static String span(Duration d) {
    long s = Math.max(0L, Math.round(d.toNanos() / 1e9));
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return (s / 60) + " min " + (s % 60) + " s";
    }
    long m = Math.round(s / 60.0);
    return (m / 60) + " h " + (m % 60) + " min";
  }
}
