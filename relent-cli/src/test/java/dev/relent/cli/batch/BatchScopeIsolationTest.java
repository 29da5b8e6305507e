package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.time.FakeTime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code relent batch} with two endpoints, A and B, their requests interleaved (a-1, b-1, a-2, b-2,
 * …) and the default {@code --scope-by endpoint}: what A's server says about A holds back A alone.
 * A quota A runs out of stops A's requests and no other's, and a resumed run sends A's again only
 * after the reset; a pause and a rate A's answers teach hold none of B's requests. Against the mock
 * server; the quota tests take no wait at all, the pause test about its pause in real time (the
 * batch's waits are real), the resume runs on virtual wall time.
 */
class BatchScopeIsolationTest {
  @TempDir Path dir;

  /** A's and B's requests interleaved: a-1, b-1, a-2, b-2, … */
  private Path interleaved(MockServer server, int each) throws IOException {
    return interleaved(server, each, each);
  }

  /** {@code as} of A's and {@code bs} of B's interleaved, the longer one's rest at the end. */
  private Path interleaved(MockServer server, int as, int bs) throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= Math.max(as, bs); i++) {
      if (i <= as) {
        lines.add("{\"id\": \"a-" + i + "\", \"url\": \"" + server.uri("/a/" + i) + "\"}");
      }
      if (i <= bs) {
        lines.add("{\"id\": \"b-" + i + "\", \"url\": \"" + server.uri("/b/" + i) + "\"}");
      }
    }
    Path file = dir.resolve("in.jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  private static String endpointA(MockServer server) {
    return "endpoint GET 127.0.0.1:" + server.port() + "/a/{id}";
  }

  private static List<JsonNode> of(List<JsonNode> results, String prefix) {
    return results.stream()
        .filter(r -> r.get("id").asText().startsWith(prefix))
        .collect(Collectors.toList());
  }

  private static List<JournalEntry> to(MockServer server, String prefix) {
    return server.journal().stream()
        .filter(e -> e.target().startsWith(prefix))
        .collect(Collectors.toList());
  }

  /** A batch run in-process, on the given time (null: the system's). */
  private static CliRun batch(FakeTime time, String... args) {
    return CliRun.of(
        cli -> {
          BatchCommand b = cli.getSubcommands().get("batch").getCommand();
          b.shutdownHook = false;
          if (time != null) {
            b.ticker = time;
            b.clock = time;
          }
        },
        args);
  }

  @Test
  void aQuotaThatOneEndpointRunsOutOfStopsThatEndpointAloneAndTheSummarySaysSo()
      throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/a/*\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \"86400\"}}]},"
                    + "{\"path\": \"/b/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      Path in = interleaved(server, 20);
      Path out = dir.resolve("out.jsonl");
      long before = System.currentTimeMillis();

      CliRun run =
          batch(null, "batch", in.toString(), "--progress", "off", "--out", out.toString());

      long took = System.currentTimeMillis() - before;
      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      List<JsonNode> results = BatchCommandTest.results(out);
      assertThat(results).hasSize(40);
      assertThat(of(results, "b-"))
          .extracting(r -> r.get("outcome").asText())
          .containsOnly("success");
      assertThat(to(server, "/b/")).hasSize(20);

      // A's requests: those on the wire when the first 429 came are quota-exhausted; every later
      // one is not sent, at once, saying which scope and when it resets.
      int sent = to(server, "/a/").size();
      assertThat(sent).isBetween(1, 19);
      List<JsonNode> a = of(results, "a-");
      assertThat(a)
          .filteredOn(r -> r.get("outcome").asText().equals("quota-exhausted"))
          .hasSize(sent)
          .allSatisfy(
              r ->
                  assertThat(r.get("error").asText())
                      .startsWith("quota exhausted after 1 attempt in ")
                      .contains(
                          ", not retried; Retry-After: 86400: the quota resets in 86400 s; waiting"
                              + " a while will not help;")
                      .doesNotContain("rule retry"));
      List<JsonNode> notSent =
          a.stream()
              .filter(r -> r.get("outcome").asText().equals("not-sent"))
              .collect(Collectors.toList());
      assertThat(notSent).hasSize(20 - sent);
      String scope = endpointA(server);
      Instant reset = Instant.ofEpochMilli(before).plus(Duration.ofDays(1));
      for (JsonNode r : notSent) {
        assertThat(r.get("attempts").asInt()).isZero();
        assertThat(r.get("final").asBoolean()).isFalse();
        String error = r.get("error").asText();
        assertThat(error)
            .startsWith(
                "not sent: the quota of "
                    + scope
                    + " is exhausted (HTTP 429 with Retry-After: 86400); it resets at ")
            .endsWith(" (in 24 h 0 min)");
        Instant at = Instant.parse(error.substring(error.indexOf("resets at ") + 10).split(" ")[0]);
        // To the whole second: the fraction of the moment the answer came is dropped.
        assertThat(at)
            .isBetween(reset.truncatedTo(ChronoUnit.SECONDS), reset.plusMillis(took + 1000));
      }
      // No wait: B went on at once, and nothing waited for A's reset.
      assertThat(took).isLessThan(15_000);
      assertThat(run.out())
          .contains("40 requests in ")
          .contains(": 20 succeeded, 0 failed, 20 not finished\n")
          .contains(
              "  not finished       20 (not-sent "
                  + (20 - sent)
                  + ", quota-exhausted "
                  + sent
                  + ")")
          .contains("  quota stopped      " + scope + ": until ")
          .contains(
              " (in 24 h 0 min), "
                  + (20 - sent)
                  + " requests not sent; by HTTP 429 with Retry-After: 86400\n")
          .contains(
              "stopped: the quota of "
                  + scope
                  + " is exhausted (HTTP 429 with Retry-After: 86400); it resets at ")
          .contains(
              "  "
                  + (20 - sent)
                  + " requests were not sent; send them after the reset (with --journal, the same"
                  + " command would resume)");
      assertThat(run.err())
          .contains("relent batch: stopped: the quota of " + scope + " is exhausted (HTTP 429")
          .contains("; " + (20 - sent) + " requests not sent\n");
    }
  }

  /** Every time a text or record gives, ISO-8601 to any precision. */
  private static List<String> instants(String text) {
    List<String> found = new ArrayList<>();
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z").matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  @Test
  void aQuotaHasOneResetTimeToTheSecondInTheSummaryTheResultsAndTheJournal() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/a/*\", \"steps\": [{\"delay\": \"20ms\", \"status\": 429,"
                    + " \"headers\": {\"Retry-After\": \"86400\"}}]},"
                    + "{\"path\": \"/b/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      Path in = interleaved(server, 8);
      Path out = dir.resolve("out.jsonl");
      Path journal = dir.resolve("journal");

      CliRun run =
          batch(
              null,
              "batch",
              in.toString(),
              "--progress",
              "off",
              "--journal",
              journal.toString(),
              "--out",
              out.toString());

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      String scope = endpointA(server);
      String quotaLine =
          run.out().lines().filter(l -> l.contains("quota stopped")).findFirst().orElseThrow();
      List<String> stop = instants(quotaLine);
      assertThat(stop).hasSize(1);
      String reset = stop.get(0);
      // To the whole second, not to the nanosecond.
      assertThat(reset).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
      // The summary's paused scope, its stop, stderr: the one reset.
      String paused =
          run.out().lines().filter(l -> l.contains(scope + ": paused")).findFirst().orElseThrow();
      assertThat(instants(paused)).containsExactly(reset);
      assertThat(instants(run.out())).containsOnly(reset);
      assertThat(instants(run.err())).containsOnly(reset);
      // Every result of A, sent (the answers on the wire together) or not: the same reset.
      List<JsonNode> a = of(BatchCommandTest.results(out), "a-");
      assertThat(a).hasSize(8);
      assertThat(a)
          .filteredOn(r -> r.get("outcome").asText().equals("quota-exhausted"))
          .isNotEmpty();
      assertThat(a)
          .allSatisfy(r -> assertThat(instants(r.get("error").asText())).containsExactly(reset));
      // The journal's stop: the same.
      String end =
          Files.readAllLines(journal).stream()
              .filter(l -> l.startsWith("{\"rec\":\"end\""))
              .findFirst()
              .orElseThrow();
      assertThat(end).contains("\"until\":\"" + reset + "\"");
    }
  }

  @Test
  void threeEndpointsOfAnAccountOutOfQuotaStopTheAccount() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/b/*\", \"steps\": [{\"status\": 200}]},"
                    + "{\"path\": \"/**\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \"86400\"}}]}]}"))) {
      List<String> lines = new ArrayList<>();
      for (String endpoint : List.of("a", "c", "d")) {
        lines.add(
            "{\"id\": \""
                + endpoint
                + "-1\", \"url\": \""
                + server.uri("/" + endpoint + "/1")
                + "\"}");
      }
      for (int i = 1; i <= 5; i++) {
        lines.add("{\"id\": \"b-" + i + "\", \"url\": \"" + server.uri("/b/" + i) + "\"}");
      }
      Path in = dir.resolve("in.jsonl");
      Files.write(in, lines, StandardCharsets.UTF_8);
      Path out = dir.resolve("out.jsonl");

      CliRun run =
          batch(
              null,
              "batch",
              in.toString(),
              "--concurrency",
              "1",
              "--progress",
              "off",
              "--out",
              out.toString());

      // The third endpoint paused within a minute pauses the account (escalation), and its quota
      // stop is the account's: the healthy endpoint of the same account is not sent either.
      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(server.journal()).hasSize(3);
      String account = "account 127.0.0.1:" + server.port();
      assertThat(of(BatchCommandTest.results(out), "b-"))
          .hasSize(5)
          .allSatisfy(
              r ->
                  assertThat(r.get("error").asText())
                      .startsWith("not sent: the quota of " + account + " is exhausted"));
      assertThat(run.out())
          .contains("  quota stopped      " + account + ": until ")
          .contains(", 5 requests not sent; by HTTP 429 with Retry-After: 86400\n")
          .contains("endpoint GET 127.0.0.1:" + server.port() + "/a/{id}: until ")
          .contains(", 0 requests not sent; by HTTP 429 with Retry-After: 86400\n");
    }
  }

  @Test
  void aResumedRunSendsTheStoppedEndpointsRequestsAndOnlyThoseOnlyAfterItsReset()
      throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/a/*\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \"86400\"}}, {\"status\": 200}]},"
                    + "{\"path\": \"/b/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      Path in = interleaved(server, 20);
      Path out = dir.resolve("out.jsonl");
      Path journal = dir.resolve("journal");
      // One worker: exactly one request of A is sent before A stops.
      String[] args = {
        "batch",
        in.toString(),
        "--concurrency",
        "1",
        "--progress",
        "off",
        "--journal",
        journal.toString(),
        "--out",
        out.toString()
      };
      Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      String scope = endpointA(server);

      CliRun first = batch(new FakeTime(start), args);

      assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(to(server, "/a/")).hasSize(1);
      assertThat(to(server, "/b/")).hasSize(20);
      assertThat(Files.readString(journal))
          .contains(
              "\"stopped\":\"quota\",\"quota_stops\":[{\"scope\":\""
                  + scope
                  + "\",\"until\":\""
                  + start.plus(Duration.ofDays(1))
                  + "\",\"cause\":\"HTTP 429 with Retry-After: 86400\",\"run\":1,\"not_sent\":19}]");

      // Before the reset: nothing is sent, B's results come from the journal, A's are held back.
      CliRun early = batch(new FakeTime(start.plus(Duration.ofHours(12))), args);

      assertThat(early.exitCode()).as(early.err()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(server.journal()).hasSize(21);
      assertThat(early.err())
          .contains("20 of 40 finished earlier (skipped)")
          .contains(
              "relent batch: "
                  + scope
                  + ": its quota is exhausted until "
                  + start.plus(Duration.ofDays(1))
                  + " (in 12 h 0 min), as run 1 was told (HTTP 429 with Retry-After: 86400); its"
                  + " requests are not sent before then\n");
      List<JsonNode> held = BatchCommandTest.results(out);
      assertThat(of(held, "b-"))
          .hasSize(20)
          .allMatch(r -> r.get("outcome").asText().equals("success"));
      assertThat(of(held, "a-"))
          .hasSize(20)
          .allSatisfy(
              r ->
                  assertThat(r.get("error").asText())
                      .startsWith(
                          "not sent: the quota of "
                              + scope
                              + " is exhausted (HTTP 429 with Retry-After: 86400; run 1 of the"
                              + " journal was told); it resets at "));
      // The stop is kept for the next run, still as run 1's word.
      assertThat(Files.readString(journal))
          .contains("\"cause\":\"HTTP 429 with Retry-After: 86400\",\"run\":1,\"not_sent\":20}]");
      assertThat(early.out())
          .contains("  quota stopped      " + scope + ": until ")
          .contains(
              " (in 12 h 0 min), 20 requests not sent; run 1 of the journal was told by HTTP 429"
                  + " with Retry-After: 86400\n")
          .contains(
              "  20 requests were not sent; run the same command after the reset: the journal"
                  + " skips what finished, and holds a scope back until its reset");

      // After the reset: A's twenty are sent (the server takes them now), and no B again.
      CliRun later = batch(new FakeTime(start.plus(Duration.ofDays(1)).plusSeconds(60)), args);

      assertThat(later.exitCode()).as(later.err()).isEqualTo(ExitCodes.OK);
      assertThat(to(server, "/a/")).hasSize(21);
      assertThat(to(server, "/b/")).hasSize(20);
      List<JsonNode> results = BatchCommandTest.results(out);
      assertThat(results).hasSize(40).allMatch(r -> r.get("outcome").asText().equals("success"));
      assertThat(results.stream().map(r -> r.get("id").asText()).collect(Collectors.toSet()))
          .hasSize(40);
      assertThat(later.out()).doesNotContain("quota stopped");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "40/s"})
  void aPauseAndARateThatOneEndpointsAnswersTeachHoldNoRequestOfTheOther(String rate)
      throws IOException {
    int pauseSeconds = 3;
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/a/*\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \""
                    + pauseSeconds
                    + "\"}}, {\"status\": 200}]},"
                    + "{\"path\": \"/b/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      // Eight of A: enough to hold every worker but one for A's pause, few enough that A's learned
      // rate does not make the test long once the pause is over.
      Path in = interleaved(server, 8, 20);
      Path out = dir.resolve("out.jsonl");
      List<String> args =
          new ArrayList<>(
              List.of(
                  "batch",
                  in.toString(),
                  "--progress",
                  "off",
                  "--base",
                  "1ms",
                  "--cap",
                  "5ms",
                  "--out",
                  out.toString()));
      if (!rate.isEmpty()) {
        args.addAll(List.of("--rate", rate));
      }

      CliRun run = batch(null, args.toArray(new String[0]));

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      List<JsonNode> results = BatchCommandTest.results(out);
      assertThat(results).hasSize(28).allMatch(r -> r.get("outcome").asText().equals("success"));
      JournalEntry refused =
          server.journal().stream().filter(e -> e.status() == 429).findFirst().orElseThrow();
      long t429 = refused.arrivedAt().toEpochMilli();
      long pauseEnd = t429 + pauseSeconds * 1000L;

      // B never waited on A: no B request waited for a retry or for long for its pacer, and every
      // one reached the server well within A's pause.
      List<JsonNode> b = of(results, "b-");
      assertThat(b).allSatisfy(r -> assertThat(r.get("waits_ms").size()).isZero());
      assertThat(b).allSatisfy(r -> assertThat(r.get("paced_ms").asDouble()).isLessThan(1000));
      assertThat(to(server, "/b/"))
          .hasSize(20)
          .allSatisfy(e -> assertThat(e.arrivedAt().toEpochMilli()).isLessThan(pauseEnd - 500));

      // A's pause held A's own requests: besides those already on their way when the 429 came,
      // none reached the server before the pause was over.
      assertThat(to(server, "/a/"))
          .filteredOn(e -> e.arrivedAt().toEpochMilli() > t429 + 300)
          .isNotEmpty()
          .allSatisfy(
              e -> assertThat(e.arrivedAt().toEpochMilli()).isGreaterThanOrEqualTo(pauseEnd - 100));
      // What A's answers taught is A's own.
      String summary = run.out();
      assertThat(summary)
          .contains("  paused scopes      " + endpointA(server) + ": paused 1 time,")
          .doesNotContain("/b/{id}: paused");
      if (summary.contains("at the end " + endpointA(server))) {
        assertThat(summary).doesNotContain("/b/{id} one start every");
      }
    }
  }

  private static List<String> ids(Path results) throws IOException {
    try (Stream<String> lines = Files.lines(results)) {
      return lines.map(l -> l.substring(7, l.indexOf('"', 7))).collect(Collectors.toList());
    }
  }

  @Test
  void everyIdAppearsOnceWhenRequestsOfAHeldBackEndpointAreSetAside() throws IOException {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/a/*\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \"1\"}}, {\"status\": 200}]},"
                    + "{\"path\": \"/b/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      Path in = interleaved(server, 8, 30);
      Path out = dir.resolve("out.jsonl");

      CliRun run =
          batch(
              null,
              "batch",
              in.toString(),
              "--concurrency",
              "2",
              "--progress",
              "off",
              "--out",
              out.toString());

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
      List<String> ids = ids(out);
      assertThat(ids).hasSize(38);
      assertThat(new HashSet<>(ids)).hasSize(38);
      assertThat(to(server, "/a/")).filteredOn(e -> e.status() == 200).hasSize(8);
      assertThat(to(server, "/b/")).hasSize(30);
    }
  }
}
