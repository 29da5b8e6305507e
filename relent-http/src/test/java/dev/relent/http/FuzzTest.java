package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.ServerHint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Hostile headers never make the hint reader, the table, the log helpers or the redactor throw. */
class FuzzTest {
  private static final List<String> NAMES =
      List.of(
          "Retry-After",
          "Date",
          "RateLimit",
          "RateLimit-Policy",
          "RateLimit-Limit",
          "RateLimit-Remaining",
          "RateLimit-Reset",
          "X-RateLimit-Remaining",
          "X-RateLimit-Reset",
          "X-Rate-Limit-Remaining",
          "X-Rate-Limit-Reset",
          "X-RateLimit-Scope",
          "X-Request-Id",
          "CF-Ray",
          "Via",
          "Server",
          "X-Cache",
          "X-Served-By",
          "X-Amz-Cf-Id");
  private static final List<String> PIECES =
      List.of(
          "0",
          "1",
          "-1",
          "30",
          "86400",
          "9999999999999999999999999",
          "1.",
          ".5",
          "1.5",
          "r=",
          "t=",
          "r=0",
          "t=30",
          "w=86400",
          "q=1",
          "\"",
          "\"default\"",
          ";",
          ",",
          "=",
          " ",
          "\t",
          "\r\n",
          "\u0000",
          "\u2028",
          "é",
          "limit=",
          "remaining=0",
          "reset=",
          "Wed, 31 Dec 2025 23:50:30 GMT",
          "Sunday, 06-Nov-94 08:49:37 GMT",
          "Sun Nov  6 08:49:37 1994",
          "GMT",
          "daily",
          "quota",
          "1767225600",
          "1767225600000",
          "cloudflare",
          "1.1 varnish",
          "cache-fra",
          "%",
          "%zz",
          "?",
          "&");

  private static final int[] COMMON = {200, 429, 429, 503, 413};

  private static String hostile(SplittableRandom random) {
    StringBuilder s = new StringBuilder();
    int n = random.nextInt(0, 8);
    for (int i = 0; i < n; i++) {
      if (random.nextInt(5) == 0) {
        s.append((char) random.nextInt(0, 0x3000));
      } else {
        s.append(PIECES.get(random.nextInt(PIECES.size())));
      }
    }
    if (random.nextInt(50) == 0) {
      s.append("9".repeat(random.nextInt(1, 2000)));
    }
    return s.toString();
  }

  @Test
  void seededRandomHeadersNeverThrow() {
    SplittableRandom random = new SplittableRandom(20260101L);
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    int hints = 0;
    for (int i = 0; i < 10_000; i++) {
      Map<String, List<String>> map = new LinkedHashMap<>();
      int count = random.nextInt(0, 6);
      for (int h = 0; h < count; h++) {
        map.put(NAMES.get(random.nextInt(NAMES.size())), List.of(hostile(random)));
      }
      HeaderLookup headers = HeaderLookup.of(map);
      int status =
          random.nextInt(3) == 0 ? random.nextInt(0, 700) : COMMON[random.nextInt(COMMON.length)];
      ServerHint hint = ServerHints.ofDefaults().read(status, headers, now);
      if (hint != null) {
        hints++;
        assertThat(hint.waitNanos()).isNotNegative();
        assertThat(hint.source()).isNotNull();
      }
      Decision d =
          DecisionTable.ofDefaults()
              .decide(random.nextBoolean() ? "GET" : "POST", random.nextBoolean(), status, headers);
      assertThat(d.verdict()).isNotNull();
      String facts =
          ResponseFacts.requestId(headers)
              + ResponseFacts.waitHeaders(headers)
              + ResponseFacts.layers(headers);
      assertThat(facts).doesNotContain("\r").doesNotContain("\n");
      String text = hostile(random);
      Redactor.ofDefaults().text(text);
      Redactor.ofDefaults().uri("http://h/p?" + text);
      Redactor.ofDefaults().uri(text);
    }
    // The generator must reach the interesting paths, or the test proves nothing.
    assertThat(hints).isGreaterThan(1000);
  }

  @Test
  void hugeValuesSaturateInsteadOfWrapping() {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    List<String> values =
        new ArrayList<>(List.of("9".repeat(19), "9".repeat(30), "99999999999.999999999"));
    for (String v : values) {
      ServerHint h =
          ServerHints.ofDefaults()
              .read(
                  200,
                  HeaderLookup.of(
                      Map.of(
                          "X-RateLimit-Remaining", List.of("0"), "X-RateLimit-Reset", List.of(v))),
                  now);
      if (h != null) {
        assertThat(h.waitNanos()).as(v).isNotNegative();
        assertThat(h.isQuotaExhausted()).as(v).isTrue();
      }
    }
  }
}
