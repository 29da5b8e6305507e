package dev.relent.cli.common;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * A rate such as {@code 90/min}: a count per unit of time. Accepted units: {@code s}, {@code sec},
 * {@code second}, {@code min}, {@code minute}, {@code h}, {@code hour}, {@code day}; the count may
 * have a fraction ({@code 1.5/s}). Immutable.
 *
 * @param permits the count, more than zero
 * @param per the unit of time
 */
public record Rate(double permits, Duration per) {
  private static final Pattern FORM =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*/\\s*(s|sec|second|min|minute|h|hour|day)");

  /** The accepted forms, for error messages. */
  public static final String FORMS = "N/s, N/min, N/h or N/day, e.g. 90/min or 1.5/s";

  /**
   * Returns the rate in permits per second.
   *
   * @return permits per second
   */
  public double perSecond() {
    return permits / (per.toNanos() / 1e9);
  }

  /**
   * Returns the interval between two evenly spaced starts.
   *
   * @return the interval, in whole nanoseconds
   */
  public Duration interval() {
    return Duration.ofNanos(Math.round(per.toNanos() / permits));
  }

  /**
   * Parses a rate.
   *
   * @param text the text, e.g. {@code 90/min}
   * @return the rate
   * @throws IllegalArgumentException if the text is not a rate, saying the accepted forms
   */
  public static Rate parse(String text) {
    Matcher m = FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (text.trim().startsWith("-")) {
      throw new IllegalArgumentException("'" + text + "': a rate cannot be negative; use " + FORMS);
    }
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a rate; use " + FORMS);
    }
    double permits = new BigDecimal(m.group(1)).doubleValue();
    if (!(permits > 0) || Double.isInfinite(permits)) {
      throw new IllegalArgumentException(
          "'" + text + "': the count must be more than 0; use " + FORMS);
    }
    Duration per;
    switch (m.group(2)) {
      case "s":
      case "sec":
      case "second":
        per = Duration.ofSeconds(1);
        break;
      case "min":
      case "minute":
        per = Duration.ofMinutes(1);
        break;
      case "h":
      case "hour":
        per = Duration.ofHours(1);
        break;
      default:
        per = Duration.ofDays(1);
        break;
    }
    return new Rate(permits, per);
  }

  @Override
  public String toString() {
    String count = permits == Math.rint(permits) ? Long.toString((long) permits) : "" + permits;
    String unit =
        per.equals(Duration.ofSeconds(1))
            ? "s"
            : per.equals(Duration.ofMinutes(1))
                ? "min"
                : per.equals(Duration.ofHours(1)) ? "h" : "day";
    return count + "/" + unit;
  }

  /** Picocli converter. */
  public static final class Converter implements CommandLine.ITypeConverter<Rate> {
    @Override
    public Rate convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
