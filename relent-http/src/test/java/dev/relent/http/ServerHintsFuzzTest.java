package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.relent.ServerHint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Coverage-guided fuzzing of the hint reader through its one entry point, {@link
 * ServerHints#read(int, HeaderLookup, Instant)}. A plain test run replays the committed inputs
 * under {@code src/test/resources/dev/relent/http/ServerHintsFuzzTestInputs/}; {@code
 * JAZZER_FUZZ=1} fuzzes (docs/fuzzing.md).
 *
 * <p>An input is UTF-8 text: the status code on the first line, then one {@code Name: value} header
 * per line (names in any case; the first value of a name counts). The properties hold whatever the
 * rate-limit parsing does: no exception; a wait never negative; a reset time, when given, exactly
 * now plus the wait; a 429 always pauses every caller; a valid {@code Retry-After} on an error
 * status wins over every other header; and without a rate-limit header, a status below 400 gives no
 * hint at all.
 */
class ServerHintsFuzzTest {
  private static final Instant NOW = Instant.parse("2026-12-01T12:34:56.789Z");
  private static final ServerHints READER = ServerHints.ofDefaults();

  @FuzzTest
  void readNeverThrowsAndKeepsItsPromises(byte[] input) {
    String[] lines = new String(input, StandardCharsets.UTF_8).split("\n", -1);
    int status = status(lines[0]);
    List<String[]> headers = new ArrayList<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        String value = lines[i].substring(colon + 1);
        headers.add(new String[] {lines[i].substring(0, colon), value.stripLeading()});
      }
    }
    HeaderLookup lookup = name -> first(headers, name);

    ServerHint hint = READER.read(status, lookup, NOW);

    if (hint != null) {
      assertThat(hint.waitNanos()).as("wait").isNotNegative();
      assertThat(hint.waitTime()).isEqualTo(Duration.ofNanos(hint.waitNanos()));
      assertThat(hint.source()).isNotBlank();
      assertThat(hint.toString()).isNotBlank();
      if (hint.isQuotaExhausted()) {
        assertThat(hint.pausesAll()).as("a quota pauses every caller").isTrue();
        hint.resetAt()
            .ifPresent(
                at -> assertThat(at).isEqualTo(NOW.plus(Duration.ofNanos(hint.waitNanos()))));
      } else {
        assertThat(hint.resetAt()).as("only a quota has a reset time").isEmpty();
      }
    }
    if (status == 429) {
      assertThat(hint).as("a 429 is always a rate limit").isNotNull();
      assertThat(hint.pausesAll()).isTrue();
    }
    String retryAfter = first(headers, "Retry-After");
    String date = first(headers, "Date");
    if (status >= 400 && isPlain(retryAfter) && (date == null || isPlain(date))) {
      Optional<Duration> wait = RetryAfter.parse(retryAfter, NOW, date);
      if (wait.isPresent()) {
        assertThat(hint).as("Retry-After %s", retryAfter).isNotNull();
        assertThat(hint.waitTime()).isEqualTo(wait.get());
        assertThat(hint.pausesAll()).isEqualTo(status == 429);
        if (status != 429) {
          assertThat(hint.isQuotaExhausted()).isFalse();
        }
      }
    }
    boolean rateLimitHeader =
        headers.stream()
            .map(h -> h[0].toLowerCase(Locale.ROOT))
            .anyMatch(n -> n.contains("ratelimit") || n.contains("rate-limit"));
    if (status < 400 && !rateLimitHeader) {
      assertThat(hint).as("status %d without rate-limit headers", status).isNull();
    }
    // Reading is a pure function of its inputs.
    ServerHint again = READER.read(status, lookup, NOW);
    assertThat(again == null ? null : again.toString())
        .isEqualTo(hint == null ? null : hint.toString());
  }

  private static int status(String line) {
    String digits = line.strip();
    if (digits.isEmpty() || digits.length() > 3 || !digits.chars().allMatch(Character::isDigit)) {
      return 503;
    }
    return Integer.parseInt(digits);
  }

  private static String first(List<String[]> headers, String name) {
    for (String[] h : headers) {
      if (h[0].equalsIgnoreCase(name)) {
        return h[1];
      }
    }
    return null;
  }

  /** A value that the reader sees unchanged: short, with no control character (not even a tab). */
  private static boolean isPlain(String value) {
    return value != null
        && value.length() <= 200
        && value
            .chars()
            .noneMatch(c -> c < 0x20 || c >= 0x7f && c < 0xa0 || c == 0x2028 || c == 0x2029);
  }
}
