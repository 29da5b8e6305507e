package dev.relent.proxy;

import java.time.Duration;
import java.util.Locale;

/** Reads a duration as callers write it in a header: {@code 5}, {@code 2.5s}, {@code 500ms}. */
final class Durations {
  private Durations() {}

  /**
   * Reads {@code text}: a positive number of seconds, or a number with {@code ms}, {@code s} or
   * {@code m}.
   *
   * @throws IllegalArgumentException saying the accepted forms
   */
  static Duration parse(String text, String what) {
    String t = text.toLowerCase(Locale.ROOT);
    double factor = 1e9;
    if (t.endsWith("ms")) {
      factor = 1e6;
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("s")) {
      t = t.substring(0, t.length() - 1);
    } else if (t.endsWith("m")) {
      factor = 60e9;
      t = t.substring(0, t.length() - 1);
    }
    double value;
    try {
      value = Double.parseDouble(t.strip());
    } catch (NumberFormatException e) {
      value = -1;
    }
    if (!(value > 0) || Double.isInfinite(value) || value * factor > 86_400e9) {
      throw new IllegalArgumentException(
          what
              + " must be a positive duration up to a day, as seconds (5, 2.5) or with ms, s or m"
              + " (500ms, 5s, 1m): '"
              + ProxyLog.clean(text)
              + "'");
    }
    return Duration.ofNanos((long) (value * factor));
  }
}
