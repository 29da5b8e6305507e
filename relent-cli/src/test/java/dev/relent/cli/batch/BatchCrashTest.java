package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relent.cli.ChildJvm;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal against real crashes: {@code relent batch} runs in a JVM of its own ({@code java -cp
 * <test class path> dev.relent.cli.RelentCli batch ...}, as the launcher runs it), is killed with
 * {@code kill -9} (or stopped with SIGTERM) once some results are out, and the same command is run
 * again. The mock server, in this JVM, is the witness: every write's key created exactly one
 * payment, and every id appears once in the results.
 */
class BatchCrashTest {
  static final int PAYMENTS = 16;
  static final int READS = 8;
  static final String SCENARIO =
      "{\"routes\": [{\"method\": \"GET\", \"path\": \"/items/*\", \"steps\": [{\"delay\":"
          + " \"50ms\", \"status\": 200}]}],"
          + "\"resources\": [{\"name\": \"payments\", \"path\": \"/payments\", \"idPrefix\":"
          + " \"pay_\", \"steps\": [{\"delay\": \"120ms\"}]}]}";

  @TempDir Path dir;

  private final ObjectMapper json = new ObjectMapper();

  private Path input(MockServer server) throws IOException {
    List<String> lines = new ArrayList<>();
    int read = 0;
    for (int i = 1; i <= PAYMENTS; i++) {
      lines.add(ChildJvm.payment(server.uri("/payments"), i, 100 * i));
      if (i % 2 == 0) {
        read++;
        lines.add(
            "{\"id\": \"read-" + read + "\", \"url\": \"" + server.uri("/items/" + read) + "\"}");
      }
    }
    Path file = dir.resolve("in.jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  private String[] args(Path in) {
    return new String[] {
      "batch",
      in.toString(),
      "--rate",
      "20/s",
      "--concurrency",
      "3",
      "--journal",
      dir.resolve("run.journal").toString(),
      "--out",
      dir.resolve("out.jsonl").toString(),
      "--progress",
      "off",
    };
  }

  private Process child(String[] args) throws IOException {
    List<String> command = ChildJvm.relent(List.of(), List.of(args));
    return new ProcessBuilder(command)
        .redirectOutput(dir.resolve("child.out").toFile())
        .redirectError(dir.resolve("child.err").toFile())
        .start();
  }

  /** Waits until the results file has {@code n} lines (the child is working), at most 60 s. */
  private void awaitResults(Process p, int n) throws Exception {
    Path out = dir.resolve("out.jsonl");
    for (int i = 0; i < 3000; i++) {
      assertThat(p.isAlive()).as("the child ended early: %s", childErr()).isTrue();
      if (Files.exists(out) && lines(out) >= n) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no " + n + " results within 60 s: " + childErr());
  }

  private static long lines(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    long n = 0;
    for (byte b : bytes) {
      if (b == '\n') {
        n++;
      }
    }
    return n;
  }

  private String childErr() throws IOException {
    Path err = dir.resolve("child.err");
    return Files.exists(err) ? Files.readString(err) : "";
  }

  private List<JsonNode> results() throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("out.jsonl"), StandardCharsets.UTF_8)) {
      nodes.add(json.readTree(line));
    }
    return nodes;
  }

  private List<JsonNode> journal() throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("run.journal"), StandardCharsets.UTF_8)) {
      nodes.add(json.readTree(line));
    }
    return nodes;
  }

  /** Every write created one payment under its own key; nothing ran twice. */
  private void assertEveryWriteExistsExactlyOnce(MockServer server) throws IOException {
    Map<String, Long> perKey = server.stats().resourcesCreatedPerKey("payments");
    assertThat(perKey).hasSize(PAYMENTS);
    assertThat(perKey.values()).containsOnly(1L);
    assertThat(server.stats().resourcesCreated("payments")).isEqualTo(PAYMENTS);

    List<JournalEntry> posts =
        server.journal().stream()
            .filter(e -> e.method().equals("POST"))
            .collect(Collectors.toList());
    Set<String> sentKeys =
        posts.stream().map(e -> e.header("Idempotency-Key")).collect(Collectors.toSet());
    assertThat(sentKeys).isEqualTo(perKey.keySet());
    // a write sent again after the kill carried its journaled key and was replayed, not created
    long replayed = posts.stream().filter(e -> "replayed".equals(e.outcome())).count();
    assertThat(posts.size() - replayed).isEqualTo(PAYMENTS);

    Map<String, String> journaledKeys = new HashMap<>();
    for (JsonNode rec : journal()) {
      if (rec.get("rec").asText().equals("key")) {
        assertThat(journaledKeys.put(rec.get("id").asText(), rec.get("key").asText()))
            .as("one key record per id")
            .isNull();
      }
    }
    assertThat(journaledKeys).hasSize(PAYMENTS);
    assertThat(new HashSet<>(journaledKeys.values())).isEqualTo(sentKeys);

    List<JsonNode> results = results();
    List<String> ids = results.stream().map(r -> r.get("id").asText()).collect(Collectors.toList());
    assertThat(ids).hasSize(PAYMENTS + READS).doesNotHaveDuplicates();
    assertThat(results).extracting(r -> r.get("outcome").asText()).containsOnly("success");
    for (JsonNode r : results) {
      if (r.get("id").asText().startsWith("pay-")) {
        assertThat(r.get("idempotency_key").asText())
            .isEqualTo(journaledKeys.get(r.get("id").asText()));
      }
    }
  }

  @Test
  void aRunKilledMidwayResumesAndEveryWriteExistsExactlyOnce() throws Exception {
    try (MockServer server = MockServer.start(Scenario.parse(SCENARIO))) {
      String[] args = args(input(server));
      Process p = child(args);
      awaitResults(p, 6);
      p.destroyForcibly();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isEqualTo(137);
      long sentBefore = server.stats().requests();
      assertThat(sentBefore).isLessThan(PAYMENTS + READS);

      CliRun again = BatchCommandTest.batch(args);

      assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.OK);
      assertThat(again.err())
          .startsWith("relent batch: resuming from " + dir.resolve("run.journal") + " (run 2): ");
      assertEveryWriteExistsExactlyOnce(server);
      List<JsonNode> journal = journal();
      assertThat(journal.get(0).get("rec").asText()).isEqualTo("journal");
      assertThat(journal.get(0).get("version").asInt()).isEqualTo(JournalFormat.VERSION);
      assertThat(journal).filteredOn(r -> r.get("rec").asText().equals("run")).hasSize(2);
      JsonNode last = journal.get(journal.size() - 1);
      assertThat(last.get("rec").asText()).isEqualTo("end");
      assertThat(last.get("exit_code").asInt()).isZero();
    }
  }

  @Test
  void sigtermStopsGracefullyWithTheJournalFlushedAndTheRestResumes() throws Exception {
    try (MockServer server = MockServer.start(Scenario.parse(SCENARIO))) {
      Path report = dir.resolve("report.html");
      String[] args =
          Stream.concat(Arrays.stream(args(input(server))), Stream.of("--html", report.toString()))
              .toArray(String[]::new);
      Process p = child(args);
      awaitResults(p, 4);
      p.destroy();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isEqualTo(143);
      String out = Files.readString(dir.resolve("child.out"));
      assertThat(out)
          .startsWith("relent batch: " + (PAYMENTS + READS) + " requests in ")
          .contains("stopped: interrupted: the process was asked to stop (Ctrl-C, SIGTERM)");
      // every id is in the results, those not finished as such
      List<JsonNode> stopped = results();
      assertThat(stopped).hasSize(PAYMENTS + READS);
      assertThat(stopped)
          .extracting(r -> r.get("outcome").asText())
          .contains("success", "not-sent");
      List<JsonNode> journal = journal();
      JsonNode end = journal.get(journal.size() - 1);
      assertThat(end.get("rec").asText()).isEqualTo("end");
      assertThat(end.get("stopped").asText()).isEqualTo("interrupted");
      assertThat(end.get("exit_code").asInt()).isEqualTo(ExitCodes.DEADLINE);
      // the report of the stopped run was written before the process ended
      assertThat(Files.readString(report))
          .contains("<strong>Stopped:</strong> interrupted: the process was asked to stop")
          .contains("<table id=\"table-results\">");
      assertThat(Files.readString(dir.resolve("child.err")))
          .contains("relent batch: report written to " + report);

      CliRun again = BatchCommandTest.batch(args);

      assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.OK);
      assertEveryWriteExistsExactlyOnce(server);
    }
  }
}
