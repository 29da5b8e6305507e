package dev.relent.mockserver;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The three HTTP date forms of RFC 9110 section 5.6.7. {@link DateTimeFormatter#RFC_1123_DATE_TIME}
 * is not used because it writes single-digit days without the leading zero IMF-fixdate requires.
 */
final class HttpDates {

  /** {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
  static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);

  /** {@code Sunday, 06-Nov-94 08:49:37 GMT}. */
  static final DateTimeFormatter RFC_850 =
      DateTimeFormatter.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);

  /** {@code Sun Nov 6 08:49:37 1994}. */
  static final DateTimeFormatter ASCTIME =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US).withZone(ZoneOffset.UTC);

  private HttpDates() {}

  static String imfFixdate(long epochSecond) {
    return IMF_FIXDATE.format(Instant.ofEpochSecond(epochSecond));
  }

  /**
   * The {@code Date} header value for {@code wallMillis}, formatted at most once per second: every
   * response carries one, and formatting costs more than the rest of a simple response.
   */
  static final class DateHeader {
    private volatile Cached cached = new Cached(Long.MIN_VALUE, "");

    String value(long wallMillis) {
      long second = Math.floorDiv(wallMillis, 1000L);
      Cached c = cached;
      if (c.second != second) {
        c = new Cached(second, imfFixdate(second));
        cached = c;
      }
      return c.value;
    }

    private static final class Cached {
      final long second;
      final String value;

      Cached(long second, String value) {
        this.second = second;
        this.value = value;
      }
    }
  }
}
