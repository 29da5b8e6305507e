package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class RetryAfterTest {
  /** Two minutes before RFC 9110's example date, Sun, 06 Nov 1994 08:49:37 GMT. */
  private static final Instant NOW = Instant.parse("1994-11-06T08:47:37Z");

  private static final Duration SATURATED = Duration.ofNanos(Long.MAX_VALUE);
  private static final Optional<Duration> EMPTY = Optional.empty();

  private static Arguments row(String value, String serverDate, Optional<Duration> expected) {
    return Arguments.of(value, serverDate, expected);
  }

  private static Arguments row(String value, Optional<Duration> expected) {
    return row(value, null, expected);
  }

  private static Optional<Duration> seconds(long seconds) {
    return Optional.of(Duration.ofSeconds(seconds));
  }

  static Stream<Arguments> table() {
    return Stream.of(
        // delta-seconds: ASCII digits, seconds, never milliseconds
        row("12", seconds(12)),
        row("0", Optional.of(Duration.ZERO)),
        row("000", Optional.of(Duration.ZERO)),
        row("007", seconds(7)),
        row("86400", seconds(86_400)),
        row(" 12 ", seconds(12)),
        row("\t12\t", seconds(12)),
        row(" \t 5 \t ", seconds(5)),
        row("9223372036", seconds(9_223_372_036L)),
        row("9223372037", Optional.of(SATURATED)),
        row("123456789012345678901234567890", Optional.of(SATURATED)),
        row("000000000000000000000000000012", seconds(12)),
        row("-1", EMPTY),
        row("+5", EMPTY),
        row("1.5", EMPTY),
        row("1,5", EMPTY),
        row("0x10", EMPTY),
        row("1e3", EMPTY),
        row("12s", EMPTY),
        row("12 s", EMPTY),
        row("1 2", EMPTY),
        row("123456789012345678901234567890x", EMPTY),
        row("\u0661\u0662", EMPTY), // Arabic-Indic digits: only ASCII digits count
        row("\uff11\uff12", EMPTY), // full-width digits
        row("\u00a012", EMPTY), // no-break space is not optional whitespace
        row("12\r\n", EMPTY),
        row("\n12", EMPTY),
        row("", EMPTY),
        row("   ", EMPTY),
        row(null, EMPTY),
        row("garbage", EMPTY),
        row("12, 13", EMPTY),
        // the three HTTP-date forms, measured against the local clock
        row("Sun, 06 Nov 1994 08:49:37 GMT", seconds(120)),
        row("Sunday, 06-Nov-94 08:49:37 GMT", seconds(120)),
        row("Sun Nov  6 08:49:37 1994", seconds(120)),
        row(" Sun, 06 Nov 1994 08:49:37 GMT\t", seconds(120)),
        // leniency: asctime with "06" (grammar) or one space (lenient), any case, wrong weekday
        row("Sun Nov 06 08:49:37 1994", seconds(120)),
        row("Sun Nov 6 08:49:37 1994", seconds(120)),
        row("sun, 06 nov 1994 08:49:37 gmt", seconds(120)),
        row("SUNDAY, 06-NOV-94 08:49:37 GMT", seconds(120)),
        row("Mon, 06 Nov 1994 08:49:37 GMT", seconds(120)),
        row("Friday, 06-Nov-94 08:49:37 GMT", seconds(120)),
        row("Tue Nov  6 08:49:37 1994", seconds(120)),
        // strictness: zone, field widths, extra or missing characters, day-name form
        row("Sun, 06 Nov 1994 08:49:37 UTC", EMPTY),
        row("Sun, 06 Nov 1994 08:49:37 +0000", EMPTY),
        row("Sun, 06 Nov 1994 08:49:37", EMPTY),
        row("Sun, 06 Nov 1994 08:49:37 GMTX", EMPTY),
        row("Sun, 6 Nov 1994 08:49:37 GMT", EMPTY),
        row("Sun, 06 Nov 94 08:49:37 GMT", EMPTY),
        row("Sun,  06 Nov 1994 08:49:37 GMT", EMPTY),
        row("06 Nov 1994 08:49:37 GMT", EMPTY),
        row("Xyz, 06 Nov 1994 08:49:37 GMT", EMPTY),
        row("Sun, 06 Now 1994 08:49:37 GMT", EMPTY),
        row("Sun, 06 Nov 1994 8:49:37 GMT", EMPTY),
        row("Sun, 06-Nov-94 08:49:37 GMT", EMPTY),
        row("Sunday, 06 Nov 1994 08:49:37 GMT", EMPTY),
        row("Sunday, 06-Nov-1994 08:49:37 GMT", EMPTY),
        row("Sun Nov   6 08:49:37 1994", EMPTY),
        row("Sun Nov  06 08:49:37 1994", EMPTY),
        row("Sun Nov  6 08:49:37 1994 GMT", EMPTY),
        row("Sun Nov  6 08:49:37 94", EMPTY),
        row("Sun, \u0660\u0666 Nov 1994 08:49:37 GMT", EMPTY),
        // impossible dates and times
        row("Sun, 06 Nov 1994 25:00:00 GMT", EMPTY),
        row("Sun, 06 Nov 1994 24:00:00 GMT", EMPTY),
        row("Sun, 06 Nov 1994 08:60:00 GMT", EMPTY),
        row("Sun, 06 Nov 1994 08:49:61 GMT", EMPTY),
        row("Sun, 06 Nov 1994 08:49:60 GMT", EMPTY),
        row("Sun, 00 Nov 1994 08:49:37 GMT", EMPTY),
        row("Wed, 30 Feb 2000 00:00:00 GMT", EMPTY),
        row("Thu, 31 Apr 2000 00:00:00 GMT", EMPTY),
        row("Sun, 32 Jan 2000 00:00:00 GMT", EMPTY),
        // 29 February: leap years only (2000 is one, 1900 and 2100 are not)
        row("Tue, 29 Feb 2000 00:00:00 GMT", seconds(167_670_743)),
        row("Thu Feb 29 12:00:00 1996", seconds(41_483_543)),
        row("Mon, 29 Feb 1999 00:00:00 GMT", EMPTY),
        row("Mon, 29 Feb 2100 00:00:00 GMT", EMPTY),
        row("Thu, 29 Feb 1900 00:00:00 GMT", EMPTY),
        // a leap second is read as the next midnight: never a shorter wait
        row("Sun, 06 Nov 1994 23:59:60 GMT", seconds(54_743)),
        // past dates and now itself: zero, never negative
        row("Sun, 06 Nov 1994 08:47:37 GMT", Optional.of(Duration.ZERO)),
        row("Sun, 06 Nov 1994 08:47:36 GMT", Optional.of(Duration.ZERO)),
        row("Thu, 01 Jan 1970 00:00:00 GMT", Optional.of(Duration.ZERO)),
        row("Sat, 01 Jan 0000 00:00:00 GMT", Optional.of(Duration.ZERO)),
        // far future: saturated, never wrapped
        row("Fri, 31 Dec 9999 23:59:59 GMT", Optional.of(SATURATED)),
        // server Date cancels skew: server clock one hour ahead of ours
        row("Sun, 06 Nov 1994 09:49:37 GMT", "Sun, 06 Nov 1994 09:47:37 GMT", seconds(120)),
        row("Sun, 06 Nov 1994 09:49:37 GMT", null, seconds(3_720)),
        // ... and one hour behind: locally the date is already past
        row("Sun, 06 Nov 1994 07:49:37 GMT", "Sun, 06 Nov 1994 07:47:37 GMT", seconds(120)),
        row("Sun, 06 Nov 1994 07:49:37 GMT", null, Optional.of(Duration.ZERO)),
        // server Date in the other two forms, and with surrounding whitespace
        row("Sun, 06 Nov 1994 09:49:37 GMT", "Sunday, 06-Nov-94 09:47:37 GMT", seconds(120)),
        row("Sun, 06 Nov 1994 09:49:37 GMT", "Sun Nov  6 09:47:37 1994", seconds(120)),
        row("Sun, 06 Nov 1994 09:49:37 GMT", "  Sun, 06 Nov 1994 09:47:37 GMT ", seconds(120)),
        // Retry-After before the server's Date: zero
        row(
            "Sun, 06 Nov 1994 09:00:00 GMT",
            "Sun, 06 Nov 1994 10:00:00 GMT",
            Optional.of(Duration.ZERO)),
        // an invalid server Date is ignored: the local clock is used
        row("Sun, 06 Nov 1994 08:49:37 GMT", "garbage", seconds(120)),
        row("Sun, 06 Nov 1994 08:49:37 GMT", "", seconds(120)),
        row("Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:47:37 GMT", seconds(120)),
        // the server Date does not affect delta-seconds, nor rescue an invalid value
        row("12", "Sun, 06 Nov 1994 00:00:00 GMT", seconds(12)),
        row("garbage", "Sun, 06 Nov 1994 08:47:37 GMT", EMPTY));
  }

  @ParameterizedTest(name = "[{index}] \"{0}\" with Date \"{1}\" -> {2}")
  @MethodSource("table")
  void parsesRetryAfter(String value, String serverDate, Optional<Duration> expected) {
    assertThat(RetryAfter.parse(value, NOW, serverDate)).isEqualTo(expected);
    if (serverDate == null) {
      assertThat(RetryAfter.parse(value, NOW)).isEqualTo(expected);
    }
  }

  @Test
  void tableHasAtLeastFortyRows() {
    assertThat(table().count()).isGreaterThanOrEqualTo(40);
  }

  @Test
  void subSecondNowShortensTheWaitExactly() {
    Instant now = NOW.plusMillis(250);

    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now))
        .contains(Duration.ofMillis(119_750));
    // The server's Date has whole seconds: with it the local fraction does not matter.
    assertThat(
            RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now, "Sun, 06 Nov 1994 08:47:37 GMT"))
        .contains(Duration.ofSeconds(120));
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:47:37 GMT", now)).contains(Duration.ZERO);
  }

  @Test
  void saturationBoundaryForDates() {
    // 9223372036.854775807 s is the largest wait: one second more saturates, one less does not.
    Instant now = Instant.EPOCH;
    Instant fits = Instant.ofEpochSecond(9_223_372_036L);
    Instant beyond = Instant.ofEpochSecond(9_223_372_037L);

    assertThat(RetryAfter.parse(RetryAfter.formatHttpDate(fits), now))
        .contains(Duration.ofSeconds(9_223_372_036L));
    assertThat(RetryAfter.parse(RetryAfter.formatHttpDate(beyond), now)).contains(SATURATED);
    assertThat(RetryAfter.parse(RetryAfter.formatHttpDate(beyond), now.plusMillis(900)))
        .contains(Duration.ofSeconds(9_223_372_036L, 100_000_000));
  }

  @Test
  void extremeNowsNeitherThrowNorGoNegative() {
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", Instant.MIN)).contains(SATURATED);
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", Instant.MAX))
        .contains(Duration.ZERO);
    assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", Instant.MAX)).isEmpty();
    assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", Instant.MIN)).isEmpty();
  }

  @Test
  void nullNowIsRejected() {
    assertThatThrownBy(() -> RetryAfter.parse("12", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("now cannot be null");
    assertThatThrownBy(() -> RetryAfter.parse("12", null, "x"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("now cannot be null");
    assertThatThrownBy(() -> RetryAfter.parseHttpDate("x", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("now cannot be null");
  }

  @ParameterizedTest(name = "now {0}: \"{1}\" -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        // exactly 50 years ahead is not "more than 50 years": kept in the future
        "2025-06-15T12:00:00Z | Sunday, 15-Jun-75 12:00:00 GMT | 2075-06-15T12:00:00Z",
        // one second beyond: the most recent past year with the same digits
        "2025-06-15T12:00:00Z | Sunday, 15-Jun-75 12:00:01 GMT | 1975-06-15T12:00:01Z",
        "2025-06-15T12:00:00Z | Monday, 16-Jun-75 00:00:00 GMT | 1975-06-16T00:00:00Z",
        "2025-06-15T12:00:00Z | Friday, 14-Jun-75 23:59:59 GMT | 2075-06-14T23:59:59Z",
        "2025-06-15T12:00:00Z | Tuesday, 31-Dec-74 23:59:59 GMT | 2074-12-31T23:59:59Z",
        "2025-06-15T12:00:00Z | Thursday, 01-Jan-76 00:00:00 GMT | 1976-01-01T00:00:00Z",
        "2025-06-15T12:00:00Z | Sunday, 15-Jun-25 12:00:00 GMT | 2025-06-15T12:00:00Z",
        "2025-06-15T12:00:00Z | Saturday, 01-Jan-00 00:00:00 GMT | 2000-01-01T00:00:00Z",
        "2025-06-15T12:00:00Z | Friday, 31-Dec-99 23:59:59 GMT | 1999-12-31T23:59:59Z",
        // near the end of a century the window reaches into the next one
        "2099-01-01T00:00:00Z | Saturday, 01-Jan-01 00:00:00 GMT | 2101-01-01T00:00:00Z",
        "2099-01-01T00:00:00Z | Sunday, 01-Jan-49 00:00:00 GMT | 2149-01-01T00:00:00Z",
        "2099-01-01T00:00:00Z | Saturday, 01-Jan-50 00:00:00 GMT | 2050-01-01T00:00:00Z",
        "1994-11-06T08:47:37Z | Sunday, 06-Nov-94 08:49:37 GMT | 1994-11-06T08:49:37Z",
        "1994-11-06T08:47:37Z | Monday, 06-Nov-44 08:47:37 GMT | 2044-11-06T08:47:37Z",
        "1994-11-06T08:47:37Z | Monday, 06-Nov-44 08:47:38 GMT | 1944-11-06T08:47:38Z",
        // 29 February: leap 2000 is accepted, but from 2099 "00" means 2100, which is no leap year
        "2025-06-15T12:00:00Z | Tuesday, 29-Feb-00 00:00:00 GMT | 2000-02-29T00:00:00Z",
        "2099-01-01T00:00:00Z | Monday, 29-Feb-00 00:00:00 GMT | ",
        // the two-digit-year window ends at year 9999
        "9990-01-01T00:00:00Z | Monday, 01-Jan-30 00:00:00 GMT | ",
        "9990-01-01T00:00:00Z | Monday, 01-Jan-99 00:00:00 GMT | 9999-01-01T00:00:00Z",
      })
  void rfc850TwoDigitYearsFollowTheFiftyYearRule(Instant now, String value, Instant expected) {
    assertThat(RetryAfter.parseHttpDate(value, now)).isEqualTo(Optional.ofNullable(expected));
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Sun, 06 Nov 1994 08:49:37 GMT | 1994-11-06T08:49:37Z",
        "Sunday, 06-Nov-94 08:49:37 GMT | 1994-11-06T08:49:37Z",
        "Sun Nov  6 08:49:37 1994 | 1994-11-06T08:49:37Z",
        "Sun Nov 16 08:49:37 1994 | 1994-11-16T08:49:37Z",
        "Sat, 01 Jan 0000 00:00:00 GMT | 0000-01-01T00:00:00Z",
        "Fri, 31 Dec 9999 23:59:59 GMT | 9999-12-31T23:59:59Z",
        "Fri, 31 Dec 9999 23:59:60 GMT | +10000-01-01T00:00:00Z",
        "Thu, 01 Jan 1970 00:00:00 GMT | 1970-01-01T00:00:00Z",
        "Wed, 31 Dec 1969 23:59:59 GMT | 1969-12-31T23:59:59Z",
        "Sat, 29 Feb 2020 12:34:56 GMT | 2020-02-29T12:34:56Z",
        "Mon Jan  1 00:00:00 0001 | 0001-01-01T00:00:00Z",
        "Sun, 06 NoV 1994 08:49:37 gMt | 1994-11-06T08:49:37Z",
        "Sun, 29 Feb 2019 08:49:37 GMT | ",
        "Sun, 06 Nov 1994 08:49:37 G@T | ",
        "Sun, 06 Nov 1994 08:49:37 GmT  x | ",
        // a non-ASCII letter that folds to "s" in Unicode is not a day name
        "\u017fun, 06 Nov 1994 08:49:37 GMT | ",
        "Sun\t06 Nov 1994 08:49:37 GMT | ",
      })
  void parsesHttpDates(String value, Instant expected) {
    assertThat(RetryAfter.parseHttpDate(value, NOW)).isEqualTo(Optional.ofNullable(expected));
  }

  @Test
  void parseHttpDateTakesNullAndEmpty() {
    assertThat(RetryAfter.parseHttpDate(null, NOW)).isEmpty();
    assertThat(RetryAfter.parseHttpDate("", NOW)).isEmpty();
    assertThat(RetryAfter.parseHttpDate(" \t ", NOW)).isEmpty();
    assertThat(RetryAfter.parseHttpDate("12", NOW)).isEmpty();
  }

  @Test
  void formatsImfFixdate() {
    assertThat(RetryAfter.formatHttpDate(Instant.parse("1994-11-06T08:49:37Z")))
        .isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
    assertThat(RetryAfter.formatHttpDate(Instant.parse("1994-11-06T08:49:37.999999999Z")))
        .isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
    assertThat(RetryAfter.formatHttpDate(Instant.EPOCH)).isEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
    assertThat(RetryAfter.formatHttpDate(Instant.parse("1969-12-31T23:59:59.5Z")))
        .isEqualTo("Wed, 31 Dec 1969 23:59:59 GMT");
    assertThat(RetryAfter.formatHttpDate(Instant.parse("0000-01-01T00:00:00Z")))
        .isEqualTo("Sat, 01 Jan 0000 00:00:00 GMT");
    assertThat(RetryAfter.formatHttpDate(Instant.parse("9999-12-31T23:59:59.999Z")))
        .isEqualTo("Fri, 31 Dec 9999 23:59:59 GMT");
    assertThat(RetryAfter.formatHttpDate(Instant.parse("2024-02-29T23:05:09Z")))
        .isEqualTo("Thu, 29 Feb 2024 23:05:09 GMT");
  }

  @Test
  void formatRejectsNullAndYearsBeyondFourDigits() {
    assertThatThrownBy(() -> RetryAfter.formatHttpDate(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("instant cannot be null");
    assertThatThrownBy(() -> RetryAfter.formatHttpDate(Instant.parse("+10000-01-01T00:00:00Z")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("instant must be within years 0000-9999: +10000-01-01T00:00:00Z");
    assertThatThrownBy(() -> RetryAfter.formatHttpDate(Instant.parse("-0001-12-31T23:59:59Z")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("instant must be within years 0000-9999: -0001-12-31T23:59:59Z");
  }
}
