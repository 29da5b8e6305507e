package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Property checks over generated strings (seeded, so a failure replays): random ASCII, random
 * digits, and random mutations of valid dates in all three forms. Valid dates are checked against
 * {@link DateTimeFormatter} as an independent oracle.
 */
class RetryAfterPropertyTest {
  private static final int CASES = 200_000;

  /** Fewer cases where each one runs the (slower) java.time oracle. */
  private static final int ORACLE_CASES = 50_000;

  private static final Duration SATURATED = Duration.ofNanos(Long.MAX_VALUE);
  private static final Instant NOW = Instant.parse("2025-06-15T12:34:56.789Z");

  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM uuuu HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter RFC_850 =
      DateTimeFormatter.ofPattern("EEEE, dd-MMM-uu HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter ASCTIME =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss uuuu", Locale.US).withZone(ZoneOffset.UTC);

  private static final long MIN_SECOND = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
  private static final long MAX_SECOND = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
  private static final String NOISE = "0123456789 \t,:-+.GMTUCgmtNovSunday\u00a0\u0661\r\n";

  private final SplittableRandom random = new SplittableRandom(0xda7eL);

  private Instant anyHttpInstant() {
    return Instant.ofEpochSecond(random.nextLong(MIN_SECOND, MAX_SECOND + 1));
  }

  /** An instant that RFC 850's two-digit year resolves unambiguously, seen from {@link #NOW}. */
  private Instant nearNow() {
    long fortyNineYears = 49L * 365 * 86_400;
    return NOW.truncatedTo(ChronoUnit.SECONDS)
        .plusSeconds(random.nextLong(-fortyNineYears, fortyNineYears));
  }

  private String validDate() {
    switch (random.nextInt(3)) {
      case 0:
        return IMF_FIXDATE.format(anyHttpInstant());
      case 1:
        return RFC_850.format(nearNow());
      default:
        return ASCTIME.format(anyHttpInstant());
    }
  }

  private char noise() {
    return random.nextInt(4) == 0
        ? (char) random.nextInt(0x10000)
        : NOISE.charAt(random.nextInt(NOISE.length()));
  }

  private String mutate(String value) {
    StringBuilder sb = new StringBuilder(value);
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int at = sb.length() == 0 ? 0 : random.nextInt(sb.length());
      switch (random.nextInt(5)) {
        case 0:
          if (sb.length() > 0) {
            sb.setCharAt(at, noise());
          }
          break;
        case 1:
          if (sb.length() > 0) {
            sb.deleteCharAt(at);
          }
          break;
        case 2:
          sb.insert(at, noise());
          break;
        case 3:
          if (sb.length() > 0) {
            sb.setCharAt(at, (char) (sb.charAt(at) ^ 0x20));
          }
          break;
        default:
          sb.setLength(at);
          break;
      }
    }
    return sb.toString();
  }

  private String randomAscii() {
    char[] chars = new char[random.nextInt(40)];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = (char) random.nextInt(128);
    }
    return new String(chars);
  }

  private String randomDigits() {
    char[] chars = new char[1 + random.nextInt(40)];
    for (int i = 0; i < chars.length; i++) {
      chars[i] = (char) ('0' + random.nextInt(10));
    }
    return new String(chars);
  }

  private String anyString() {
    switch (random.nextInt(4)) {
      case 0:
        return randomAscii();
      case 1:
        return randomDigits();
      case 2:
        return validDate();
      default:
        return mutate(validDate());
    }
  }

  private Instant anyNow() {
    switch (random.nextInt(6)) {
      case 0:
        return Instant.MIN;
      case 1:
        return Instant.MAX;
      case 2:
        return Instant.ofEpochSecond(
            random.nextLong(MIN_SECOND, MAX_SECOND), random.nextInt(1_000_000_000));
      default:
        return NOW;
    }
  }

  @Test
  void neverThrowsAndNeverNegativeForAnyString() {
    for (int i = 0; i < CASES; i++) {
      String value = anyString();
      String serverDate = random.nextBoolean() ? null : anyString();
      Instant now = anyNow();

      Optional<Duration> wait = RetryAfter.parse(value, now, serverDate);
      Optional<Instant> date = RetryAfter.parseHttpDate(value, now);

      String context = "\"" + value + "\" Date \"" + serverDate + "\" now " + now;
      wait.ifPresent(w -> assertThat(w).as(context).isBetween(Duration.ZERO, SATURATED));
      date.ifPresent(
          d -> assertThat(d.getEpochSecond()).as(context).isBetween(MIN_SECOND, MAX_SECOND + 1));
    }
  }

  @Test
  void validDatesParseToTheOraclesInstant() {
    for (int i = 0; i < ORACLE_CASES; i++) {
      Instant anywhere = anyHttpInstant();
      Instant near = nearNow();

      assertThat(RetryAfter.parseHttpDate(IMF_FIXDATE.format(anywhere), NOW)).contains(anywhere);
      assertThat(RetryAfter.parseHttpDate(ASCTIME.format(anywhere), NOW)).contains(anywhere);
      assertThat(RetryAfter.parseHttpDate(RFC_850.format(near), NOW)).contains(near);
      assertThat(RetryAfter.formatHttpDate(anywhere)).isEqualTo(IMF_FIXDATE.format(anywhere));
    }
  }

  @Test
  void validDatesGiveExactWaitsAgainstEitherClock() {
    for (int i = 0; i < ORACLE_CASES; i++) {
      Instant date = anyHttpInstant();
      Instant server = anyHttpInstant();
      // Not Duration.between: beyond 292 years it throws and catches internally, which is slow.
      Duration local =
          Duration.ofSeconds(date.getEpochSecond())
              .minusSeconds(NOW.getEpochSecond())
              .minusNanos(NOW.getNano());
      Duration skewFree = Duration.ofSeconds(date.getEpochSecond() - server.getEpochSecond());

      String value = IMF_FIXDATE.format(date);
      Optional<Duration> againstNow = RetryAfter.parse(value, NOW);
      Optional<Duration> againstServer = RetryAfter.parse(value, NOW, IMF_FIXDATE.format(server));
      assertThat(againstNow).as(value).isEqualTo(Optional.of(clamp(local)));
      assertThat(againstServer).as(value).isEqualTo(Optional.of(clamp(skewFree)));
    }
  }

  private static Duration clamp(Duration wait) {
    if (wait.isNegative()) {
      return Duration.ZERO;
    }
    return wait.compareTo(SATURATED) > 0 ? SATURATED : wait;
  }

  @Test
  void mutatedImfFixdatesAreEitherRejectedOrMeanWhatTheySay() {
    // Whatever a mutation leaves acceptable must read back as the same text, up to the
    // documented leniencies: ASCII case and the day name.
    for (int i = 0; i < CASES; i++) {
      String value = mutate(IMF_FIXDATE.format(anyHttpInstant()));
      Optional<Instant> parsed = RetryAfter.parseHttpDate(value, NOW);
      if (parsed.isEmpty() || value.contains(":60 ")) {
        continue;
      }
      String trimmed = value.replaceAll("^[ \t]+|[ \t]+$", "");
      assertThat(RetryAfter.formatHttpDate(parsed.get()).substring(3))
          .as("\"%s\"", value)
          .isEqualToIgnoringCase(trimmed.substring(3));
    }
  }

  @Test
  void delaySecondsAreExactForAnyDigitString() {
    for (int i = 0; i < CASES; i++) {
      String digits = randomDigits();
      Optional<Duration> wait = RetryAfter.parse(digits, NOW);

      BigInteger seconds = new BigInteger(digits);
      Duration expected =
          seconds.compareTo(BigInteger.valueOf(9_223_372_036L)) > 0
              ? SATURATED
              : Duration.ofSeconds(seconds.longValueExact());
      assertThat(wait).as(digits).contains(expected);
    }
  }
}
