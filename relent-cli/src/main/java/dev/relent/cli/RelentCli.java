package dev.relent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code relent} command. Each subcommand lives in its own class and is registered here.
 *
 * <p>Usage errors (a wrong flag or value) print what was wrong and the accepted forms, and exit
 * with {@link ExitCodes#USAGE}.
 */
@Command(
    name = "relent",
    mixinStandardHelpOptions = true,
    versionProvider = RelentCli.Version.class,
    description = "Call remote APIs safely: retries that save the transaction.",
    subcommands = {PlanCommand.class, SimulateCommand.class, CommandLine.HelpCommand.class})
public final class RelentCli implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * Runs the command line and exits the JVM with its exit code.
   *
   * @param args the arguments
   */
  public static void main(String[] args) {
    System.exit(run(args));
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
    cli.setExitCodeExceptionMapper(e -> ExitCodes.ERROR);
    cli.setParameterExceptionHandler(
        (ex, args) -> {
          CommandLine cmd = ex.getCommandLine();
          cmd.getErr().println("relent: " + ex.getMessage());
          if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, cmd.getErr())) {
            cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
          }
          return ExitCodes.USAGE;
        });
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
