package dev.relent.http;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the {@code Retry-After} header (RFC 9110 §10.2.3): how long the server asks the client to
 * wait. Pure functions of their arguments: the current time is passed in, never read.
 *
 * <p>A value is either {@code delta-seconds} or an HTTP-date:
 *
 * <ul>
 *   <li>{@code delta-seconds} is one or more ASCII digits, read as seconds ({@code 12} is 12 s,
 *       never milliseconds). Leading zeros are allowed. Signs, decimal points, hex prefixes, units
 *       and non-ASCII digits (such as Arabic-Indic ones) make the value invalid. A number too large
 *       for a {@link Duration} of {@code long} nanoseconds (more than 9,223,372,036 s, about 292
 *       years) saturates at {@code Duration.ofNanos(Long.MAX_VALUE)}, so {@link Duration#toNanos()}
 *       never throws on a result; no value wraps.
 *   <li>An HTTP-date in any of the three forms a recipient must accept (IMF-fixdate, RFC 850,
 *       asctime), always in GMT; see {@link #parseHttpDate(String, Instant)} for the exact rules.
 *       The wait is the date minus the server's own {@code Date} header when that is given and
 *       valid (this cancels any skew between the server's clock and ours), otherwise the date minus
 *       {@code now}. A date in the past gives {@link Duration#ZERO}; the caller's backoff still
 *       applies as a floor.
 * </ul>
 *
 * <p>Optional whitespace (space and horizontal tab) around a field value is not part of it and is
 * ignored, so {@code " 12 "} is 12 s. Other whitespace (CR, LF, no-break space) is not trimmed and
 * makes the value invalid.
 *
 * <p>Anything else, including {@code null} and the empty string, gives {@link Optional#empty()}. No
 * string makes these methods throw; only a null {@code now} or {@code instant} does.
 *
 * <p>This class has no state and is thread-safe.
 */
public final class RetryAfter {
  /** The largest wait returned: what fits in {@code long} nanoseconds. */
  private static final Duration SATURATED = Duration.ofNanos(Long.MAX_VALUE);

  /** The largest whole number of seconds that fits in {@code long} nanoseconds. */
  private static final long MAX_SECONDS = Long.MAX_VALUE / 1_000_000_000L;

  private RetryAfter() {}

  /**
   * Returns the wait that a {@code Retry-After} value asks for, measuring a date against the local
   * clock.
   *
   * @param value the header value; may be null or anything at all
   * @param now the local wall-clock time
   * @return the wait, zero or positive, or empty if the value is not valid
   * @throws NullPointerException if {@code now} is null
   */
  public static Optional<Duration> parse(String value, Instant now) {
    return parse(value, now, null);
  }

  /**
   * Returns the wait that a {@code Retry-After} value asks for, measuring a date against the
   * response's own {@code Date} header when it is valid.
   *
   * @param value the header value; may be null or anything at all
   * @param now the local wall-clock time; used when {@code serverDate} is not a valid HTTP-date,
   *     and for RFC 850's two-digit years
   * @param serverDate the response's {@code Date} header value; may be null or anything at all
   *     (then ignored); it does not affect a {@code delta-seconds} value
   * @return the wait, zero or positive, or empty if the value is not valid
   * @throws NullPointerException if {@code now} is null
   */
  public static Optional<Duration> parse(String value, Instant now, String serverDate) {
    Objects.requireNonNull(now, "now cannot be null");
    if (value == null) {
      return Optional.empty();
    }
    int start = skipLeadingWhitespace(value);
    int end = skipTrailingWhitespace(value, start);
    if (start == end) {
      return Optional.empty();
    }
    if (isDigit(value.charAt(start))) {
      return deltaSeconds(value, start, end);
    }
    long date = HttpDates.parse(value, start, end, now.getEpochSecond());
    if (date == HttpDates.INVALID) {
      return Optional.empty();
    }
    long server = HttpDates.INVALID;
    if (serverDate != null) {
      int serverStart = skipLeadingWhitespace(serverDate);
      int serverEnd = skipTrailingWhitespace(serverDate, serverStart);
      server = HttpDates.parse(serverDate, serverStart, serverEnd, now.getEpochSecond());
    }
    return server != HttpDates.INVALID
        ? Optional.of(between(server, 0, date))
        : Optional.of(between(now.getEpochSecond(), now.getNano(), date));
  }

  /**
   * Parses an HTTP-date (RFC 9110 §5.6.7) in any of its three forms:
   *
   * <pre>
   * IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
   * RFC 850      Sunday, 06-Nov-94 08:49:37 GMT
   * asctime      Sun Nov  6 08:49:37 1994
   * </pre>
   *
   * <p>Beyond the grammar, it accepts day names, month names and {@code GMT} in any ASCII case, an
   * asctime day written as {@code "6"} after a single space, and a day name that does not match the
   * date (the date wins: rejecting it would lose the server's wait). It rejects any zone but {@code
   * GMT}, years outside 0000–9999, impossible dates (30 February, 29 February in a common year,
   * hour 24, minute 60) and any extra or missing character. The leap second {@code 23:59:60} is
   * read as the following midnight. RFC 850's two-digit year is the latest year with those last two
   * digits whose timestamp is not more than 50 years after {@code now} (comparing the fields
   * against {@code now} with 50 added to its year). Space and tab around the value are ignored.
   *
   * @param value the date; may be null or anything at all
   * @param now the local wall-clock time, used only for RFC 850's two-digit years
   * @return the instant, at whole seconds, or empty if the value is not a valid HTTP-date
   * @throws NullPointerException if {@code now} is null
   */
  public static Optional<Instant> parseHttpDate(String value, Instant now) {
    Objects.requireNonNull(now, "now cannot be null");
    if (value == null) {
      return Optional.empty();
    }
    int start = skipLeadingWhitespace(value);
    int end = skipTrailingWhitespace(value, start);
    long epochSecond = HttpDates.parse(value, start, end, now.getEpochSecond());
    return epochSecond == HttpDates.INVALID
        ? Optional.empty()
        : Optional.of(Instant.ofEpochSecond(epochSecond));
  }

  /**
   * Formats an instant as IMF-fixdate, the form HTTP senders must use, for example {@code Sun, 06
   * Nov 1994 08:49:37 GMT}. Fractions of a second are dropped (the instant is rounded down).
   *
   * @param instant a time within the years 0000–9999
   * @return the 29-character date
   * @throws NullPointerException if {@code instant} is null
   * @throws IllegalArgumentException if {@code instant} lies outside the years 0000–9999
   */
  public static String formatHttpDate(Instant instant) {
    Objects.requireNonNull(instant, "instant cannot be null");
    long epochSecond = instant.getEpochSecond();
    if (epochSecond < HttpDates.MIN_EPOCH_SECOND || epochSecond > HttpDates.MAX_EPOCH_SECOND) {
      throw new IllegalArgumentException("instant must be within years 0000-9999: " + instant);
    }
    return HttpDates.format(epochSecond);
  }

  /** ASCII digits only; the caller has checked that the first one is a digit. */
  private static Optional<Duration> deltaSeconds(String value, int start, int end) {
    long seconds = 0;
    boolean saturated = false;
    for (int i = start; i < end; i++) {
      char c = value.charAt(i);
      if (!isDigit(c)) {
        return Optional.empty();
      }
      // Keep validating after saturating: "99999999999999999999x" is still garbage.
      if (!saturated) {
        seconds = seconds * 10 + (c - '0');
        saturated = seconds > MAX_SECONDS;
      }
    }
    return Optional.of(saturated ? SATURATED : Duration.ofSeconds(seconds));
  }

  /** {@code toSecond - (fromSecond + fromNano)}, floored at zero and saturated. */
  private static Duration between(long fromSecond, int fromNano, long toSecond) {
    // Both operands lie within Instant's range (about +-3.2e16 s): the difference cannot wrap.
    long seconds = toSecond - fromSecond;
    if (seconds <= 0) {
      return Duration.ZERO;
    }
    Duration wait = Duration.ofSeconds(seconds, -fromNano);
    return wait.compareTo(SATURATED) > 0 ? SATURATED : wait;
  }

  private static int skipLeadingWhitespace(String s) {
    int i = 0;
    while (i < s.length() && isWhitespace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static int skipTrailingWhitespace(String s, int start) {
    int end = s.length();
    while (end > start && isWhitespace(s.charAt(end - 1))) {
      end--;
    }
    return end;
  }

  /** HTTP's optional whitespace: SP and HTAB only (RFC 9110 §5.6.3). */
  private static boolean isWhitespace(char c) {
    return c == ' ' || c == '\t';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
