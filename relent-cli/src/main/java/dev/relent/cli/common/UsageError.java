package dev.relent.cli.common;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine;

/**
 * A usage error whose message a command built from parts it checked: it names the flag and the
 * accepted forms and never echoes a value that may be a credential (a header value, a URL's query),
 * so it is printed as it is. Other usage errors (picocli's, which quote the arguments) pass the
 * redactor first; see {@link RelentCli#commandLine()}.
 */
public final class UsageError extends CommandLine.ParameterException {
  private static final long serialVersionUID = 1L;

  public UsageError(CommandLine commandLine, String message) {
    super(commandLine, message);
  }

  /**
   * Checks that a duration flag is more than zero.
   *
   * @throws UsageError naming the flag and the value
   */
  public static void requirePositive(CommandLine cli, String flag, Duration d) {
    if (d.isZero() || d.isNegative()) {
      throw new UsageError(cli, flag + " must be more than 0: " + Format.duration(d));
    }
  }

  /**
   * Checks that a flag naming a file to write (a report, a journal, results) can name one: its
   * directory exists and it is not a directory itself.
   *
   * @param file the file, or null when the flag is not given
   * @throws UsageError naming the flag, the file and what is wrong
   */
  public static void requireWritable(CommandLine cli, String flag, Path file) {
    if (file == null) {
      return;
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null && !Files.isDirectory(dir)) {
      throw new UsageError(cli, flag + " " + file + ": the directory " + dir + " does not exist");
    }
    if (Files.isDirectory(file)) {
      throw new UsageError(cli, flag + " " + file + ": is a directory; give a file name");
    }
  }
}
