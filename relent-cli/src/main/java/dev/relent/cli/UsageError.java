package dev.relent.cli;

import picocli.CommandLine;

/**
 * A usage error whose message a command built from parts it checked: it names the flag and the
 * accepted forms and never echoes a value that may be a credential (a header value, a URL's query),
 * so it is printed as it is. Other usage errors (picocli's, which quote the arguments) pass the
 * redactor first; see {@link RelentCli#commandLine()}.
 */
final class UsageError extends CommandLine.ParameterException {
  private static final long serialVersionUID = 1L;

  UsageError(CommandLine commandLine, String message) {
    super(commandLine, message);
  }
}
