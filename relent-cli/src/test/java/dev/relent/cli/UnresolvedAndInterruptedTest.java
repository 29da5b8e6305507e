package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relent.cli.batch.BatchCommandTest;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keyed write whose answer was lost is <em>unresolved</em>, not failed ({@code relent call} exits
 * 6 and says how to send it again; {@code relent batch} records it as not final and a resume sends
 * it again with its journaled key until it resolves), a resume with nothing left to do exits 0, and
 * Ctrl-C during {@code relent call} says what it interrupted.
 */
class UnresolvedAndInterruptedTest {
  @TempDir Path dir;

  private final ObjectMapper json = new ObjectMapper();

  private static MockServer server(String resourceSteps) {
    return MockServer.start(
        Scenario.parse(
            "{\"routes\": [{\"path\": \"/down\", \"steps\": [{\"status\": 503}]},"
                + " {\"path\": \"/missing\", \"steps\": [{\"status\": 404}]}],"
                + " \"resources\": [{\"name\": \"payments\", \"path\": \"/payments\","
                + " \"idPrefix\": \"pay_\", \"steps\": "
                + resourceSteps
                + "}]}"));
  }

  private static CliRun call(Consumer<CallCommand> setUp, String... args) {
    return CliRun.of(
        cli -> {
          CallCommand c = cli.getSubcommands().get("call").getCommand();
          c.shutdownHook = false;
          setUp.accept(c);
        },
        args);
  }

  // ------------------------------------------------------------------ relent call

  @Test
  void aKeyedPostWhoseAnswersWereLostIsUnresolvedAndTheSameKeyResolvesIt() throws IOException {
    try (MockServer server = server("[{\"status\": 504}, {\"fault\": \"close\"}, {}]")) {
      Path report = dir.resolve("report.json");
      String url = server.uri("/payments").toString();

      CliRun first =
          call(
              c -> {},
              "call",
              "-d",
              "{\"amount\":100}",
              "--max-retries=1",
              "--base=1ms",
              "--cap=2ms",
              "--idempotency-key",
              "order-4711-a",
              "--report",
              report.toString(),
              url);

      assertThat(first.exitCode()).isEqualTo(ExitCodes.UNRESOLVED);
      assertThat(first.err())
          .startsWith("relent: gave up after 2 attempts in ")
          .contains("(last: connection closed before a response (")
          .contains("; all 1 retries used)")
          .endsWith(
              "; unresolved: the write may have taken effect; safe to send again with key"
                  + " order-47… (to send it again: relent call --idempotency-key order-4711-a"
                  + " …)\n");
      JsonNode r = json.readTree(Files.readString(report));
      assertThat(r.at("/outcome/reason").asText()).isEqualTo("unresolved");
      assertThat(r.at("/outcome/exit_code").asInt()).isEqualTo(6);
      assertThat(r.at("/request/idempotency_key").asText()).isEqualTo("order-4711-a");
      assertThat(r.at("/attempts/1/gave_up").asText()).isEqualTo("retries-exhausted");
      assertThat(server.stats().resourcesCreated("payments")).isEqualTo(1);

      CliRun again =
          call(c -> {}, "call", "-d", "{\"amount\":100}", "--idempotency-key", "order-4711-a", url);

      assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.OK);
      assertThat(again.out()).contains("\"id\":\"pay_1\"");
      assertThat(server.stats().resourcesCreatedPerKey("payments"))
          .containsExactly(java.util.Map.entry("order-4711-a", 1L));
    }
  }

  @Test
  void anUnkeyedPostStaysNotResentWithExitThree() {
    try (MockServer server = server("[{\"status\": 504}]")) {
      CliRun run = call(c -> {}, "call", "-d", "x", server.uri("/payments").toString());

      assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
      assertThat(run.err()).contains("was not re-sent after HTTP 504").doesNotContain("unresolved");
    }
  }

  // ------------------------------------------------------------------ relent batch

  private Path input(MockServer server, int payments, boolean withMissing) throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= payments; i++) {
      lines.add(ChildJvm.payment(server.uri("/payments"), i, i));
    }
    if (withMissing) {
      lines.add("{\"id\": \"gone\", \"url\": \"" + server.uri("/missing") + "\"}");
    }
    Path file = dir.resolve("in.jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  private String[] batchArgs(Path in) {
    return new String[] {
      "batch",
      in.toString(),
      "--rate=1000/s",
      "--concurrency=1",
      "--max-retries=0",
      "--journal",
      dir.resolve("run.journal").toString(),
      "--out",
      dir.resolve("out.jsonl").toString(),
      "--progress=off",
    };
  }

  private List<JsonNode> lines(Path file) throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      nodes.add(json.readTree(line));
    }
    return nodes;
  }

  @Test
  void unresolvedLinesAreNotFinalAndAResumeSendsThemAgainWithTheirKeysUntilTheyResolve()
      throws IOException {
    // Two payments are created and answered 504 and reset; every later answer passes through.
    try (MockServer server = server("[{\"status\": 504}, {\"fault\": \"reset\"}, {}]")) {
      String[] args = batchArgs(input(server, 2, false));

      CliRun first = BatchCommandTest.batch(args);

      assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCodes.UNRESOLVED);
      assertThat(first.out())
          .contains(": 0 succeeded, 0 failed, 2 unresolved, 0 not finished")
          .containsPattern("unresolved +2 \\(keyed writes that may have taken effect");
      assertThat(first.err())
          .endsWith(
              "relent batch: 2 writes are unresolved: each may have taken effect; run the same"
                  + " command again: the journal sends each again with its key until the server's"
                  + " answer resolves it\n");
      List<JsonNode> results = lines(dir.resolve("out.jsonl"));
      assertThat(results).extracting(n -> n.get("outcome").asText()).containsOnly("unresolved");
      assertThat(results).extracting(n -> n.get("final").asBoolean()).containsOnly(false);
      assertThat(results.get(0).get("error").asText())
          .contains("unresolved: the write may have taken effect; safe to send again with key")
          .doesNotContain("relent call");
      assertThat(lines(dir.resolve("run.journal")))
          .filteredOn(n -> n.get("rec").asText().equals("open"))
          .hasSize(2);
      assertThat(server.stats().resourcesCreated("payments")).isEqualTo(2);

      CliRun again = BatchCommandTest.batch(args);

      assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.OK);
      assertThat(again.err())
          .contains(
              "0 of 2 finished earlier (skipped); 2 writes sent again with the key journaled"
                  + " before its first send");
      assertThat(lines(dir.resolve("out.jsonl")))
          .extracting(n -> n.get("outcome").asText())
          .containsExactly("success", "success");
      assertThat(server.stats().resourcesCreatedPerKey("payments").values())
          .containsExactly(1L, 1L);

      // Nothing left to do and nothing failed: 0, and the summary says why.
      CliRun nothingLeft = BatchCommandTest.batch(args);

      assertThat(nothingLeft.exitCode()).as(nothingLeft.err()).isEqualTo(ExitCodes.OK);
      assertThat(nothingLeft.out())
          .contains("0 requests in ")
          .contains(": 0 succeeded, 0 failed, 0 not finished")
          .containsPattern("finished earlier +2 \\(in the journal; skipped\\)");
      assertThat(server.stats().resourcesCreated("payments")).isEqualTo(2);
    }
  }

  @Test
  void aResumeWithNothingLeftSaysWhichEarlierFailureItsExitCodeIsFor() throws IOException {
    try (MockServer server = server("[{}]")) {
      String[] args = batchArgs(input(server, 1, true));
      assertThat(BatchCommandTest.batch(args).exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);

      CliRun again = BatchCommandTest.batch(args);

      assertThat(again.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
      assertThat(again.out())
          .containsPattern(
              "finished earlier +2 \\(in the journal; skipped; 1 failed: http-error 1\\)");
      assertThat(again.err())
          .endsWith(
              "relent batch: some requests failed without retry, or bad lines were skipped (1 of"
                  + " them in earlier runs, kept in the journal); see the results\n");
    }
  }

  // ------------------------------------------------------------------ Ctrl-C during relent call

  /** Runs a call on its own thread; {@code stop} is the shutdown hook's first step. */
  private static CliRun interrupted(
      Consumer<CallCommand> setUp, CountDownLatch whenToStop, String... args) throws Exception {
    AtomicReference<CallCommand> command = new AtomicReference<>();
    AtomicReference<CliRun> result = new AtomicReference<>();
    Thread t =
        new Thread(
            () ->
                result.set(
                    call(
                        c -> {
                          command.set(c);
                          setUp.accept(c);
                        },
                        args)));
    t.start();
    assertThat(whenToStop.await(30, TimeUnit.SECONDS)).isTrue();
    command.get().stop();
    t.join(30_000);
    assertThat(t.isAlive()).isFalse();
    return result.get();
  }

  @Test
  void ctrlCDuringAKeyedAttemptSaysTheWriteMayHaveBeenSentAndItsKey() throws Exception {
    try (MockServer server = server("[{\"delay\": \"20s\"}]")) {
      Path report = dir.resolve("report.json");
      CountDownLatch created = new CountDownLatch(1);
      Thread watch =
          new Thread(
              () -> {
                try {
                  while (server.stats().resourcesCreated("payments") == 0) {
                    Thread.sleep(5);
                  }
                  created.countDown();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      watch.setDaemon(true);
      watch.start();
      String url = server.uri("/payments").toString();

      CliRun run =
          interrupted(
              c -> {},
              created,
              "call",
              "-d",
              "{}",
              "--timeout=30s",
              "--idempotency-key",
              "k-interrupted-1",
              "--report",
              report.toString(),
              url);

      assertThat(run.exitCode()).isEqualTo(ExitCodes.INTERRUPTED);
      assertThat(run.err())
          .startsWith("relent: interrupted by Ctrl-C or SIGTERM during attempt 1, ")
          .contains(
              " into the call: POST "
                  + url
                  + " may have been sent and taken effect; it carries Idempotency-Key"
                  + " k-interrupted-1, so it is safe to send again with the same key (relent call"
                  + " --idempotency-key k-interrupted-1 …)");
      JsonNode r = json.readTree(Files.readString(report));
      assertThat(r.at("/outcome/reason").asText()).isEqualTo("interrupted");
      assertThat(r.at("/outcome/exit_code").asInt()).isEqualTo(130);
      assertThat(r.at("/outcome/message").asText()).startsWith("interrupted by Ctrl-C");
    }
  }

  @Test
  void ctrlCDuringAWaitSaysWhichAttemptWasNextAndThatAReadChangedNothing() throws Exception {
    try (MockServer server = server("[{}]")) {
      CountDownLatch waiting = new CountDownLatch(1);
      CliRun run =
          interrupted(
              c ->
                  c.sleeper =
                      nanos -> {
                        waiting.countDown();
                        Thread.sleep(60_000);
                      },
              waiting,
              "call",
              "--base=1ms",
              "--cap=2ms",
              server.uri("/down").toString());

      assertThat(run.exitCode()).isEqualTo(ExitCodes.INTERRUPTED);
      assertThat(run.err())
          .matches(
              "relent: interrupted by Ctrl-C or SIGTERM while waiting to send attempt 2, \\S+ \\S*"
                  + " ?into the call \\(1 attempt made, last: HTTP 503\\)\n");
    }
  }

  @Test
  void sigtermToARealCallReportsTheAttemptAndEndsWithTheSignalsCode() throws Exception {
    try (MockServer server = server("[{\"delay\": \"20s\"}]")) {
      List<String> command =
          ChildJvm.relent(
              List.of(),
              List.of("call", "-d", "{}", "--timeout=30s", server.uri("/payments").toString()));
      Path err = dir.resolve("child.err");
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(dir.resolve("child.out").toFile())
              .redirectError(err.toFile())
              .start();
      for (int i = 0; i < 3000 && server.stats().resourcesCreated("payments") == 0; i++) {
        assertThat(p.isAlive()).as("the child ended early: %s", Files.readString(err)).isTrue();
        Thread.sleep(10);
      }
      assertThat(server.stats().resourcesCreated("payments")).isEqualTo(1);

      p.destroy();

      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isEqualTo(143);
      assertThat(Files.readString(err))
          .startsWith("relent: interrupted by Ctrl-C or SIGTERM during attempt 1, ")
          .contains(
              "may have reached the server and carries no Idempotency-Key; check whether it took"
                  + " effect before sending it again");
    }
  }
}
