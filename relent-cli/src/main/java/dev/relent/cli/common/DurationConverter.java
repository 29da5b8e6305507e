package dev.relent.cli.common;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads durations as people write them: {@code 250ms}, {@code 2s}, {@code 1.5s}, {@code 1m}, {@code
 * 2h}, {@code 1d}, or ISO-8601 ({@code PT2S}). A bare number is refused: {@code 12} could mean
 * seconds or milliseconds, and a guess here is how a 12 s timeout becomes 12 ms.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  public static final String FORMS = "250ms, 2s, 1.5s, 1m, 2h, 1d or ISO-8601 like PT2S";

  private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * Writes a duration of whole milliseconds as a flag takes it: {@code 500ms}, {@code 30s}; whole
   * seconds in seconds, never in minutes ({@code 60s}).
   */
  public static String text(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  public static Duration parse(String value) {
    String text = value.trim();
    if (text.toUpperCase(Locale.ROOT).startsWith("P")) {
      try {
        return nonNegative(value, Duration.parse(text.toUpperCase(Locale.ROOT)));
      } catch (DateTimeParseException e) {
        throw invalid(value);
      }
    }
    Matcher m = FORM.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw invalid(value);
    }
    double amount = Double.parseDouble(m.group(1));
    double nanosPerUnit;
    switch (m.group(2)) {
      case "ms":
        nanosPerUnit = 1e6;
        break;
      case "s":
        nanosPerUnit = 1e9;
        break;
      case "m":
        nanosPerUnit = 60e9;
        break;
      case "h":
        nanosPerUnit = 3600e9;
        break;
      default:
        nanosPerUnit = 86400e9;
        break;
    }
    double nanos = amount * nanosPerUnit;
    if (nanos >= Long.MAX_VALUE) {
      throw new CommandLine.TypeConversionException("'" + value + "' is too long");
    }
    return Duration.ofNanos(Math.round(nanos));
  }

  private static Duration nonNegative(String value, Duration d) {
    if (d.isNegative()) {
      throw new CommandLine.TypeConversionException("'" + value + "' is negative");
    }
    return d;
  }

  private static CommandLine.TypeConversionException invalid(String value) {
    return new CommandLine.TypeConversionException(
        "'" + value + "' is not a duration; use " + FORMS);
  }
}
