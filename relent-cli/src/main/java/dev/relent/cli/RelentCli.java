package dev.relent.cli;

import dev.relent.Jitter;
import dev.relent.cli.batch.BatchCommand;
import dev.relent.cli.batch.BatchDisplay;
import dev.relent.cli.batch.DemoCommand;
import dev.relent.cli.common.CallOutcome;
import dev.relent.cli.common.DurationConverter;
import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Rate;
import dev.relent.cli.common.RetryOptions;
import dev.relent.cli.common.UsageError;
import dev.relent.http.Redactor;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code relent} command. Each subcommand lives in its own class and is registered here.
 *
 * <p>Usage errors (a wrong flag or value) print what was wrong and the accepted forms, and exit
 * with {@link ExitCodes#USAGE}. Their messages pass the default {@link Redactor}, so that a
 * credential typed into a mistyped flag is not echoed. Arguments starting with {@code @} are taken
 * as they are (picocli's argument files are off): {@code relent call -d @body.json} reads a body.
 */
@Command(
    name = "relent",
    mixinStandardHelpOptions = true,
    versionProvider = RelentCli.Version.class,
    description = "Call remote APIs safely: retries that save the transaction.",
    subcommands = {
      CallCommand.class,
      BatchCommand.class,
      DemoCommand.class,
      MockCommand.class,
      PlanCommand.class,
      ProxyCommand.class,
      SimulateCommand.class,
      CommandLine.HelpCommand.class
    })
public final class RelentCli implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Where response bodies go, byte for byte: standard output unless a test replaces it. */
  PrintStream stdout = System.out;

  /**
   * Runs the command line and exits the JVM with its exit code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    // This process is ours: let each attempt be one request on the wire, so that the attempts
    // reported are the attempts made. The JDK client otherwise reconnects once on its own, and
    // sends a GET or HEAD a second time when its connection is reset before any response byte;
    // the CLI follows no redirects and answers no authentication challenge, the other exchanges
    // the retry limit caps.
    setUnlessGiven("jdk.httpclient.disableRetryConnect", "true");
    setUnlessGiven("jdk.httpclient.redirects.retrylimit", "1");
    int code;
    try {
      code = run(args);
    } catch (Throwable e) {
      // Whatever escaped a command (an OutOfMemoryError, a bug): one line, the documented code,
      // never a bare stack trace from the uncaught-exception handler.
      System.err.println("relent: " + unexpected(e));
      System.err.flush();
      code = ExitCodes.ERROR;
    }
    System.exit(code);
  }

  private static void setUnlessGiven(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  /** An error nobody expected, in one line without secrets. */
  private static String unexpected(Throwable e) {
    if (e instanceof CommandLine.ExecutionException && e.getCause() != null) {
      e = e.getCause();
    }
    return CallOutcome.unexpected(e, Redactor.ofDefaults()).message();
  }

  /**
   * Runs the command line and returns its exit code, without exiting: for tests and embedding.
   *
   * @param args the arguments
   * @return the exit code, one of {@link ExitCodes}
   */
  public static int run(String... args) {
    return commandLine().execute(args);
  }

  /**
   * Returns the configured picocli command line, with output streams the caller may replace.
   *
   * @return a new command line
   */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new RelentCli());
    // How each type of value is read, for every command.
    cli.registerConverter(Duration.class, new DurationConverter());
    cli.registerConverter(Rate.class, new Rate.Converter());
    cli.registerConverter(Jitter.class, new RetryOptions.JitterConverter());
    cli.registerConverter(BatchDisplay.Mode.class, new BatchDisplay.Mode.Converter());
    cli.setExpandAtFiles(false);
    cli.setExitCodeExceptionMapper(e -> ExitCodes.ERROR);
    cli.setExecutionExceptionHandler(
        (ex, cmd, parsed) -> {
          String name = cmd.getCommandSpec().qualifiedName();
          cmd.getErr()
              .println((name.equals("relent call") ? "relent" : name) + ": " + unexpected(ex));
          cmd.getErr().flush();
          return ExitCodes.ERROR;
        });
    cli.setParameterExceptionHandler(
        (ex, args) -> {
          CommandLine cmd = ex.getCommandLine();
          String message =
              ex instanceof UsageError
                  ? ex.getMessage()
                  : Redactor.ofDefaults().text(ex.getMessage());
          cmd.getErr().println("relent: " + message);
          if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, cmd.getErr())) {
            cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
          }
          return ExitCodes.USAGE;
        });
    return cli;
  }

  /**
   * Returns the command line writing text and response bodies to the given streams (UTF-8 text):
   * for tests and embedding.
   */
  static CommandLine commandLine(PrintStream out, PrintStream err) {
    CommandLine cli = commandLine();
    ((RelentCli) cli.getCommand()).stdout = out;
    cli.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
    cli.setErr(new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true));
    return cli;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }

  /** Reads the version from the jar's manifest, or says it is a development build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = RelentCli.class.getPackage().getImplementationVersion();
      return new String[] {"relent " + (version == null ? "(development build)" : version)};
    }
  }
}
