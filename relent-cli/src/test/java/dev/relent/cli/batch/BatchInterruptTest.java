package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C during {@code relent batch}, in-process: the run is handed the action its JVM shutdown
 * hook runs ({@link BatchCommand#interrupts}), and the test runs it once the write it sends is in
 * its retry wait (a 503, then a backoff of 20 s that the stop ends at once). The summary and stderr
 * say how to resume; the stopped keyed write says it may have taken effect and is safe to send
 * again; the same command resumes it with its key. Against the mock server.
 */
class BatchInterruptTest {
  @TempDir Path dir;

  private static final String SCENARIO =
      "{\"routes\": ["
          + "{\"method\": \"POST\", \"path\": \"/pay\", \"steps\": [{\"status\": 503},"
          + " {\"status\": 201}]},"
          + "{\"path\": \"/items/*\", \"steps\": [{\"status\": 200}]}]}";

  private Path input(MockServer server) throws Exception {
    List<String> lines = new ArrayList<>();
    lines.add(
        "{\"id\": \"pay-1\", \"method\": \"POST\", \"url\": \""
            + server.uri("/pay")
            + "\", \"body\": {\"amount\": 10}}");
    for (int i = 1; i <= 3; i++) {
      lines.add("{\"id\": \"r-" + i + "\", \"url\": \"" + server.uri("/items/" + i) + "\"}");
    }
    Path file = dir.resolve("in.jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  private List<String> args(Path in, boolean journal) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "batch",
                in.toString(),
                "--concurrency",
                "1",
                "--base",
                "20s",
                "--cap",
                "20s",
                "--jitter",
                "none",
                "--progress",
                "off",
                "--out",
                dir.resolve("out.jsonl").toString()));
    if (journal) {
      args.addAll(List.of("--journal", dir.resolve("run.journal").toString()));
    }
    return args;
  }

  /** Runs the batch, and Ctrl-C once the server has had the write's first attempt. */
  private static CliRun interruptedOnceSent(MockServer server, List<String> args) throws Exception {
    AtomicReference<Runnable> ctrlC = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<CliRun> run =
        CompletableFuture.supplyAsync(
            () ->
                CliRun.of(
                    cli -> {
                      BatchCommand b = cli.getSubcommands().get("batch").getCommand();
                      b.shutdownHook = false;
                      b.interrupts =
                          stop -> {
                            ctrlC.set(stop);
                            started.countDown();
                          };
                    },
                    args.toArray(new String[0])));
    assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
    // The write's first attempt reached the server: it is answered 503 and waits 20 s to retry.
    for (int i = 0; i < 3000 && server.journal().isEmpty(); i++) {
      Thread.sleep(10);
    }
    assertThat(server.journal()).hasSize(1);
    ctrlC.get().run();
    return run.get(60, TimeUnit.SECONDS);
  }

  private Map<String, JsonNode> results() throws Exception {
    Map<String, JsonNode> byId = new HashMap<>();
    for (JsonNode r : BatchCommandTest.results(dir.resolve("out.jsonl"))) {
      byId.put(r.get("id").asText(), r);
    }
    return byId;
  }

  @Test
  void ctrlCSaysHowToResumeAndAStoppedKeyedWriteThatItIsSafeToSendAgain() throws Exception {
    try (MockServer server = MockServer.start(Scenario.parse(SCENARIO))) {
      List<String> args = args(input(server), true);

      CliRun run = interruptedOnceSent(server, args);

      // In-process the code is the run's own (the journal's end record has it too); the shell
      // sees 130 for SIGINT, as the JVM ends on the signal.
      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      Map<String, JsonNode> results = results();
      assertThat(results).hasSize(4);
      JsonNode pay = results.get("pay-1");
      assertThat(pay.get("outcome").asText()).isEqualTo("stopped");
      assertThat(pay.get("final").asBoolean()).isFalse();
      assertThat(pay.get("error").asText())
          .isEqualTo(
              "stopped: interrupted: the process was asked to stop (Ctrl-C, SIGTERM); it may have"
                  + " taken effect, and is safe to send again: it carries its idempotency key,"
                  + " which the journal keeps, and the same command sends it again with it");
      for (String id : List.of("r-1", "r-2", "r-3")) {
        assertThat(results.get(id).get("outcome").asText()).isEqualTo("not-sent");
        // A read is safe to send again whatever happened: nothing is said of its effect.
        assertThat(results.get(id).get("error").asText()).doesNotContain("taken effect");
      }
      assertThat(run.out())
          .contains("stopped: interrupted: the process was asked to stop (Ctrl-C, SIGTERM)\n")
          .contains(
              "  4 requests were not finished; to resume, run the same command: the journal skips"
                  + " what finished, and sends the rest (each write with the key it was first sent"
                  + " with)\n");
      assertThat(run.err())
          .endsWith(
              "relent batch: stopped: interrupted: the process was asked to stop (Ctrl-C,"
                  + " SIGTERM); 4 requests not finished: to resume, run the same command; the"
                  + " journal skips what finished\n");

      // As it says: the same command sends the write again with its key, and the rest.
      CliRun again = BatchCommandTest.batch(args.toArray(new String[0]));

      assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.OK);
      List<JournalEntry> posts =
          server.journal().stream()
              .filter(e -> e.method().equals("POST"))
              .collect(Collectors.toList());
      assertThat(posts).hasSize(2);
      assertThat(posts.get(1).header("Idempotency-Key"))
          .isNotNull()
          .isEqualTo(posts.get(0).header("Idempotency-Key"))
          .isEqualTo(pay.get("idempotency_key").asText());
      assertThat(results().values())
          .extracting(r -> r.get("outcome").asText())
          .containsOnly("success");
    }
  }

  @Test
  void withoutAJournalCtrlCSaysANewRunSendsEverythingAgainAndTheWriteNamesItsKey()
      throws Exception {
    try (MockServer server = MockServer.start(Scenario.parse(SCENARIO))) {
      CliRun run = interruptedOnceSent(server, args(input(server), false));

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(results().get("pay-1").get("error").asText())
          .endsWith(
              "; it may have taken effect, and is safe to send again: it carries its idempotency"
                  + " key, the idempotency_key of this line: send it again with that key");
      assertThat(run.out())
          .contains(
              "  4 requests were not finished; a new run sends every request again (with"
                  + " --journal, the same command would resume, skipping what finished)\n");
      assertThat(run.err())
          .endsWith(
              "; 4 requests not finished: a new run sends every request again (with --journal,"
                  + " the same command would skip what finished)\n");
    }
  }
}
