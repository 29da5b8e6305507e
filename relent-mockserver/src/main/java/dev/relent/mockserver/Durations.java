package dev.relent.mockserver;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * Parses the scenario file's durations: {@code 250ms}, {@code 2s}, {@code 1m}, ISO {@code PT2S}.
 */
final class Durations {

  static final String EXPECTED = "expected a duration like 250ms, 2s, 1m or PT2S";

  private Durations() {}

  /**
   * Parses a non-negative duration.
   *
   * @return the duration, or {@code null} when {@code text} is not one
   */
  static Duration parse(String text) {
    if (text.isEmpty()) {
      return null;
    }
    char first = text.charAt(0);
    if (first == 'P' || first == 'p') {
      try {
        Duration d = Duration.parse(text);
        return d.isNegative() ? null : d;
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    int i = 0;
    long value = 0;
    while (i < text.length() && Character.isDigit(text.charAt(i))) {
      value = value * 10 + (text.charAt(i) - '0');
      if (value > 1_000_000_000L) {
        return null;
      }
      i++;
    }
    if (i == 0) {
      return null;
    }
    String unit = text.substring(i);
    switch (unit) {
      case "ms":
        return Duration.ofMillis(value);
      case "s":
        return Duration.ofSeconds(value);
      case "m":
        return Duration.ofMinutes(value);
      case "h":
        return Duration.ofHours(value);
      case "d":
        return Duration.ofDays(value);
      case "":
        // A bare number is ambiguous (seconds or milliseconds?); only zero means the same in both.
        return value == 0 ? Duration.ZERO : null;
      default:
        return null;
    }
  }

  /** Formats a duration the way the scenario file writes it, for messages and JSON. */
  static String format(Duration d) {
    long millis = d.toMillis();
    if (millis % 86_400_000L == 0 && millis != 0) {
      return millis / 86_400_000L + "d";
    }
    if (millis % 3_600_000L == 0 && millis != 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis % 60_000L == 0 && millis != 0) {
      return millis / 60_000L + "m";
    }
    if (millis % 1000L == 0) {
      return millis / 1000L + "s";
    }
    return millis + "ms";
  }
}
