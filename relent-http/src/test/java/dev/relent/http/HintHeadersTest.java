package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.ServerHint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A response's headers are each read once, however many rules and doubts look at them. */
class HintHeadersTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  /** Counts every lookup, by header name and kind. */
  private static final class CountingLookup implements HeaderLookup {
    final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    final List<String> lookups = new ArrayList<>();

    CountingLookup(String... namesAndValues) {
      for (int i = 0; i < namesAndValues.length; i += 2) {
        headers.put(namesAndValues[i], namesAndValues[i + 1]);
      }
    }

    @Override
    public String first(String name) {
      lookups.add(name);
      return headers.get(name);
    }

    @Override
    public List<String> all(String name) {
      lookups.add(name);
      String value = headers.get(name);
      return value == null ? List.of() : List.of(value);
    }
  }

  @Test
  void everyHeaderIsLookedUpAtMostOnceWhileReadingAndDoubting() {
    // An epoch reset already past: the doubt looks at X-RateLimit-Reset again, from the snapshot.
    CountingLookup lookup =
        new CountingLookup(
            "Date", "Thu, 01 Jan 2026 00:00:00 GMT",
            "X-RateLimit-Limit", "10",
            "X-RateLimit-Remaining", "0",
            "X-RateLimit-Reset", "1700000000",
            "Retry-After", "3");
    List<ServerHints.Doubt> doubts = new ArrayList<>();

    ServerHint hint =
        ServerHints.ofDefaults().read(429, lookup, NOW, (doubt, message) -> doubts.add(doubt));

    assertThat(hint.waitTime()).isEqualTo(Duration.ofSeconds(3));
    assertThat(doubts).containsExactly(ServerHints.Doubt.RESET_PAST);
    assertThat(lookup.lookups).doesNotHaveDuplicates();
  }

  @Test
  void aResponseWithNoHintLooksUpEachNameOnce() {
    CountingLookup lookup = new CountingLookup("Content-Type", "text/plain");

    assertThat(ServerHints.ofDefaults().read(503, lookup, NOW, (d, m) -> {})).isNull();

    assertThat(lookup.lookups).doesNotHaveDuplicates().doesNotContain("Content-Type");
  }

  @Test
  void aPolicyAloneIsReadAfterEveryOtherFamilyFailed() {
    CountingLookup lookup = new CountingLookup("RateLimit-Policy", "\"burst\";q=100;w=60");

    List<RateLimitStatus> limits = ServerHints.ofDefaults().rateLimits(lookup, NOW);

    assertThat(limits).hasSize(1);
    assertThat(limits.get(0).limit()).hasValue(100);
    assertThat(limits.get(0).remaining()).isEmpty();
    assertThat(lookup.lookups).doesNotHaveDuplicates();
  }
}
