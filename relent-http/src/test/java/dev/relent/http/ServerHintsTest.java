package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.ServerHint;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerHintsTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final ServerHints HINTS = ServerHints.ofDefaults();

  private static HeaderLookup headers(String... nameValue) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int i = 0; i < nameValue.length; i += 2) {
      map.put(nameValue[i], List.of(nameValue[i + 1]));
    }
    return HeaderLookup.of(map);
  }

  private static ServerHint read(int status, String... nameValue) {
    return HINTS.read(status, headers(nameValue), NOW);
  }

  @Test
  void retryAfterSecondsOn503IsAPlainWait() {
    ServerHint h = read(503, "Retry-After", "120");
    assertThat(h.waitTime()).isEqualTo(Duration.ofSeconds(120));
    assertThat(h.pausesAll()).isFalse();
    assertThat(h.isQuotaExhausted()).isFalse();
    assertThat(h.source()).isEqualTo("Retry-After: 120");
  }

  @Test
  void retryAfterInEveryDateFormIsMeasuredAgainstTheServersDate() {
    // The server's clock is 10 minutes behind ours: the wait is date - Date, not date - now.
    String serverDate = "Wed, 31 Dec 2025 23:50:00 GMT";
    assertThat(
            read(503, "Retry-After", "Wed, 31 Dec 2025 23:50:30 GMT", "Date", serverDate)
                .waitTime())
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(
            read(503, "Retry-After", "Wednesday, 31-Dec-25 23:50:30 GMT", "Date", serverDate)
                .waitTime())
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(read(503, "Retry-After", "Wed Dec 31 23:50:30 2025", "Date", serverDate).waitTime())
        .isEqualTo(Duration.ofSeconds(30));
    // Without a Date header the local clock is used.
    assertThat(read(503, "Retry-After", "Thu, 01 Jan 2026 00:00:45 GMT").waitTime())
        .isEqualTo(Duration.ofSeconds(45));
  }

  @Test
  void theTightestLimitsPolicyTravelsWithItsQuotaWhenItCountsRequests() {
    // The draft's fields: the policy's q and w go with r and t.
    ServerHint h =
        read(200, "RateLimit", "\"p\";r=40;t=20", "RateLimit-Policy", "\"p\";q=100;w=60");
    assertThat(h.quotaRemaining()).hasValue(40);
    assertThat(h.policyQuota()).hasValue(100);
    assertThat(h.policyWindow()).hasValue(Duration.ofSeconds(60));
    // The older headers state the limit without its window.
    ServerHint old =
        read(
            200,
            "X-RateLimit-Limit",
            "5000",
            "X-RateLimit-Remaining",
            "4990",
            "X-RateLimit-Reset",
            "600");
    assertThat(old.policyQuota()).hasValue(5000);
    assertThat(old.policyWindow()).isEmpty();
    // A 429 carries it too.
    ServerHint refused =
        read(
            429,
            "Retry-After",
            "2",
            "RateLimit",
            "\"p\";r=0;t=2",
            "RateLimit-Policy",
            "\"p\";q=10;w=5");
    assertThat(refused.policyQuota()).hasValue(10);
    assertThat(refused.policyWindow()).hasValue(Duration.ofSeconds(5));
    // A quota of bytes says nothing about how many requests another caller made.
    ServerHint bytes =
        read(
            200,
            "RateLimit",
            "\"b\";r=4000;t=20",
            "RateLimit-Policy",
            "\"b\";q=10000;w=60;qu=\"content-bytes\"");
    assertThat(bytes.policyQuota()).isEmpty();
  }

  @Test
  void aPastDateIsAZeroWait() {
    assertThat(read(503, "Retry-After", "Thu, 01 Jan 2015 00:00:00 GMT").waitNanos()).isZero();
  }

  @Test
  void garbageRetryAfterIsIgnored() {
    assertThat(read(503, "Retry-After", "soon")).isNull();
    assertThat(read(503, "Retry-After", "-5")).isNull();
    assertThat(read(503, "Retry-After", "1.5")).isNull();
    assertThat(read(503)).isNull();
  }

  @Test
  void retryAfterOnSuccessIsIgnored() {
    assertThat(read(200, "Retry-After", "120")).isNull();
    assertThat(read(301, "Retry-After", "120")).isNull();
  }

  @Test
  void tooManyRequestsPausesEveryCaller() {
    ServerHint h = read(429, "Retry-After", "5");
    assertThat(h.pausesAll()).isTrue();
    assertThat(h.isQuotaExhausted()).isFalse();
    assertThat(h.waitTime()).isEqualTo(Duration.ofSeconds(5));
    ServerHint bare = read(429);
    assertThat(bare.pausesAll()).isTrue();
    assertThat(bare.waitNanos()).isZero();
    assertThat(bare.source()).isEqualTo("HTTP 429");
  }

  @Test
  void aRateLimitLongerThanTheThresholdIsAnExhaustedQuota() {
    ServerHint h = read(429, "Retry-After", "86400");
    assertThat(h.isQuotaExhausted()).isTrue();
    assertThat(h.waitTime()).isEqualTo(Duration.ofDays(1));
    assertThat(h.resetAt()).contains(Instant.parse("2026-01-02T00:00:00Z"));
    assertThat(read(429, "Retry-After", "3600").isQuotaExhausted()).isFalse();
    assertThat(read(429, "Retry-After", "3601").isQuotaExhausted()).isTrue();
    // A 503 with a day-long Retry-After is maintenance, not a quota: the executor refuses the wait.
    assertThat(read(503, "Retry-After", "86400").isQuotaExhausted()).isFalse();
  }

  @Test
  void aScopeNamingADayIsAQuota() {
    assertThat(read(429, "Retry-After", "60", "X-RateLimit-Scope", "daily").isQuotaExhausted())
        .isTrue();
    assertThat(read(429, "Retry-After", "60", "X-RateLimit-Scope", "user").isQuotaExhausted())
        .isFalse();
  }

  @Test
  void structuredRateLimitField() {
    ServerHint h = read(200, "RateLimit", "\"default\";r=0;t=30");
    assertThat(h.pausesAll()).isTrue();
    assertThat(h.isQuotaExhausted()).isFalse();
    assertThat(h.waitTime()).isEqualTo(Duration.ofSeconds(30));
    assertThat(h.source()).isEqualTo("RateLimit: \"default\";r=0;t=30");
    assertThat(read(200, "RateLimit", "\"default\";r=5;t=30").waitNanos()).isZero();
    // The exhausted item with the longest wait decides.
    assertThat(
            read(200, "RateLimit", "\"burst\";r=3;t=1, \"minute\";r=0;t=20, \"hour\";r=0;t=40")
                .waitTime())
        .isEqualTo(Duration.ofSeconds(40));
    ServerHint daily =
        read(200, "RateLimit", "\"day\";r=0;t=600", "RateLimit-Policy", "\"day\";q=1000;w=86400");
    assertThat(daily.isQuotaExhausted()).isTrue();
    ServerHint window =
        read(200, "RateLimit", "\"p\";r=0;t=600", "RateLimit-Policy", "\"p\";q=1000;w=86400");
    assertThat(window.isQuotaExhausted()).isTrue();
    ServerHint shortWindow =
        read(200, "RateLimit", "\"p\";r=0;t=6", "RateLimit-Policy", "\"p\";q=10;w=60");
    assertThat(shortWindow.isQuotaExhausted()).isFalse();
  }

  @Test
  void olderRateLimitForms() {
    assertThat(read(200, "RateLimit", "limit=100, remaining=0, reset=12").waitTime())
        .isEqualTo(Duration.ofSeconds(12));
    assertThat(
            read(200, "RateLimit-Limit", "100", "RateLimit-Remaining", "0", "RateLimit-Reset", "7")
                .waitTime())
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(read(200, "RateLimit-Remaining", "3", "RateLimit-Reset", "7").quotaRemaining())
        .hasValue(3);
    ServerHint policy =
        read(
            200,
            "RateLimit-Remaining",
            "0",
            "RateLimit-Reset",
            "7",
            "RateLimit-Policy",
            "100;w=86400");
    assertThat(policy.isQuotaExhausted()).isTrue();
  }

  @Test
  void anEpochResetIsMeasuredAgainstThisClockWhenItReadsWithinTheDatesSecond() {
    // Answered 600 ms into the second the Date names: the clocks agree to the Date's resolution,
    // and the reset 2 s after the Date's second is 1.4 s away, not 2 s.
    Instant now = NOW.plusMillis(600);
    String date = "Thu, 01 Jan 2026 00:00:00 GMT";
    String reset = Long.toString(NOW.getEpochSecond() + 2);
    ServerHint h =
        HINTS.read(
            200,
            headers("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset, "Date", date),
            now);
    assertThat(h.waitTime()).isEqualTo(Duration.ofMillis(1400));
    // A clock 1.6 s ahead of the Date disagrees with it: the Date's second is the base.
    h =
        HINTS.read(
            200,
            headers("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset, "Date", date),
            NOW.plusMillis(1600));
    assertThat(h.waitTime()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void xRateLimitResetAsDeltaEpochSecondsOrEpochMillis() {
    assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "30").waitTime())
        .isEqualTo(Duration.ofSeconds(30));
    long epoch = NOW.getEpochSecond() + 90;
    assertThat(
            read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(epoch))
                .waitTime())
        .isEqualTo(Duration.ofSeconds(90));
    assertThat(
            read(
                    200,
                    "X-RateLimit-Remaining",
                    "0",
                    "X-RateLimit-Reset",
                    Long.toString(epoch * 1000 + 500))
                .waitTime())
        .isEqualTo(Duration.ofMillis(90_500));
    assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1.25").waitTime())
        .isEqualTo(Duration.ofMillis(1250));
    // Decimal seconds: a fraction's digits past the ninth are dropped; a dot needs digits on both
    // sides, and nothing but digits.
    assertThat(
            read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "2.0000000019").waitTime())
        .isEqualTo(Duration.ofNanos(2_000_000_001));
    for (String bad : new String[] {"1.", ".5", "1.2x", "1.-2", "1." + "0".repeat(31)}) {
      assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", bad))
          .as(bad)
          .isNull();
    }
    // An epoch is measured against the server's Date (skew cancelled).
    assertThat(
            read(
                    200,
                    "X-RateLimit-Remaining",
                    "0",
                    "X-RateLimit-Reset",
                    Long.toString(epoch),
                    "Date",
                    "Wed, 31 Dec 2025 23:59:00 GMT")
                .waitTime())
        .isEqualTo(Duration.ofSeconds(150));
    assertThat(read(200, "X-Rate-Limit-Remaining", "0", "X-Rate-Limit-Reset", "4").waitTime())
        .isEqualTo(Duration.ofSeconds(4));
    assertThat(
            read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "7200").isQuotaExhausted())
        .isTrue();
    assertThat(read(200, "X-RateLimit-Remaining", "1", "X-RateLimit-Reset", "30").quotaReset())
        .contains(Duration.ofSeconds(30));
    assertThat(read(200, "X-RateLimit-Remaining", "0")).isNull();
    assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "soon")).isNull();
    // A reset in the past: the window has ended, nothing to wait for; a 429 leaves it to the
    // backoff.
    String past = Long.toString(epoch - 1000);
    assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", past)).isNull();
    assertThat(read(429, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", past).waitNanos())
        .isZero();
  }

  @Test
  void a429WithRateLimitHeadersButNoRetryAfterUsesTheReset() {
    ServerHint h = read(429, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "9");
    assertThat(h.waitTime()).isEqualTo(Duration.ofSeconds(9));
    assertThat(h.pausesAll()).isTrue();
  }

  @Test
  void settings() {
    ServerHints strict =
        ServerHints.builder()
            .withQuotaThreshold(Duration.ofMinutes(1))
            .withQuotaWords("tier")
            .build();
    assertThat(strict.read(429, headers("Retry-After", "61"), NOW).isQuotaExhausted()).isTrue();
    assertThat(
            strict
                .read(429, headers("Retry-After", "60", "X-RateLimit-Scope", "daily"), NOW)
                .isQuotaExhausted())
        .isFalse();
    assertThat(
            strict
                .read(429, headers("Retry-After", "6", "X-RateLimit-Scope", "Tier-1"), NOW)
                .isQuotaExhausted())
        .isTrue();
    assertThat(strict.quotaThreshold()).isEqualTo(Duration.ofMinutes(1));
    assertThatThrownBy(() -> ServerHints.builder().withQuotaThreshold(Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quotaThreshold must be > 0: -5 ms");
    assertThatThrownBy(() -> ServerHints.builder().withQuotaThreshold(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("quotaThreshold cannot be null");
    assertThatThrownBy(() -> ServerHints.builder().withQuotaWords(" "))
        .hasMessage("quota word must not be blank: \" \"");
    assertThatThrownBy(() -> HINTS.read(200, HeaderLookup.NONE, null))
        .hasMessage("now cannot be null");
  }

  @Test
  void nullOrBrokenHeaderViewsAreNone() {
    assertThat(HINTS.read(503, null, NOW)).isNull();
    HeaderLookup broken =
        name -> {
          throw new IllegalStateException("broken");
        };
    assertThat(HINTS.read(503, broken, NOW)).isNull();
    assertThat(HINTS.read(429, broken, NOW).source()).isEqualTo("HTTP 429");
  }
}
