package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Coverage-guided fuzzing of {@link RetryAfter}. A plain test run replays the committed inputs
 * under {@code src/test/resources/dev/relent/http/RetryAfterFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (docs/fuzzing.md).
 *
 * <p>An input is UTF-8 text: the {@code Retry-After} value, then optionally a line feed and the
 * server's {@code Date} value. Each one is read at three local times (RFC 850's two-digit years
 * depend on it), and every result is checked against an oracle built from the other entry points:
 * all-digit values against exact big-integer arithmetic, dates against {@link
 * RetryAfter#parseHttpDate} and its formatted round trip.
 */
class RetryAfterFuzzTest {
  private static final Duration SATURATED = Duration.ofNanos(Long.MAX_VALUE);
  private static final BigInteger MAX_SECONDS = BigInteger.valueOf(Long.MAX_VALUE / 1_000_000_000L);
  private static final Instant LAST_FORMATTABLE = Instant.parse("9999-12-31T23:59:59Z");
  private static final Instant[] NOWS = {
    Instant.parse("2026-12-01T12:34:56.789Z"),
    Instant.parse("1970-01-01T00:00:00Z"),
    Instant.parse("9999-12-31T23:59:59.999999999Z")
  };

  @FuzzTest
  void parseNeverThrowsAndAgreesWithItsOracles(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    int newline = text.indexOf('\n');
    String value = newline < 0 ? text : text.substring(0, newline);
    String serverDate = newline < 0 ? null : text.substring(newline + 1);
    for (Instant now : NOWS) {
      check(value, serverDate, now);
    }
  }

  private static void check(String value, String serverDate, Instant now) {
    Optional<Duration> wait = RetryAfter.parse(value, now, serverDate);
    wait.ifPresent(
        w -> {
          assertThat(w).as("wait for %s", value).isBetween(Duration.ZERO, SATURATED);
          assertThat(w.toNanos()).isNotNegative();
        });
    // Optional whitespace (SP, HTAB) around either value changes nothing.
    assertThat(RetryAfter.parse(" \t" + value + "\t ", now, padded(serverDate)))
        .as("padded %s", value)
        .isEqualTo(wait);

    String trimmed = trim(value);
    if (!trimmed.isEmpty() && isAsciiDigit(trimmed.charAt(0))) {
      assertThat(wait).as("delta-seconds %s", value).isEqualTo(deltaSecondsOracle(trimmed));
      return;
    }
    Optional<Instant> date = RetryAfter.parseHttpDate(value, now);
    assertThat(wait.isPresent()).as("date %s", value).isEqualTo(date.isPresent());
    if (date.isEmpty()) {
      return;
    }
    Instant target = date.get();
    assertThat(target.getNano()).isZero();
    if (target.isAfter(LAST_FORMATTABLE)) {
      // Only the leap second 9999-12-31T23:59:60 reads as a time past year 9999.
      assertThat(target).as("date %s", value).isEqualTo(LAST_FORMATTABLE.plusSeconds(1));
      assertThatIllegalArgumentException().isThrownBy(() -> RetryAfter.formatHttpDate(target));
    } else {
      // The formatted form is IMF-fixdate, which does not depend on now, and reads back the same.
      String formatted = RetryAfter.formatHttpDate(target);
      assertThat(formatted).hasSize(29);
      for (Instant other : NOWS) {
        assertThat(RetryAfter.parseHttpDate(formatted, other)).contains(target);
      }
    }
    Optional<Instant> server =
        serverDate == null ? Optional.empty() : RetryAfter.parseHttpDate(serverDate, now);
    Instant base = server.orElse(now);
    Duration expected = Duration.between(base, target);
    if (expected.isNegative()) {
      expected = Duration.ZERO;
    } else if (expected.compareTo(SATURATED) > 0) {
      expected = SATURATED;
    }
    assertThat(wait).as("wait for %s against %s", value, base).contains(expected);
  }

  private static Optional<Duration> deltaSecondsOracle(String trimmed) {
    if (!trimmed.chars().allMatch(c -> isAsciiDigit((char) c))) {
      return Optional.empty();
    }
    BigInteger seconds = new BigInteger(trimmed);
    return Optional.of(
        seconds.compareTo(MAX_SECONDS) > 0 ? SATURATED : Duration.ofSeconds(seconds.longValue()));
  }

  private static String padded(String s) {
    return s == null ? null : "\t " + s + " \t";
  }

  private static String trim(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
      end--;
    }
    return s.substring(start, end);
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
