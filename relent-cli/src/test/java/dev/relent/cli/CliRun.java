package dev.relent.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import picocli.CommandLine;

/**
 * Runs the CLI in-process and captures what it prints: stdout as bytes (bodies are written byte for
 * byte) and as UTF-8 text, stderr as text.
 */
public record CliRun(int exitCode, byte[] outBytes, String out, String err) {
  public static CliRun of(String... args) {
    return of(cli -> {}, args);
  }

  /** Runs with the command line adjusted first (fake time, a test's stdin, ...). */
  public static CliRun of(Consumer<CommandLine> setUp, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CommandLine cli =
        RelentCli.commandLine(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    setUp.accept(cli);
    int code = cli.execute(args);
    byte[] bytes = out.toByteArray();
    return new CliRun(
        code,
        bytes,
        new String(bytes, StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }
}
