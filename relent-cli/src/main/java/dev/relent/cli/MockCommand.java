package dev.relent.cli;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.ScenarioException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
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
    Scenario parsed;
    try {
      parsed = Scenario.parse(scenario);
    } catch (NoSuchFileException e) {
      err.println("relent mock: " + scenario + ": no such file");
      return ExitCodes.USAGE;
    } catch (IOException e) {
      err.println("relent mock: " + scenario + ": cannot read: " + e.getMessage());
      return ExitCodes.USAGE;
    } catch (ScenarioException e) {
      // file:line: field: what was expected, one line per problem
      err.println(e.getMessage());
      return ExitCodes.USAGE;
    }
    MockServer.Builder builder = MockServer.builder(parsed);
    if (port != null) {
      builder.withPort(port);
    }
    if (host != null) {
      builder.withHost(host);
    }
    MockServer server;
    try {
      server = builder.start();
    } catch (UncheckedIOException e) {
      err.println(e.getMessage());
      return ExitCodes.ERROR;
    }
    try {
      PrintWriter out = spec.commandLine().getOut();
      out.println("relent mock listening on " + server.baseUri());
      out.flush();
      whileRunning.accept(server);
    } finally {
      server.close();
    }
    return ExitCodes.OK;
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
