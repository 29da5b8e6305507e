package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code relent} in a JVM of its own, as the {@code ./relent} launcher does ({@code java
 * dev.relent.cli.RelentCli}, here on the test class path instead of the shaded jar, which is built
 * after the tests), so that the exit codes seen are those of {@code System.exit} and stderr holds
 * nothing but the CLI's own lines.
 */
class ProcessExitCodeTest {

  record Result(int exitCode, String out, String err) {}

  private static Result relent(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.relent.cli.RelentCli");
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    byte[] err = p.getErrorStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(
        p.exitValue(),
        new String(out, StandardCharsets.UTF_8),
        new String(err, StandardCharsets.UTF_8));
  }

  /**
   * The JDK client sends a GET a second time, inside one attempt, when its connection is reset
   * before any response byte; the process turns that off, so a reset GET with no retry allowed is
   * one request at the server and a failed call, and with retries two requests in two attempts.
   */
  @Test
  void everyRequestOnTheWireIsAnAttempt() throws Exception {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items\", \"steps\": [{\"fault\": \"reset\"},"
                    + " {\"fault\": \"reset\"}, {\"status\": 200, \"body\": \"ok\"}]}]}"))) {
      Result once = relent("call", "--max-retries", "0", server.uri("/items").toString());
      assertThat(once.err()).contains("connection reset").contains("after 1 attempt");
      assertThat(once.exitCode()).isEqualTo(4);
      assertThat(server.stats().requests("/items")).isEqualTo(1);

      Result retried =
          relent("call", "--base", "1ms", "--cap", "2ms", "-v", server.uri("/items").toString());
      assertThat(retried.exitCode()).isZero();
      assertThat(retried.out()).isEqualTo("ok");
      assertThat(server.stats().requests("/items")).isEqualTo(3);
      assertThat(retried.err())
          .contains("attempt=1 ")
          .contains("attempt=2 ")
          .endsWith("relent: HTTP 200 after 2 attempts\n");
    }
  }

  @Test
  void theProcessExitsWithTheDocumentedCodes() throws Exception {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/flaky\", \"steps\": [{\"status\": 503}, {\"status\": 200,"
                    + " \"body\": \"ok\"}]},"
                    + "{\"path\": \"/missing\", \"steps\": [{\"status\": 404}]},"
                    + "{\"path\": \"/down\", \"steps\": [{\"status\": 503}]}]}"))) {
      Result ok = relent("call", "--base", "1ms", "--cap", "2ms", server.uri("/flaky").toString());
      assertThat(ok.exitCode()).isZero();
      assertThat(ok.out()).isEqualTo("ok");
      // nothing else on stderr: no SLF4J or Netty chatter
      assertThat(ok.err()).isEmpty();

      Result missing = relent("call", server.uri("/missing").toString());
      assertThat(missing.exitCode()).isEqualTo(3);
      assertThat(missing.err()).startsWith("relent: HTTP 404 from GET ");

      Result down =
          relent(
              "call",
              "--base",
              "1ms",
              "--cap",
              "2ms",
              "--max-retries",
              "1",
              server.uri("/down").toString());
      assertThat(down.exitCode()).isEqualTo(4);

      Result usage = relent("call", "--jitter", "sometimes", server.uri("/flaky").toString());
      assertThat(usage.exitCode()).isEqualTo(2);
      assertThat(usage.err()).contains("use full, equal, decorrelated or none");
      assertThat(server.stats().requests("/flaky")).isEqualTo(2);
    }
  }
}
