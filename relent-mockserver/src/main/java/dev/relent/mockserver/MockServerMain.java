package dev.relent.mockserver;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Starts a {@link MockServer} from a scenario file:
 *
 * <pre>java dev.relent.mockserver.MockServerMain SCENARIO [--port N] [--host H]</pre>
 *
 * <p>Prints {@code relent mock listening on http://127.0.0.1:PORT} and serves until the process
 * ends. Exit codes: 2 for a bad command line or a bad or missing scenario file (the message names
 * the file, line and field), 1 if the server cannot listen.
 */
public final class MockServerMain {

  static final String USAGE = "usage: relent mock SCENARIO [--port N] [--host H]";

  private MockServerMain() {}

  /**
   * Runs the server until the process is ended.
   *
   * @param args {@code SCENARIO [--port N] [--host H]}
   */
  public static void main(String[] args) {
    int code =
        run(
            args,
            System.out,
            System.err,
            server -> {
              Runtime.getRuntime().addShutdownHook(new Thread(server::close, "relent-mock-stop"));
              server.awaitClose();
            });
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Parses the arguments, starts the server, hands it to {@code whileRunning} and closes it when
   * that returns.
   *
   * @return the exit code: 0, 1 (cannot listen) or 2 (bad arguments or scenario)
   */
  static int run(
      String[] args, PrintStream out, PrintStream err, Consumer<MockServer> whileRunning) {
    String file = null;
    Integer port = null;
    String host = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--port") || a.equals("--host")) {
        if (i + 1 >= args.length) {
          err.println("relent mock: " + a + " needs a value");
          err.println(USAGE);
          return 2;
        }
        String v = args[++i];
        if (a.equals("--host")) {
          host = v;
          continue;
        }
        try {
          port = Integer.parseInt(v);
        } catch (NumberFormatException e) {
          port = null;
        }
        if (port == null || !MockServer.PORT.contains(port)) {
          err.println(
              "relent mock: --port must be an integer "
                  + MockServer.PORT.text()
                  + ", got "
                  + JsonText.quote(v));
          return 2;
        }
      } else if (a.startsWith("-")) {
        err.println("relent mock: unknown option " + a);
        err.println(USAGE);
        return 2;
      } else if (file == null) {
        file = a;
      } else {
        err.println("relent mock: only one scenario file, got " + file + " and " + a);
        err.println(USAGE);
        return 2;
      }
    }
    if (file == null) {
      err.println("relent mock: missing the scenario file");
      err.println(USAGE);
      return 2;
    }
    return serve(
        file,
        port,
        host,
        line -> {
          out.println(line);
          out.flush();
        },
        err::println,
        whileRunning);
  }

  /**
   * What {@code relent mock} and {@link #main} do once their arguments are read: parses the
   * scenario file, starts its server on {@code port} and {@code host} where given (else the file's
   * {@code server} settings or their defaults), announces {@code relent mock listening on URI},
   * hands the server to {@code whileRunning} and closes it when that returns. Problems are reported
   * one line each: a missing or unreadable file (named as given), the scenario's own problems
   * ({@code file:line: field: what was expected}) or why the server cannot listen.
   *
   * @param file the scenario file's path, as the caller was given it
   * @param port the port, 0..65535; null for the file's or a free one
   * @param host the address to listen on; null for the file's or {@code 127.0.0.1}
   * @param out receives the announcement; it should flush, since a caller waits for the line
   * @param err receives each problem, one line each
   * @param whileRunning runs while the server serves, on the calling thread
   * @return the exit code: 0, 1 (cannot listen) or 2 (missing, unreadable or bad scenario)
   */
  public static int serve(
      String file,
      Integer port,
      String host,
      Consumer<String> out,
      Consumer<String> err,
      Consumer<MockServer> whileRunning) {
    Scenario scenario;
    try {
      scenario = Scenario.parse(Path.of(file));
    } catch (NoSuchFileException e) {
      err.accept("relent mock: " + file + ": no such file");
      return 2;
    } catch (IOException e) {
      err.accept("relent mock: " + file + ": cannot read: " + e.getMessage());
      return 2;
    } catch (ScenarioException e) {
      // file:line: field: what was expected, one line per problem
      err.accept(e.getMessage());
      return 2;
    }
    MockServer.Builder builder = MockServer.builder(scenario);
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
      err.accept(e.getMessage());
      return 1;
    }
    try {
      out.accept("relent mock listening on " + server.baseUri());
      whileRunning.accept(server);
    } finally {
      server.close();
    }
    return 0;
  }
}
