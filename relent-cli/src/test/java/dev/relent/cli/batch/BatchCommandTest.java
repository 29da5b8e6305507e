package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End-to-end tests of {@code relent batch} against the mock server, in-process: pacing measured by
 * the server, no 429 below the emulated limit, a 429 and a rate-limit header pausing every worker,
 * quota exhaustion, bad lines, usage errors. Real time is kept to about a second per test (rates of
 * 10 to 50 per second, 1 s Retry-After). The crash tests with a child JVM are in {@link
 * BatchCrashTest}.
 */
public class BatchCommandTest {
  @TempDir Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();

  public static CliRun batch(String... args) {
    return CliRun.of(
        cli -> {
          BatchCommand b = cli.getSubcommands().get("batch").getCommand();
          b.shutdownHook = false;
        },
        args);
  }

  static List<String> reads(MockServer server, String path, int n) {
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      lines.add("{\"id\": \"r-" + i + "\", \"url\": \"" + server.uri(path + i) + "\"}");
    }
    return lines;
  }

  Path write(String name, List<String> lines) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  /** The JSON lines of a results file ({@code --out}), in order. */
  static List<JsonNode> results(Path file) throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      nodes.add(JSON.readTree(line));
    }
    return nodes;
  }

  static List<Long> arrivals(MockServer server) {
    return server.journal().stream()
        .map(e -> e.arrivedAt().toEpochMilli())
        .sorted()
        .collect(Collectors.toList());
  }

  // ------------------------------------------------------------------ pacing

  @Test
  void startsAreSpacedByTheRateAsTheServerSeesThem() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 10));
      Path out = dir.resolve("out.jsonl");

      long before = System.currentTimeMillis();
      CliRun run =
          batch(
              "batch",
              in.toString(),
              "--rate",
              "600/min",
              "--concurrency",
              "4",
              "--out",
              out.toString());

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      List<Long> t = arrivals(server);
      assertThat(t).hasSize(10);
      // One start every 100 ms from the run's start: the server sees request i no sooner than
      // i intervals after the command began. Only a lower bound holds on a busy machine: a request
      // that opens a connection, or a thread that wakes late, arrives late and shortens the gap
      // after it (the spacing itself is tested on virtual time, in the pacer's tests). The slack
      // is the clock's millisecond.
      for (int i = 0; i < t.size(); i++) {
        assertThat(t.get(i) - before)
            .as("arrival %d of %s", i, t)
            .isGreaterThanOrEqualTo(i * 100L - 2);
      }
      List<JsonNode> results = results(out);
      assertThat(results).hasSize(10);
      assertThat(results)
          .extracting(r -> r.get("id").asText())
          .containsExactlyInAnyOrder(
              "r-1", "r-2", "r-3", "r-4", "r-5", "r-6", "r-7", "r-8", "r-9", "r-10");
      JsonNode first = results.get(0);
      assertThat(first.get("outcome").asText()).isEqualTo("success");
      assertThat(first.get("final").asBoolean()).isTrue();
      assertThat(first.get("status").asInt()).isEqualTo(200);
      assertThat(first.get("attempts").asInt()).isEqualTo(1);
      assertThat(first.get("waits_ms").size()).isZero();
      assertThat(first.get("error").isNull()).isTrue();
      assertThat(first.get("idempotency_key").isNull()).isTrue();
      assertThat(run.out())
          .startsWith("relent batch: 10 requests in ")
          .contains("10 succeeded, 0 failed, 0 not finished")
          .contains("  first attempts     10\n")
          .contains("  retries            0\n")
          .contains("  successes          10\n")
          .contains("  final failures     0\n")
          .contains("  429s seen          0\n")
          .contains("(limit 4)")
          .contains("pace: one every 100 ms")
          .contains("the plan: at least 1 s for 10 at 600/min");
      assertThat(run.err()).isEmpty();
    }
  }

  @Test
  void belowTheEmulatedLimitNoRequestIsRejected() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"rateLimit\": {\"limit\": 20, \"window\": \"1s\", \"burst\": 5, \"key\":"
                    + " \"global\"},"
                    + "\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\":"
                    + " 200}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 12));

      CliRun run = batch("batch", in.toString(), "--rate", "10/s", "--concurrency", "3");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      assertThat(server.journal()).hasSize(12);
      assertThat(server.journal()).extracting(JournalEntry::status).containsOnly(200);
      assertThat(run.out()).contains("  429s seen          0\n").contains("12 succeeded");
    }
  }

  @Test
  void rateLimitHeadersThatCannotBeTrueAreCountedInTheSummaryNotLoggedPerAnswer()
      throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200,"
                    + " \"headers\": {\"X-RateLimit-Limit\": \"10\", \"X-RateLimit-Remaining\":"
                    + " \"5000\", \"X-RateLimit-Reset\": \"30\"}}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 6));

      CliRun run = batch("batch", in.toString(), "--rate", "50/s", "--progress", "off");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      assertThat(run.out())
          .contains(
              "  suspect headers    6 answers said more remain than the limit (the pacer was no"
                  + " faster for it)\n");
      assertThat(run.err()).doesNotContain("cannot be true");
    }
  }

  @Test
  void aTooManyRequestsPausesEveryWorkerNotOnlyTheOneThatGotIt() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": ["
                    + "{\"status\": 429, \"headers\": {\"Retry-After\": \"1\"}},"
                    + "{\"status\": 200}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 8));

      CliRun run =
          batch(
              "batch",
              in.toString(),
              "--rate",
              "20/s",
              "--concurrency",
              "4",
              "--base",
              "1ms",
              "--cap",
              "5ms");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      List<JournalEntry> journal = server.journal();
      assertThat(journal).hasSize(9);
      JournalEntry limited = journal.get(0);
      assertThat(limited.status()).isEqualTo(429);
      long t0 = limited.arrivedAt().toEpochMilli();
      // Starts reserved before the 429 came back keep their time (one per other worker at most);
      // every later start waits until the server's second has passed: 20/s would have sent 19.
      long early =
          journal.stream().skip(1).filter(e -> e.arrivedAt().toEpochMilli() - t0 < 950).count();
      assertThat(early).isLessThanOrEqualTo(3);
      assertThat(journal.get(8).arrivedAt().toEpochMilli() - t0).isGreaterThanOrEqualTo(950);
      assertThat(run.out())
          .contains(
              "  429s seen          1 (1 said how long and paused its scope for every worker)\n")
          .containsPattern(
              "  paused scopes      endpoint GET 127\\.0\\.0\\.1:\\d+/items/\\{id\\}: paused 1 time,"
                  + " over now; last by HTTP 429 from GET http://127\\.0\\.0\\.1:\\d+/items/\\d"
                  + " \\(Retry-After: 1\\)\n")
          .contains("  retries            1\n");
    }
  }

  @Test
  void withoutRateATooManyRequestsPausesItsEndpointAndTheOthersGoOn() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/a/*\", \"steps\": ["
                    + "{\"status\": 429, \"headers\": {\"Retry-After\": \"1\"}},"
                    + "{\"status\": 200}]},"
                    + "{\"path\": \"/b/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      List<String> lines = new ArrayList<>(reads(server, "/a/", 2));
      lines.addAll(reads(server, "/b/", 6).stream().map(l -> l.replace("r-", "b-")).toList());
      Path in = write("in.jsonl", lines);

      CliRun run =
          batch("batch", in.toString(), "--concurrency", "2", "--base", "1ms", "--cap", "5ms");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      List<JournalEntry> journal = server.journal();
      // Two event loops may number the journal and take the route's steps in opposite orders, so
      // the request that got the 429 is found by its status, not by its place.
      JournalEntry limited =
          journal.stream().filter(e -> e.status() == 429).findFirst().orElseThrow();
      assertThat(journal).filteredOn(e -> e.status() == 429).hasSize(1);
      long t0 = limited.arrivedAt().toEpochMilli();
      // The other endpoint is not held up by the pause: it goes on within the paused second (at
      // the rate the adaptive pacer learned from the 429).
      assertThat(journal)
          .filteredOn(e -> e.target().startsWith("/b/"))
          .hasSize(6)
          .anySatisfy(e -> assertThat(e.arrivedAt().toEpochMilli() - t0).isLessThan(900));
      // The retry of the request that got the 429 waits for the server's second.
      assertThat(journal)
          .filteredOn(e -> e.target().equals(limited.target()) && e.status() == 200)
          .hasSize(1)
          .allSatisfy(
              e -> assertThat(e.arrivedAt().toEpochMilli() - t0).isGreaterThanOrEqualTo(950));
      assertThat(run.out())
          .contains("  pacer              adaptive (no --rate)")
          .containsPattern(
              "  paused scopes      endpoint GET 127\\.0\\.0\\.1:\\d+/a/\\{id\\}: paused 1 time,")
          .contains("no plan without --rate");
    }
  }

  @Test
  void aTooManyRequestsWithoutAWaitPausesNothingAndTheSummarySaysSo() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": ["
                    + "{\"status\": 429}, {\"status\": 200}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 3));

      CliRun run =
          batch(
              "batch",
              in.toString(),
              "--rate",
              "50/s",
              "--concurrency",
              "1",
              "--base",
              "1ms",
              "--cap",
              "5ms");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      assertThat(run.out())
          .contains(
              "  429s seen          1 (1 said nothing and paused nothing: that request backed off"
                  + " alone)\n")
          .doesNotContain("paused scopes");
    }
  }

  @Test
  void aRateLimitHeaderSayingNoneLeftPausesEveryWorkerBeforeAnyTooManyRequests()
      throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": ["
                    + "{\"status\": 200, \"headers\": {\"X-RateLimit-Remaining\": \"0\","
                    + " \"X-RateLimit-Reset\": \"1\"}},"
                    + "{\"status\": 200}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 6));

      CliRun run = batch("batch", in.toString(), "--rate", "20/s", "--concurrency", "1");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      List<Long> t = arrivals(server);
      assertThat(t).hasSize(6);
      // one worker: nothing was reserved ahead, so the second request waits the whole second
      assertThat(t.get(1) - t.get(0)).isGreaterThanOrEqualTo(950);
      assertThat(t.get(2) - t.get(1)).isLessThan(900);
      assertThat(run.out()).contains("  429s seen          0\n");
    }
  }

  // ------------------------------------------------------------------ quota

  @Test
  void anExhaustedDailyQuotaStopsTheBatchAndRecordsEveryRequestNotSent() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"dailyQuota\": {\"limit\": 3, \"key\": \"global\"},"
                    + "\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\":"
                    + " 200}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 6));
      Path out = dir.resolve("out.jsonl");

      CliRun run =
          batch(
              "batch",
              in.toString(),
              "--rate",
              "50/s",
              "--concurrency",
              "1",
              "--out",
              out.toString());

      assertThat(run.exitCode()).isEqualTo(ExitCodes.DEADLINE);
      // the third answer said "0 left today": nothing more was sent
      assertThat(server.journal()).hasSize(3);
      Instant midnight =
          LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
      List<JsonNode> results = results(out);
      assertThat(results)
          .extracting(r -> r.get("outcome").asText())
          .containsExactly("success", "success", "success", "not-sent", "not-sent", "not-sent");
      assertThat(results)
          .extracting(r -> r.get("final").asBoolean())
          .containsExactly(true, true, true, false, false, false);
      assertThat(results.get(3).get("attempts").asInt()).isZero();
      // The quota is the endpoint's (the server named no partition): that scope stops, and with
      // one endpoint in the input nothing else is left.
      String scope = "endpoint GET 127.0.0.1:" + server.port() + "/items/{id}";
      assertThat(results.get(3).get("error").asText())
          .startsWith("not sent: the quota of " + scope + " is exhausted (HTTP 200 with ");
      assertThat(run.out())
          .contains("3 succeeded, 0 failed, 3 not finished")
          .contains("  not finished       3 (not-sent 3)\n")
          .contains(
              "  quota stopped      " + scope + ": until " + midnight.toString().substring(0, 19))
          .contains(", 3 requests not sent; by HTTP 200 with ")
          .contains("stopped: the quota of " + scope + " is exhausted (HTTP 200 with ")
          .contains("; it resets at " + midnight.toString().substring(0, 19))
          .contains("  3 requests were not sent; send them after the reset");
      assertThat(run.err())
          .contains("relent batch: stopped: the quota of " + scope + " is exhausted");
    }
  }

  @Test
  void aQuotaAnswerWithAWaitOfHoursStopsTheBatchAndSaysWhenToComeBack() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200},"
                    + " {\"status\": 429, \"headers\": {\"Retry-After\": \"7200\"}}]}]}"))) {
      Path in = write("in.jsonl", reads(server, "/items/", 4));
      Path out = dir.resolve("out.jsonl");

      CliRun run =
          batch(
              "batch",
              in.toString(),
              "--rate",
              "50/s",
              "--concurrency",
              "1",
              "--out",
              out.toString());

      assertThat(run.exitCode()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(server.journal()).hasSize(2);
      assertThat(results(out))
          .extracting(r -> r.get("outcome").asText())
          .containsExactly("success", "quota-exhausted", "not-sent", "not-sent");
      assertThat(run.out())
          .contains(
              "stopped: the quota of endpoint GET 127.0.0.1:"
                  + server.port()
                  + "/items/{id} is exhausted (HTTP 429 with Retry-After: 7200); it resets at ")
          .contains(" (in 2 h ")
          .contains("  2 requests were not sent");
    }
  }

  // ------------------------------------------------------------------ input

  @Test
  void badLinesAreReportedWithTheirNumbersAndSkipped() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/**\", \"steps\": [{\"status\": 201}]}]}"))) {
      String u = server.uri("/x").toString();
      Path in =
          write(
              "in.jsonl",
              List.of(
                  "{\"id\": \"a\", \"url\": \"" + u + "\"}",
                  "not json",
                  "",
                  "{\"id\": \"b\"}",
                  "{\"id\": \"a\", \"url\": \"" + u + "\"}",
                  "{\"id\": \"c\", \"url\": \"ftp://example.com/x\"}",
                  "{\"id\": \"d\", \"url\": \"" + u + "\", \"verb\": \"GET\"}",
                  "{\"id\": \"e\", \"url\": \"" + u + "\", \"headers\": {\"Authorization\": 42}}",
                  "[1, 2]",
                  "{\"id\": \"f\", \"url\": \""
                      + u
                      + "\", \"method\": \"POST\", \"body\": {\"n\": 0.10}}"));

      CliRun run = batch("batch", in.toString(), "--rate", "50/s");

      assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
      String f = in.toString();
      assertThat(run.err().lines().collect(Collectors.toList()))
          .startsWith(
              "relent batch: "
                  + f
                  + ":2: invalid JSON: Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false') (line skipped)",
              "relent batch: " + f + ":4: missing required key \"url\" (line skipped)",
              "relent batch: " + f + ":5: id: \"a\" is used twice (first on line 1) (line skipped)",
              "relent batch: "
                  + f
                  + ":6: url: 'ftp://example.com/x' is not an http(s) URL with a host; use http://host[:port]/path or https://host[:port]/path (line skipped)",
              "relent batch: "
                  + f
                  + ":7: unknown key \"verb\", expected one of: id, method, url, headers, body, idempotency_key (line skipped)",
              "relent batch: "
                  + f
                  + ":8: headers.Authorization: expected a string, got a number (line skipped)",
              "relent batch: " + f + ":9: expected a JSON object, got an array (line skipped)");
      assertThat(run.out()).contains("  bad lines          7 (skipped; see above)\n");
      assertThat(server.journal()).hasSize(2);
      JournalEntry post =
          server.journal().stream()
              .filter(e -> e.method().equals("POST"))
              .findFirst()
              .orElseThrow();
      // the body went as JSON, its number as written, with a key the journal would keep
      assertThat(post.bodyBytes()).isEqualTo("{\"n\":0.10}".length());
      assertThat(post.header("Content-Type")).isEqualTo("application/json");
      assertThat(post.header("Idempotency-Key")).isNotBlank();
    }
  }

  @Test
  void strictRefusesTheWholeInputAndSendsNothing() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/**\", \"steps\": [{\"status\": 200}]}]}"))) {
      Path in =
          write(
              "in.jsonl",
              List.of("{\"id\": \"a\", \"url\": \"" + server.uri("/x") + "\"}", "{\"id\": 1.5}"));

      CliRun run = batch("batch", in.toString(), "--rate", "50/s", "--strict");

      assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(run.err())
          .contains(in + ":2: id: expected a string or an integer, got a number\n")
          .contains("relent: 1 bad line in " + in + " (--strict): nothing was sent");
      assertThat(server.journal()).isEmpty();
    }
  }

  @Test
  void usageErrorsSayWhatWasWrongAndSendNothing() throws IOException {
    Path in = write("in.jsonl", List.of("{\"id\": \"a\", \"url\": \"http://127.0.0.1:9/x\"}"));
    Object[][] cases = {
      {
        new String[] {"batch", dir.resolve("missing.jsonl").toString(), "--rate", "1/s"},
        dir.resolve("missing.jsonl") + ": no such file"
      },
      {
        new String[] {"batch", dir.toString(), "--rate", "1/s"},
        dir + ": is a directory, not a file"
      },
      {
        new String[] {"batch", in.toString(), "--scope-by", "host"},
        "--scope-by 'host' is not a scope; use endpoint, account or header:NAME (e.g."
            + " header:X-Api-Key)"
      },
      {
        new String[] {"batch", in.toString(), "--scope-by", "header:"},
        "--scope-by header:: name the header after the colon; use endpoint, account or"
            + " header:NAME"
      },
      {
        new String[] {"batch", in.toString(), "--scope-by", "header:X Key"},
        "--scope-by header:X Key: key header must be a header name"
      },
      {
        new String[] {"batch", in.toString(), "--route", "v1/items/{id}"},
        "--route: route template must be a path starting with /"
      },
      {
        new String[] {"batch", in.toString(), "--rate", "0/s"},
        "'0/s': the count must be more than 0; use N/s, N/min, N/h or N/day"
      },
      {
        new String[] {"batch", in.toString(), "--rate", "-5/min"},
        "'-5/min': a rate cannot be negative; use N/s, N/min, N/h or N/day"
      },
      {
        new String[] {"batch", in.toString(), "--rate", "fast"},
        "'fast' is not a rate; use N/s, N/min"
      },
      {
        new String[] {"batch", in.toString(), "--rate", "1/s", "--concurrency", "0"},
        "--concurrency must be 1 to 1024: 0"
      },
      {
        new String[] {"batch", in.toString(), "--rate", "1/s", "--cap", "1ms"},
        "--cap 1 ms is less than --base 500 ms"
      },
      {
        new String[] {"batch", in.toString(), "--rate", "1/s", "--batch-deadline", "0s"},
        "--batch-deadline must be more than 0: 0 ms"
      },
      {
        new String[] {
          "batch", in.toString(), "--rate", "1/s", "--journal", dir.resolve("no/j").toString()
        },
        "the directory " + dir.resolve("no") + " does not exist"
      },
      {
        new String[] {
          "batch",
          in.toString(),
          "--rate",
          "1/s",
          "--journal",
          in.toString() + ".j",
          "--out",
          in.toString() + ".j"
        },
        "--journal and --out name the same file"
      },
      {
        new String[] {"batch", in.toString(), "--rate", "1/s", "--progress", "loud"},
        "'loud' is not a progress mode; use auto, bar, lines or off"
      },
    };
    for (Object[] c : cases) {
      String[] args = (String[]) c[0];
      CliRun run = batch(args);
      assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
      assertThat(run.err())
          .as(String.join(" ", args))
          .startsWith("relent: ")
          .contains((String) c[1]);
      assertThat(run.out()).isEmpty();
    }
  }

  @Test
  void aJournalThatIsNotOneIsRefused() throws IOException {
    Path in = write("in.jsonl", List.of("{\"id\": \"a\", \"url\": \"http://127.0.0.1:9/x\"}"));
    Path j = write("j", List.of("{\"hello\": 1}"));

    CliRun run = batch("batch", in.toString(), "--rate", "1/s", "--journal", j.toString());

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .startsWith("relent: --journal " + j + ":1: not a journal record (no \"rec\")");
  }

  @Test
  void aChangedWriteIsNotResentWithItsOldKey() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/**\", \"steps\": [{\"status\": 503}]}]}"))) {
      String u = server.uri("/pay").toString();
      Path in =
          write("in.jsonl", List.of("{\"id\": \"p\", \"url\": \"" + u + "\", \"body\": \"1\"}"));
      Path j = dir.resolve("j");
      String[] args = {
        "batch", in.toString(), "--rate", "50/s", "--journal", j.toString(), "--max-retries", "0"
      };
      CliRun first = batch(args);
      // a 503 may come from a proxy that passed the write on: unresolved, not final
      assertThat(first.exitCode()).isEqualTo(ExitCodes.UNRESOLVED);
      CliRun again = batch(args);
      // sent again with its journaled key, and still unresolved
      assertThat(again.exitCode()).isEqualTo(ExitCodes.UNRESOLVED);
      assertThat(again.err()).contains("1 write sent again with the key journaled");
      assertThat(server.journal()).hasSize(2);
      assertThat(server.journal().get(1).header("Idempotency-Key"))
          .isEqualTo(server.journal().get(0).header("Idempotency-Key"));

      write("in.jsonl", List.of("{\"id\": \"p\", \"url\": \"" + u + "\", \"body\": \"2\"}"));
      CliRun changed = batch("batch", in.toString(), "--rate", "50/s", "--journal", j.toString());
      assertThat(changed.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(changed.err())
          .contains("request \"p\" (line 1) changed since its Idempotency-Key was journaled");
      assertThat(server.journal()).hasSize(2);
    }
  }

  @Test
  void exitCodesRankTimeOverExhaustedOverNotRetried() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/ok\", \"steps\": [{\"status\": 200}]},"
                    + "{\"path\": \"/missing\", \"steps\": [{\"status\": 404}]},"
                    + "{\"path\": \"/down\", \"steps\": [{\"status\": 503}]},"
                    + "{\"path\": \"/later\", \"steps\": [{\"status\": 503, \"headers\":"
                    + " {\"Retry-After\": \"600\"}}]}]}"))) {
      Map<String, Integer> expected = new HashMap<>();
      expected.put("/ok", ExitCodes.OK);
      expected.put("/missing", ExitCodes.NOT_RETRIED);
      expected.put("/down", ExitCodes.RETRIES_EXHAUSTED);
      expected.put("/later", ExitCodes.DEADLINE);
      List<String> lines = new ArrayList<>();
      Set<String> paths = new HashSet<>();
      for (String p : List.of("/ok", "/missing", "/down", "/later")) {
        paths.add(p);
        lines.add("{\"id\": \"" + p + "\", \"url\": \"" + server.uri(p) + "\"}");
        Path in = write("in.jsonl", lines);
        Path out = dir.resolve("out.jsonl");
        CliRun run =
            batch(
                "batch",
                in.toString(),
                "--rate",
                "50/s",
                "--max-retries",
                "1",
                "--base",
                "1ms",
                "--cap",
                "2ms",
                "--deadline",
                "5s",
                "--out",
                out.toString());
        assertThat(run.exitCode()).as(p).isEqualTo(expected.get(p));
        Map<String, String> outcomes = new HashMap<>();
        for (JsonNode r : results(out)) {
          outcomes.put(r.get("id").asText(), r.get("outcome").asText());
        }
        assertThat(outcomes.keySet()).isEqualTo(paths);
      }
      Path out = dir.resolve("out.jsonl");
      Map<String, JsonNode> byId = new HashMap<>();
      for (JsonNode r : results(out)) {
        byId.put(r.get("id").asText(), r);
      }
      assertThat(byId.get("/missing").get("outcome").asText()).isEqualTo("http-error");
      assertThat(byId.get("/missing").get("error").asText())
          .isEqualTo(
              "HTTP 404 after 1 attempt: not retried: the request itself is wrong (rule"
                  + " http-404)");
      assertThat(byId.get("/down").get("outcome").asText()).isEqualTo("retries-exhausted");
      assertThat(byId.get("/down").get("attempts").asInt()).isEqualTo(2);
      assertThat(byId.get("/down").get("waits_ms").size()).isEqualTo(1);
      assertThat(byId.get("/later").get("outcome").asText()).isEqualTo("server-wait-too-long");
      assertThat(byId.get("/later").get("final").asBoolean()).isTrue();
    }
  }

  @Test
  void anErrorNamesTheRetryRuleOnlyForARequestRetriedUntilNoRetryWasLeft() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/down\", \"steps\": [{\"status\": 503}]},"
                    + "{\"path\": \"/busy\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \"120\"}}]}]}"))) {
      Path in =
          write(
              "in.jsonl",
              List.of(
                  "{\"id\": \"down\", \"url\": \"" + server.uri("/down") + "\"}",
                  "{\"id\": \"busy\", \"url\": \"" + server.uri("/busy") + "\"}"));
      Path out = dir.resolve("out.jsonl");

      CliRun run =
          batch(
              "batch",
              in.toString(),
              "--max-retries",
              "1",
              "--base",
              "1ms",
              "--cap",
              "2ms",
              "--max-wait",
              "5s",
              "--progress",
              "off",
              "--out",
              out.toString());

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      Map<String, JsonNode> byId = new HashMap<>();
      for (JsonNode r : results(out)) {
        byId.put(r.get("id").asText(), r);
      }
      // Retried until no retry was left: the rule that said retry is named.
      assertThat(byId.get("down").get("outcome").asText()).isEqualTo("retries-exhausted");
      assertThat(byId.get("down").get("error").asText())
          .contains(
              "(last: HTTP 503 from GET "
                  + server.uri("/down")
                  + ", rule retry: http-503; all 1 retries used)");
      // A 429 whose retry was not taken: it says so, and why.
      JsonNode busy = byId.get("busy");
      assertThat(busy.get("outcome").asText()).isEqualTo("server-wait-too-long");
      assertThat(busy.get("attempts").asInt()).isEqualTo(1);
      assertThat(busy.get("error").asText())
          .startsWith("gave up after 1 attempt in ")
          .contains(
              "(last: HTTP 429 from GET "
                  + server.uri("/busy")
                  + ", not retried; server asked to wait 120 s")
          .doesNotContain("rule retry");
    }
  }

  @Test
  void helpListsEveryFlagWithItsDefaultIncludingTheRetryOptionsOfCall() {
    CliRun run = CliRun.of("batch", "--help");

    assertThat(run.exitCode()).isZero();
    for (String flag :
        List.of(
            "FILE",
            "--rate=RATE",
            "--concurrency=N",
            "--scope-by=endpoint|account|header:NAME",
            "--route=TEMPLATE",
            "--max-retries=N",
            "--base=DURATION",
            "--cap=DURATION",
            "--jitter=full|equal|decorrelated|none",
            "--timeout=DURATION",
            "--deadline=DURATION",
            "--max-wait=DURATION",
            "--seed=N",
            "--batch-deadline=DURATION",
            "--journal=FILE",
            "--out=FILE",
            "--strict",
            "--progress=auto|bar|lines|off")) {
      assertThat(run.out()).contains(flag);
    }
    assertThat(run.out()).contains("Default 4.").contains("Default 60s.").contains("Exit codes: 0");
  }

  @Test
  void helpTextsFormatWithoutAWarning() {
    // picocli formats each description; a bare '%' makes it warn on the process's stderr.
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(seen, true, StandardCharsets.UTF_8));
    CliRun run;
    try {
      run = CliRun.of("batch", "--help");
    } finally {
      System.setErr(err);
    }
    assertThat(seen.toString(StandardCharsets.UTF_8)).doesNotContain("WARN");
    assertThat(run.out()).contains("0.2 or 20% (0 to 1)").contains("or 50%, and stays");
  }
}
