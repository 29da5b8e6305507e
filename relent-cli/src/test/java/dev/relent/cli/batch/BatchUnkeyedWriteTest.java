package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relent.cli.ChildJvm;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write without an idempotency key that was on the wire when the run stopped may have taken
 * effect, and nothing can tell the server it is the same request: the run records it {@code
 * not-resent} (final) and the resumed run does not send it again, whether the run was stopped
 * (Ctrl-C, in-process) or killed ({@code kill -9} of a JVM of its own, which leaves only the
 * journal's record written before the send). Against the mock server, whose answer to the write
 * takes 30 s.
 */
class BatchUnkeyedWriteTest {
  @TempDir Path dir;

  private static final String SCENARIO =
      "{\"routes\": [{\"method\": \"POST\", \"path\": \"/pay\", \"steps\":"
          + " [{\"status\": 201, \"delay\": \"30s\"}]},"
          + "{\"path\": \"/items/*\", \"steps\": [{\"status\": 200}]}]}";

  private String[] args(MockServer server) throws Exception {
    Path in = dir.resolve("in.jsonl");
    Files.write(
        in,
        List.of(
            "{\"id\": \"pay-1\", \"method\": \"POST\", \"url\": \""
                + server.uri("/pay")
                + "\", \"body\": {\"amount\": 10}, \"idempotency_key\": false}",
            "{\"id\": \"r-1\", \"url\": \"" + server.uri("/items/1") + "\"}"),
        StandardCharsets.UTF_8);
    return new String[] {
      "batch",
      in.toString(),
      "--concurrency",
      "1",
      "--progress",
      "off",
      "--journal",
      dir.resolve("run.journal").toString(),
      "--out",
      dir.resolve("out.jsonl").toString()
    };
  }

  private static void awaitThePost(MockServer server) throws InterruptedException {
    for (int i = 0; i < 3000 && server.journal().isEmpty(); i++) {
      Thread.sleep(10);
    }
    assertThat(server.journal()).hasSize(1);
  }

  private JsonNode result(String id) throws Exception {
    return BatchCommandTest.results(dir.resolve("out.jsonl")).stream()
        .filter(r -> r.get("id").asText().equals(id))
        .findFirst()
        .orElseThrow();
  }

  private static long posts(MockServer server) {
    return server.journal().stream().filter(e -> e.method().equals("POST")).count();
  }

  @Test
  void stoppedOnTheWireItIsNotResentThenOrWhenResumed() throws Exception {
    try (MockServer server = MockServer.start(Scenario.parse(SCENARIO))) {
      String[] args = args(server);
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
                      args));
      assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
      awaitThePost(server);
      ctrlC.get().run();
      run.get(60, TimeUnit.SECONDS);

      JsonNode pay = result("pay-1");
      assertThat(pay.get("outcome").asText()).isEqualTo("not-resent");
      assertThat(pay.get("final").asBoolean()).isTrue();
      assertThat(pay.get("error").asText())
          .isEqualTo(
              "stopped: interrupted: the process was asked to stop (Ctrl-C, SIGTERM); it may have"
                  + " taken effect, and carries no idempotency key, so it is not sent again (a"
                  + " resumed run skips it too): check whether it took effect before sending it"
                  + " again, or give it an idempotency key");

      CliRun again = BatchCommandTest.batch(args);

      assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.NOT_RETRIED);
      assertThat(posts(server)).isEqualTo(1);
      assertThat(result("pay-1").get("outcome").asText()).isEqualTo("not-resent");
      assertThat(result("r-1").get("outcome").asText()).isEqualTo("success");
    }
  }

  @Test
  void killedOnTheWireItIsNotResentWhenResumed() throws Exception {
    try (MockServer server = MockServer.start(Scenario.parse(SCENARIO))) {
      String[] args = args(server);
      Process p =
          new ProcessBuilder(ChildJvm.relent(List.of(), List.of(args)))
              .redirectOutput(dir.resolve("child.out").toFile())
              .redirectError(dir.resolve("child.err").toFile())
              .start();
      awaitThePost(server);
      p.destroyForcibly();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();

      CliRun again = BatchCommandTest.batch(args);

      assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.NOT_RETRIED);
      assertThat(posts(server)).isEqualTo(1);
      JsonNode pay = result("pay-1");
      assertThat(pay.get("outcome").asText()).isEqualTo("not-resent");
      assertThat(pay.get("final").asBoolean()).isTrue();
      assertThat(pay.get("attempts").asInt()).isZero();
      assertThat(pay.get("error").asText())
          .isEqualTo(
              "an earlier run ended (killed) while this write was being sent, before an answer;"
                  + " it may have taken effect, and carries no idempotency key, so it is not sent"
                  + " again (a resumed run skips it too): check whether it took effect before"
                  + " sending it again, or give it an idempotency key");
      assertThat(result("r-1").get("outcome").asText()).isEqualTo("success");
    }
  }
}
