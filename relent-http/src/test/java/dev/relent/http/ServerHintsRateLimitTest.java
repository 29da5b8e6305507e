package dev.relent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.ServerHint;
import dev.relent.http.contract.HeaderLookupContract;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The structured {@code RateLimit} fields: every example of the IETF draft ({@code
 * draft-ietf-httpapi-ratelimit-headers}, revision 11, sections 3.2, 4.2, 6, 7, 8.5 and appendix B)
 * read as the draft says, the older forms kept, malformed fields ignored as a whole, several field
 * lines joined, and servers that lie bounded.
 */
class ServerHintsRateLimitTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final ServerHints HINTS = ServerHints.ofDefaults();

  /** Headers from name, value pairs; a repeated name is another field line. */
  private static HeaderLookup headers(String... nameValue) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int i = 0; i < nameValue.length; i += 2) {
      map.computeIfAbsent(nameValue[i], k -> new ArrayList<>()).add(nameValue[i + 1]);
    }
    return HeaderLookup.of(map);
  }

  private static ServerHint read(int status, String... nameValue) {
    return HINTS.read(status, headers(nameValue), NOW);
  }

  /** Requests remain: no wait and no pause, but the quota for an adaptive pacer to pace by. */
  private static void assertPacesOnly(ServerHint hint, long remaining, long resetSeconds) {
    assertThat(hint.waitNanos()).isZero();
    assertThat(hint.pausesAll()).isFalse();
    assertThat(hint.isQuotaExhausted()).isFalse();
    assertThat(hint.quotaRemaining()).hasValue(remaining);
    assertThat(hint.quotaReset()).contains(Duration.ofSeconds(resetSeconds));
  }

  private static List<RateLimitStatus> limits(String... nameValue) {
    return HINTS.rateLimits(headers(nameValue), NOW);
  }

  private static RateLimitStatus only(String... nameValue) {
    List<RateLimitStatus> l = limits(nameValue);
    assertThat(l).hasSize(1);
    return l.get(0);
  }

  // ------------------------------------------------------------------ the draft's examples

  @Test
  void policyExamplesOfSection3() {
    RateLimitStatus p = only("RateLimit-Policy", "\"default\";q=100;w=10");
    assertThat(p.policy()).contains("default");
    assertThat(p.limit()).hasValue(100);
    assertThat(p.window()).contains(Duration.ofSeconds(10));
    assertThat(p.remaining()).isEmpty();
    assertThat(p.reset()).isEmpty();
    assertThat(p.unit()).isEqualTo("requests");

    List<RateLimitStatus> two =
        limits("RateLimit-Policy", "\"permin\";q=50;w=60,\"perhr\";q=1000;w=3600");
    assertThat(two).extracting(s -> s.policy().get()).containsExactly("permin", "perhr");
    assertThat(two)
        .extracting(s -> s.window().get())
        .containsExactly(Duration.ofSeconds(60), Duration.ofHours(1));

    assertThat(limits("RateLimit-Policy", "\"burst\";q=100;w=60,\"daily\";q=1000;w=86400"))
        .extracting(s -> s.limit().getAsLong())
        .containsExactly(100L, 1000L);

    RateLimitStatus user = only("RateLimit-Policy", "\"peruser\";q=100;w=60;pk=:cHsdsRa894==:");
    // The key is opaque bytes; non-zero pad bits are accepted, as RFC 9651 advises.
    assertThat(user.partitionKey()).contains("cHsdsRa89w==");

    RateLimitStatus bytes =
        only("RateLimit-Policy", "\"peruser\";q=65535;qu=\"content-bytes\";w=10;pk=:sdfjLJUOUH==:");
    assertThat(bytes.unit()).isEqualTo("content-bytes");
    assertThat(bytes.limit()).hasValue(65535);
    assertThat(bytes.window()).contains(Duration.ofSeconds(10));
    assertThat(bytes.partitionKey()).isPresent();
    // A policy alone says nothing about what is left: no hint.
    assertThat(read(200, "RateLimit-Policy", "\"default\";q=100;w=10")).isNull();
  }

  @Test
  void serviceLimitExamplesOfSection4() {
    RateLimitStatus s = only("RateLimit", "\"default\";r=50;t=30");
    assertThat(s.policy()).contains("default");
    assertThat(s.remaining()).hasValue(50);
    assertThat(s.reset()).contains(Duration.ofSeconds(30));
    assertThat(s.limit()).isEmpty();
    assertThat(s.source()).isEqualTo("RateLimit: \"default\";r=50;t=30");
    assertPacesOnly(read(200, "RateLimit", "\"default\";r=50;t=30"), 50, 30);

    RateLimitStatus keyed = only("RateLimit", "\"default\";r=999;pk=:dHJpYWwxMjEzMjM=:");
    assertThat(keyed.remaining()).hasValue(999);
    assertThat(keyed.reset()).isEmpty();
    assertThat(keyed.partitionKey()).contains("dHJpYWwxMjEzMjM=");

    RateLimitStatus app = only("RateLimit", "\"default\";r=300000000;t=60;pk=:QXBwLTk5OQ==:");
    assertThat(app.remaining()).hasValue(300_000_000);
    assertThat(app.partitionKey()).contains("QXBwLTk5OQ==");
  }

  @Test
  void aRedirectWithNothingLeftWaitsTheWindowSection6() {
    ServerHint h = read(301, "Location", "/foo/123", "RateLimit", "\"problemPolicy\";r=0;t=10");
    assertThat(h.waitTime()).isEqualTo(Duration.ofSeconds(10));
    assertThat(h.pausesAll()).isTrue();
    assertThat(h.isQuotaExhausted()).isFalse();
  }

  @Test
  void oneLeftIsNoPauseSection7() {
    assertPacesOnly(read(200, "RateLimit", "\"default\";r=1;t=7"), 1, 7);
    assertThat(only("RateLimit", "\"default\";r=1;t=7").exhausted()).isFalse();
  }

  @Test
  void aResponseFromACacheStatesNoLimitSection7Point3() {
    String[] exhausted = {
      "RateLimit", "\"default\";r=0;t=30", "RateLimit-Policy", "\"default\";q=100"
    };
    // A positive Age: served from a cache, so what it says of the limit is stale and ignored.
    for (String age : new String[] {"1", " 3600 ", "00000000000000000000000000000000000001"}) {
      String[] cached = {exhausted[0], exhausted[1], exhausted[2], exhausted[3], "Age", age};
      assertThat(read(200, cached)).as("Age: %s", age).isNull();
      assertThat(limits(cached)).isEmpty();
      assertThat(limits("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "30", "Age", age))
          .isEmpty();
      // A cached 429 still says "too many", and its Retry-After is still read.
      assertThat(read(429, cached).waitNanos()).isZero();
      assertThat(read(429, "Retry-After", "5", "Age", age).waitNanos())
          .isEqualTo(Duration.ofSeconds(5).toNanos());
    }
    // Age 0 (fresh, perhaps revalidated) or an Age that is no delta-seconds: read as usual.
    for (String age : new String[] {"0", "000", "-5", "1.5", "soon", ""}) {
      String[] fresh = {exhausted[0], exhausted[1], exhausted[2], exhausted[3], "Age", age};
      assertThat(read(200, fresh).waitNanos())
          .as("Age: %s", age)
          .isEqualTo(Duration.ofSeconds(30).toNanos());
    }
  }

  @Test
  void resourceExhaustionExamplesOfSection8() {
    // A daily window with one left: nothing to wait for yet, and the status says a day.
    RateLimitStatus daily =
        only("Date", "Tue, 15 Nov 1994 18:00:00 GMT", "RateLimit", "\"daily\";r=1;t=86400");
    assertThat(daily.reset()).contains(Duration.ofDays(1));
    assertPacesOnly(read(200, "RateLimit", "\"daily\";r=1;t=86400"), 1, 86400);
    // Remaining over a short window implies 1000/s where the policy says 10/s: both are reported,
    // as sent; the reader that paces bounds the rate.
    RateLimitStatus some =
        only(
            "RateLimit-Policy",
            "\"somepolicy\";q=10000;w=1000",
            "RateLimit",
            "\"somepolicy\";r=10000;t=10");
    assertThat(some.limit()).hasValue(10000);
    assertThat(some.window()).contains(Duration.ofSeconds(1000));
    assertThat(some.remaining()).hasValue(10000);
    assertThat(some.reset()).contains(Duration.ofSeconds(10));
  }

  @Test
  void appendixB1ResponsesWithoutPolicies() {
    // B.1.1: quota exhausted for the next 50 s, on a 200, and again 2 s later.
    assertThat(read(200, "RateLimit", "\"default\";r=0;t=50").waitTime())
        .isEqualTo(Duration.ofSeconds(50));
    assertThat(read(200, "RateLimit", "\"default\";r=0;t=48").waitTime())
        .isEqualTo(Duration.ofSeconds(48));
    // B.1.2: 100 left in a day limit ending in 10 hours: no pause.
    assertPacesOnly(read(200, "RateLimit", "\"dayLimit\";r=100;t=36000"), 100, 36000);
    // B.1.3: a policy of 100/min and what is left, lowered under load.
    RateLimitStatus basic =
        only("RateLimit-Policy", "\"basic\";q=100;w=60", "RateLimit", "\"basic\";r=60;t=58");
    assertThat(basic.limit()).hasValue(100);
    assertThat(basic.remaining()).hasValue(60);
    assertThat(basic.reset()).contains(Duration.ofSeconds(58));
    assertThat(basic.window()).contains(Duration.ofMinutes(1));
    assertThat(
            only("RateLimit-Policy", "\"basic\";q=100;w=60", "RateLimit", "\"basic\";r=20;t=56")
                .remaining())
        .hasValue(20);
    // B.1.4: a 429 with Retry-After and RateLimit naming the same moment: Retry-After counts.
    ServerHint throttled =
        read(
            429,
            "Date",
            "Mon, 05 Aug 2019 09:27:00 GMT",
            "Retry-After",
            "Mon, 05 Aug 2019 09:27:05 GMT",
            "RateLimit",
            "\"default\";r=0;t=5");
    assertThat(throttled.waitTime()).isEqualTo(Duration.ofSeconds(5));
    assertThat(throttled.source()).startsWith("Retry-After: ");
    assertThat(throttled.pausesAll()).isTrue();
  }

  @Test
  void appendixB2ResponsesWithPolicies() {
    // B.2.1: 99 left for 50 s of a 100/min policy.
    RateLimitStatus fixed =
        only(
            "RateLimit",
            "\"fixedwindow\";r=99;t=50",
            "RateLimit-Policy",
            "\"fixedwindow\";q=100;w=60");
    assertThat(fixed.limit()).hasValue(100);
    assertThat(fixed.remaining()).hasValue(99);
    assertPacesOnly(read(200, "RateLimit", "\"fixedwindow\";r=99;t=50"), 99, 50);
    // B.2.2: lowered to 9 for the next 50 s: slow down, no pause.
    assertPacesOnly(
        read(
            200, "RateLimit-Policy", "\"dynamic\";q=100;w=60", "RateLimit", "\"dynamic\";r=9;t=50"),
        9,
        50);
    // B.2.3: pushed back, 0 for the next 20 s, on a 429 without Retry-After.
    ServerHint pushed =
        read(429, "RateLimit-Policy", "\"dynamic\";q=15;w=20", "RateLimit", "\"dynamic\";r=0;t=20");
    assertThat(pushed.waitTime()).isEqualTo(Duration.ofSeconds(20));
    assertThat(pushed.pausesAll()).isTrue();
    assertThat(pushed.isQuotaExhausted()).isFalse();
    assertThat(pushed.source())
        .isEqualTo("RateLimit: \"dynamic\";r=0;t=20, RateLimit-Policy: \"dynamic\";q=15;w=20");
  }

  @Test
  void appendixB3RetryAfterAndMultipleWindows() {
    // B.3: Retry-After 20 takes precedence over a window with 15 left.
    ServerHint h =
        read(
            429,
            "Retry-After",
            "20",
            "RateLimit-Policy",
            "\"dynamic\";q=100;w=60",
            "RateLimit",
            "\"dynamic\";r=15;t=40");
    assertThat(h.waitTime()).isEqualTo(Duration.ofSeconds(20));
    assertThat(h.source()).isEqualTo("Retry-After: 20");
    // B.3.1: hour and day policies; the day's is reported with 100 left: no pause, the day's
    // policy is joined by name.
    RateLimitStatus day =
        only(
            "RateLimit-Policy",
            "\"hour\";q=1000;w=3600, \"day\";q=5000;w=86400",
            "RateLimit",
            "\"day\";r=100;t=36000");
    assertThat(day.policy()).contains("day");
    assertThat(day.limit()).hasValue(5000);
    assertThat(day.window()).contains(Duration.ofDays(1));
    assertPacesOnly(
        read(
            200,
            "RateLimit-Policy",
            "\"hour\";q=1000;w=3600, \"day\";q=5000;w=86400",
            "RateLimit",
            "\"day\";r=100;t=36000"),
        100,
        36000);
    // The same with the day exhausted is a quota: the executor stops instead of waiting 10 h.
    ServerHint spent =
        read(
            200,
            "RateLimit-Policy",
            "\"hour\";q=1000;w=3600, \"day\";q=5000;w=86400",
            "RateLimit",
            "\"day\";r=0;t=36000");
    assertThat(spent.isQuotaExhausted()).isTrue();
    assertThat(spent.resetAt()).contains(NOW.plusSeconds(36000));
  }

  @Test
  void faqExamples() {
    // No space after the colon: the value is the same.
    assertThat(only("RateLimit", "\"default\";r=50;t=60").remaining()).hasValue(50);
    // Policies on two field lines, each with a comment parameter.
    RateLimitStatus sliding =
        only(
            "RateLimit-Policy",
            "\"sliding\";q=100;w=60;burst=1000",
            "RateLimit-Policy",
            "\"fixed\";q=5000;w=3600;burst=0",
            "RateLimit",
            "\"sliding\";r=50;t=44");
    assertThat(sliding.limit()).hasValue(100);
    assertThat(sliding.window()).contains(Duration.ofMinutes(1));
    assertThat(
            only(
                    "RateLimit-Policy",
                    "\"sliding\";q=100;w=60;burst=1000",
                    "RateLimit-Policy",
                    "\"fixed\";q=5000;w=3600;burst=0",
                    "RateLimit",
                    "\"fixed\";r=0;t=44")
                .window())
        .contains(Duration.ofHours(1));
    // A q on a service limit is a comment; the policy's q counts.
    RateLimitStatus ratio =
        only("RateLimit-Policy", "\"sliding\";q=12;w=1", "RateLimit", "\"sliding\";q=12;r=6;t=1");
    assertThat(ratio.limit()).hasValue(12);
    assertThat(ratio.remaining()).hasValue(6);
  }

  // ------------------------------------------------------------------ strict, as RFC 9651 says

  @Test
  void malformedFieldsAreIgnoredAsAWhole() {
    String[] broken = {
      "\"default\";r=0;t=30, ",
      "\"default\";r=0;t=30,,\"b\";r=1",
      "\"default\";r=0;t=30 x",
      "\"default\";r=0;t=30, \"unterminated;r=0",
      "\"default\";r=0;t=30, 1234567890123456",
      "\"default\";r=0;t=30, \"bad \\escape\"",
      "\"default\";r=0;t=30;T=4",
      "\"default\";r=0;t=30, \"caf\u00e9\"",
    };
    for (String value : broken) {
      assertThat(read(200, "RateLimit", value)).as(value).isNull();
      assertThat(limits("RateLimit", value)).as(value).isEmpty();
    }
    // The draft's own rules: r and t non-negative Integers, r required, items Strings.
    String[] wrong = {
      "\"default\";r=-1;t=30",
      "\"default\";r=0;t=-30",
      "\"default\";r=0;t=1.5",
      "\"default\";r=0.0;t=30",
      "\"default\";t=30",
      "default;r=0;t=30",
      "\"default\";r=0;t=30;pk=abc",
      "(\"default\");r=0;t=30",
      "\"default\";r=0;t=30, \"other\";r=\"0\"",
    };
    for (String value : wrong) {
      assertThat(read(200, "RateLimit", value)).as(value).isNull();
    }
  }

  @Test
  void aMalformedPolicyIsIgnoredNotReadAsAQuota() {
    // A long window would make the limit a quota; broken, the policy counts as absent.
    assertThat(
            read(200, "RateLimit", "\"p\";r=0;t=6", "RateLimit-Policy", "\"p\";q=1;w=86400")
                .isQuotaExhausted())
        .isTrue();
    for (String policy :
        new String[] {
          "\"p\";q=1;w=86400, !",
          "\"p\";q=1;w=86400,",
          "\"p\";q=-1;w=86400",
          "\"p\";w=86400",
          "\"p\";q=1;w=0",
          "\"p\";q=1;w=86400;qu=requests",
          "p;q=1;w=86400",
          "",
        }) {
      ServerHint h = read(200, "RateLimit", "\"p\";r=0;t=6", "RateLimit-Policy", policy);
      assertThat(h.isQuotaExhausted()).as(policy).isFalse();
      assertThat(h.waitTime()).as(policy).isEqualTo(Duration.ofSeconds(6));
      assertThat(h.source()).as(policy).isEqualTo("RateLimit: \"p\";r=0;t=6");
    }
  }

  @Test
  void whatTheOldReaderMissed() {
    // -0 is the Integer 0.
    assertThat(read(200, "RateLimit", "\"default\";r=-0;t=30").waitTime())
        .isEqualTo(Duration.ofSeconds(30));
    // Tabs around commas are allowed whitespace.
    assertThat(read(200, "RateLimit", "\"a\";r=5;t=1,\t\"b\";r=0;t=9").waitTime())
        .isEqualTo(Duration.ofSeconds(9));
    // An escaped quote is part of the name, and joins the policy of that name.
    ServerHint escaped =
        read(
            200,
            "RateLimit",
            "\"a\\\"b, c\";r=0;t=5",
            "RateLimit-Policy",
            "\"a\\\"b, c\";q=10;w=86400");
    assertThat(escaped.isQuotaExhausted()).isTrue();
    assertThat(
            only("RateLimit", "\"a\\\"b, c\";r=0;t=5", "RateLimit-Policy", "\"a\\\"b, c\";q=10")
                .policy())
        .contains("a\"b, c");
    // Split over field lines: the second line's item counts.
    assertThat(
            read(200, "RateLimit", "\"burst\";r=3;t=1", "RateLimit", "\"minute\";r=0;t=20")
                .waitTime())
        .isEqualTo(Duration.ofSeconds(20));
    // Past 200 characters: the field is read whole, and its source is cut for the log.
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      many.append("\"p").append(i).append("\";r=7;t=1, ");
    }
    many.append("\"last\";r=0;t=42");
    ServerHint longField = read(200, "RateLimit", many.toString());
    assertThat(longField.waitTime()).isEqualTo(Duration.ofSeconds(42));
    assertThat(longField.source()).hasSize("RateLimit: ".length() + 203).endsWith("...");
  }

  @Test
  void aFieldOverTheCapIsIgnoredNotCut() {
    String item = "\"p\";r=1;t=1, ";
    StringBuilder value = new StringBuilder();
    while (value.length() + item.length() + 20 <= ServerHints.MAX_FIELD_LENGTH) {
      value.append(item);
    }
    String under = value + "\"z\";r=0;t=3";
    assertThat(under.length()).isLessThanOrEqualTo(ServerHints.MAX_FIELD_LENGTH);
    assertThat(read(200, "RateLimit", under).waitTime()).isEqualTo(Duration.ofSeconds(3));
    String over = value + "\"z\";r=0;t=3" + " ".repeat(ServerHints.MAX_FIELD_LENGTH);
    assertThat(read(200, "RateLimit", over)).isNull();
    // The cap counts every line and the ", " that joins them.
    String half = under.substring(0, under.lastIndexOf(", "));
    assertThat(read(200, "RateLimit", half, "RateLimit", half, "RateLimit", "\"z\";r=0;t=3"))
        .isNull();
    // A capped RateLimit counts as absent: the next family is read.
    assertThat(
            read(200, "RateLimit", over, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "4")
                .waitTime())
        .isEqualTo(Duration.ofSeconds(4));
  }

  @Test
  void everyMalformedCorpusValueIsIgnored() throws IOException, URISyntaxException {
    // Each must-fail value of the httpwg corpus after a valid exhausted item, and in the policy
    // that would make that item a quota: the fields are malformed, so nothing of them is read.
    int fields = 0;
    for (String bad : mustFailValues()) {
      for (String value : new String[] {"\"d\";r=0;t=30, " + bad, bad + ", \"d\";r=0;t=30"}) {
        if (malformedList(value)) {
          fields++;
          assertThat(read(200, "RateLimit", value)).as(value).isNull();
        }
      }
      String policy = "\"d\";q=100;w=86400, " + bad;
      if (malformedList(policy)) {
        fields++;
        ServerHint h = read(200, "RateLimit", "\"d\";r=0;t=30", "RateLimit-Policy", policy);
        assertThat(h.isQuotaExhausted()).as(policy).isFalse();
      }
    }
    assertThat(fields).isGreaterThan(2500);
  }

  private static boolean malformedList(String value) {
    try {
      StructuredFields.parseList(value);
      return false;
    } catch (StructuredFields.MalformedFieldException e) {
      return true;
    }
  }

  @SuppressWarnings("unchecked")
  private static List<String> mustFailValues() throws IOException, URISyntaxException {
    List<String> out = new ArrayList<>();
    for (List<Map<String, Object>> vectors : CorpusJson.corpus().values()) {
      for (Map<String, Object> v : vectors) {
        if (Boolean.TRUE.equals(v.get("must_fail"))) {
          out.add(StructuredFields.join((List<String>) v.get("raw")));
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ older forms, kept

  @Test
  void olderFormsAreReadStrictly() {
    RateLimitStatus dict = only("RateLimit", "limit=100, remaining=0, reset=12");
    assertThat(dict.limit()).hasValue(100);
    assertThat(dict.remaining()).hasValue(0);
    assertThat(dict.reset()).contains(Duration.ofSeconds(12));
    assertThat(dict.policy()).isEmpty();
    assertPacesOnly(read(200, "RateLimit", "limit=100, remaining=0, reset=12, remaining=5"), 5, 12);
    assertThat(read(200, "RateLimit", "limit=100, remaining=-1, reset=12")).isNull();
    assertThat(read(200, "RateLimit", "limit=100, remaining=0, reset=1.5")).isNull();
    assertThat(read(200, "RateLimit", "limit=100, remaining=0, reset=12,")).isNull();
    // With the older policy, by its quota.
    RateLimitStatus sep =
        only(
            "RateLimit-Limit", "1000",
            "RateLimit-Remaining", "0",
            "RateLimit-Reset", "7",
            "RateLimit-Policy", "10;w=1, 1000;w=3600");
    assertThat(sep.limit()).hasValue(1000);
    assertThat(sep.window()).contains(Duration.ofHours(1));
    assertThat(read(200, "RateLimit-Remaining", "-0", "RateLimit-Reset", "7").waitTime())
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(read(200, "RateLimit-Remaining", "0", "RateLimit-Reset", "7, 9")).isNull();
    assertThat(
            read(
                200,
                "RateLimit-Remaining",
                "0",
                "RateLimit-Remaining",
                "5",
                "RateLimit-Reset",
                "7"))
        .isNull();
    assertThat(read(200, "RateLimit-Remaining", "0x", "RateLimit-Reset", "7")).isNull();
    RateLimitStatus x =
        only("X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "30");
    assertThat(x.limit()).hasValue(60);
    assertThat(x.reset()).contains(Duration.ofSeconds(30));
    assertThat(x.source()).isEqualTo("X-RateLimit-Remaining: 0, X-RateLimit-Reset: 30");
    assertThat(read(200, "X-RateLimit-Remaining", "-1", "X-RateLimit-Reset", "30")).isNull();
    assertThat(read(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "-30")).isNull();
  }

  // ------------------------------------------------------------------ servers that lie

  @Test
  void lyingServersAreBounded() {
    // More left than the limit: no pause; the status reports both as sent.
    // The pacer's own ceiling bounds what it learns from remaining over reset.
    assertPacesOnly(
        read(200, "RateLimit", "\"p\";r=500;t=1", "RateLimit-Policy", "\"p\";q=100;w=1"), 500, 1);
    RateLimitStatus over =
        only("X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "99", "X-RateLimit-Reset", "1");
    assertThat(over.remaining()).hasValue(99);
    assertThat(over.limit()).hasValue(10);
    // A reset already reached: no pause, and a 429 leaves the wait to the backoff.
    assertThat(read(200, "RateLimit", "\"p\";r=0;t=0")).isNull();
    assertThat(read(429, "RateLimit", "\"p\";r=0;t=0").waitNanos()).isZero();
    long past = NOW.getEpochSecond() - 3600;
    assertThat(only("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(past)).reset())
        .contains(Duration.ZERO);
    // A reset a year away is an exhausted quota: the executor stops at once, never waits a year.
    ServerHint year = read(200, "RateLimit", "\"p\";r=0;t=31536000");
    assertThat(year.isQuotaExhausted()).isTrue();
    assertThat(year.resetAt()).contains(NOW.plus(Duration.ofDays(365)));
    // The largest Integer RFC 9651 allows: a quota with no reset date anyone can act on.
    ServerHint forever = read(200, "RateLimit", "\"p\";r=0;t=999999999999999");
    assertThat(forever.isQuotaExhausted()).isTrue();
    assertThat(forever.resetAt()).isEmpty();
    assertThat(read(200, "RateLimit", "\"p\";r=0;t=1000000000000000")).isNull();
  }

  // ------------------------------------------------------------------ the status and the lookup

  @Test
  void statusChecksItsParts() {
    RateLimitStatus s =
        new RateLimitStatus(
            Optional.of("p"),
            OptionalLong.of(10),
            OptionalLong.of(0),
            Optional.of(Duration.ofSeconds(1)),
            Optional.empty(),
            Optional.empty(),
            RateLimitStatus.REQUESTS,
            "RateLimit: \"p\";r=0;t=1");
    assertThat(s.exhausted()).isTrue();
    assertThatThrownBy(
            () ->
                new RateLimitStatus(
                    Optional.empty(),
                    OptionalLong.empty(),
                    OptionalLong.of(-1),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    "requests",
                    "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("remaining must be >= 0: -1");
    assertThatThrownBy(
            () ->
                new RateLimitStatus(
                    Optional.empty(),
                    OptionalLong.empty(),
                    OptionalLong.empty(),
                    Optional.of(Duration.ofSeconds(-2)),
                    Optional.empty(),
                    Optional.empty(),
                    "requests",
                    "x"))
        .hasMessage("reset must be >= 0: -2000 ms");
    assertThatThrownBy(() -> HINTS.rateLimits(HeaderLookup.NONE, null))
        .hasMessage("now cannot be null");
    assertThat(HINTS.rateLimits(null, NOW)).isEmpty();
  }

  @Test
  void everyLookupGivesEveryLine() {
    Map<String, List<String>> map = new LinkedHashMap<>();
    map.put("ratelimit", List.of("\"a\";r=1;t=1"));
    map.put("RateLimit", List.of("\"b\";r=0;t=2"));
    map.put(null, List.of("HTTP/1.1 200 OK"));
    assertThat(HeaderLookup.of(map).all("RATELIMIT"))
        .containsExactly("\"a\";r=1;t=1", "\"b\";r=0;t=2");
    assertThat(HeaderLookup.of(map).all("Retry-After")).isEmpty();
    Map<String, List<String>> sorted = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    sorted.put(
        "RateLimit", List.of(HeaderLookupContract.FIRST_LINE, HeaderLookupContract.SECOND_LINE));
    HeaderLookupContract.assertGivesEveryLine(
        HeaderLookup.of(HttpHeaders.of(sorted, (n, v) -> true)));
    // A lookup that only knows first values still works, from the first line.
    HeaderLookup firstOnly = name -> name.equals("RateLimit") ? "\"a\";r=0;t=3" : null;
    assertThat(firstOnly.all("RateLimit")).containsExactly("\"a\";r=0;t=3");
    assertThat(firstOnly.all("Other")).isEmpty();
    assertThat(HINTS.read(200, firstOnly, NOW).waitTime()).isEqualTo(Duration.ofSeconds(3));
  }

  /** The doubts one response raises, in order, as "KIND: message". */
  private static List<String> doubts(int status, String... nameValue) {
    List<String> out = new ArrayList<>();
    ServerHint told =
        HINTS.read(
            status, headers(nameValue), NOW, (kind, message) -> out.add(kind + ": " + message));
    // Being told changes nothing about the hint.
    assertThat(facts(told)).isEqualTo(facts(read(status, nameValue)));
    return out;
  }

  private static String facts(ServerHint hint) {
    return hint == null
        ? "none"
        : hint.source()
            + " wait="
            + hint.waitNanos()
            + " all="
            + hint.pausesAll()
            + " quota="
            + hint.isQuotaExhausted()
            + " remaining="
            + hint.quotaRemaining()
            + " reset="
            + hint.quotaReset();
  }

  @Test
  void headersThatCannotBeTrueAreToldWithWhatIsDoneAboutThem() {
    assertThat(
            doubts(
                200,
                "X-RateLimit-Limit",
                "100",
                "X-RateLimit-Remaining",
                "500",
                "X-RateLimit-Reset",
                "30"))
        .containsExactly(
            "REMAINING_ABOVE_LIMIT: 500 remaining of a limit of 100 (X-RateLimit-Remaining: 500,"
                + " X-RateLimit-Reset: 30): the pacer is no faster for it");
    assertThat(doubts(200, "RateLimit", "\"a\";r=900;t=10", "RateLimit-Policy", "\"a\";q=10;w=60"))
        .singleElement()
        .asString()
        .startsWith("REMAINING_ABOVE_LIMIT: 900 remaining of a limit of 10 (RateLimit:");
    // An epoch already past, measured against the response's Date.
    assertThat(
            doubts(
                200,
                "Date",
                "Thu, 01 Jan 2026 00:00:00 GMT",
                "X-RateLimit-Remaining",
                "0",
                "X-RateLimit-Reset",
                "1700000000"))
        .containsExactly(
            "RESET_PAST: a reset already past (X-RateLimit-Remaining: 0, X-RateLimit-Reset:"
                + " 1700000000): read as a reset now");
    assertThat(doubts(429, "RateLimit", "remaining=0, limit=10, reset=40000000"))
        .containsExactly(
            "RESET_BEYOND_A_YEAR: a reset 40000000 s away (RateLimit: remaining=0, limit=10,"
                + " reset=40000000): a pause is capped at the longest server wait allowed");
  }

  @Test
  void headersThatCanBeTrueRaiseNoDoubt() {
    assertThat(doubts(200, "X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "100")).isEmpty();
    assertThat(doubts(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0")).isEmpty();
    assertThat(doubts(429, "RateLimit", "remaining=0, limit=10, reset=86400")).isEmpty();
    assertThat(doubts(429, "Retry-After", "5")).isEmpty();
    assertThat(doubts(200)).isEmpty();
  }
}
