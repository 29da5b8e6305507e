package dev.relent.cli;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.MockServerMain;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relent mock SCENARIO [--port N] [--host H]}: starts the fault-injecting mock server
 * (relent-mockserver) from a scenario file, prints {@code relent mock listening on
 * http://127.0.0.1:PORT} and serves until the process is stopped (Ctrl-C closes it). Behaves as
 * {@code dev.relent.mockserver.MockServerMain} does, with the same messages: a missing or bad
 * scenario file exits with 2 and names the file, the line, the field and what was expected; an
 * address that cannot be bound exits with 1.
 */
@Command(
    name = "mock",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Start the fault-injecting mock server from a scenario file (JSON or YAML) and print its"
          + " address; serve until Ctrl-C.",
      "",
      "Example: relent mock scenario.json --port 8080",
      ""
    },
    footer = {"", "The scenario format is in docs/mockserver.md."})
final class MockCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SCENARIO", description = "The scenario file.")
  Path scenario;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "The port, 0..65535. Default: the file's server.port, else a free port.")
  Integer port;

  @Option(
      names = "--host",
      paramLabel = "HOST",
      description = "The address to listen on. Default: the file's server.host, else 127.0.0.1.")
  String host;

  /** What to do while the server runs; by default, wait until the process is stopped. */
  Consumer<MockServer> whileRunning = MockCommand::serveUntilStopped;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    if (port != null && (port < 0 || port > 65_535)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--port must be an integer 0..65535, got " + port);
    }
    PrintWriter out = spec.commandLine().getOut();
    Consumer<String> announce =
        line -> {
          out.println(line);
          out.flush();
        };
    // the file is named as picocli made it a Path; the codes are ExitCodes' OK, ERROR and USAGE
    return MockServerMain.serve(
        scenario.toString(), port, host, announce, err::println, whileRunning);
  }

  /** Blocks until the JVM shuts down (Ctrl-C, SIGTERM); the shutdown hook closes the server. */
  private static void serveUntilStopped(MockServer server) {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                },
                "relent-mock-stop"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
