package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MockCommandTest {
  @TempDir Path dir;

  /** Runs {@code relent mock} with {@code whileRunning} instead of waiting for Ctrl-C. */
  private static CliRun mock(java.util.function.Consumer<MockServer> whileRunning, String... args) {
    return CliRun.of(
        cli -> {
          CommandLine sub = cli.getSubcommands().get("mock");
          MockCommand command = sub.getCommand();
          command.whileRunning = whileRunning;
        },
        args);
  }

  @Test
  void startsPrintsItsAddressAndServesWhatTheScenarioSays() throws Exception {
    Path file = dir.resolve("scenario.json");
    Files.writeString(
        file,
        "{\"routes\": [{\"path\": \"/flaky\", \"steps\": [{\"status\": 503}, {\"status\": 200,"
            + " \"body\": \"ok\"}]}]}");
    AtomicReference<CliRun> call = new AtomicReference<>();
    AtomicReference<MockServer> seen = new AtomicReference<>();
    CliRun run =
        mock(
            server -> {
              seen.set(server);
              call.set(
                  CliRun.of(
                      "call", "--base", "1ms", "--cap", "2ms", server.uri("/flaky").toString()));
            },
            "mock",
            file.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .isEqualTo(
            "relent mock listening on http://127.0.0.1:"
                + seen.get().port()
                + System.lineSeparator());
    assertThat(run.err()).isEmpty();
    assertThat(call.get().exitCode()).isZero();
    assertThat(call.get().out()).isEqualTo("ok");
  }

  @Test
  void thePortFlagIsUsed() throws Exception {
    Path file = dir.resolve("scenario.json");
    Files.writeString(file, "{\"routes\": []}");
    int port;
    try (MockServer probe = MockServer.start(Scenario.parse("{\"routes\": []}"))) {
      port = probe.port();
    }
    AtomicReference<Integer> seen = new AtomicReference<>();
    CliRun run =
        mock(server -> seen.set(server.port()), "mock", file.toString(), "--port", "" + port);

    assertThat(run.exitCode()).isZero();
    assertThat(seen.get()).isEqualTo(port);
    assertThat(run.out()).contains("http://127.0.0.1:" + port);
  }

  @Test
  void aBadScenarioExitsTwoWithFileLineFieldAndWhatWasExpected() throws Exception {
    Path file = dir.resolve("scenario.json");
    Files.writeString(
        file,
        "{\"routes\": [\n  {\"path\": \"/a\",\n   \"steps\": [{\"status\": \"abc\","
            + " \"delay\": \"15 seconds\"}]}\n]}");
    CliRun run = mock(server -> {}, "mock", file.toString());

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .contains(file + ":3: routes[0].steps[0].status: expected an integer 100..599, got \"abc\"")
        .contains(
            file
                + ":3: routes[0].steps[0].delay: expected a duration like 250ms, 2s, 1m or PT2S,"
                + " got \"15 seconds\"");
  }

  @Test
  void aMissingFileExitsTwo() {
    Path file = dir.resolve("nope.json");
    CliRun run = mock(server -> {}, "mock", file.toString());

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .isEqualTo("relent mock: " + file + ": no such file" + System.lineSeparator());
  }

  @Test
  void badArgumentsExitTwo() {
    CliRun none = mock(server -> {}, "mock");
    assertThat(none.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.err()).contains("Missing required parameter: 'SCENARIO'");

    CliRun port = mock(server -> {}, "mock", "s.json", "--port", "70000");
    assertThat(port.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(port.err()).contains("--port must be an integer 0..65535, got 70000");

    CliRun word = mock(server -> {}, "mock", "s.json", "--port", "http");
    assertThat(word.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(word.err()).contains("Invalid value for option '--port': 'http' is not an int");
  }

  @Test
  void aTakenPortExitsOne() throws Exception {
    Path file = dir.resolve("scenario.json");
    Files.writeString(file, "{\"routes\": []}");
    try (MockServer taken = MockServer.start(Scenario.parse("{\"routes\": []}"))) {
      CliRun run = mock(server -> {}, "mock", file.toString(), "--port", "" + taken.port());
      assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
      assertThat(run.err()).startsWith("relent mock cannot listen on 127.0.0.1:" + taken.port());
    }
  }
}
