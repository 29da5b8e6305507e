package dev.relent.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line that runs {@code relent} in a JVM of its own, on the tests' class path. */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * Returns {@code java [jvmOptions] -cp <test class path> dev.relent.cli.RelentCli args...}, as
   * the launcher runs the jar.
   */
  public static List<String> relent(List<String> jvmOptions, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.relent.cli.RelentCli");
    command.addAll(args);
    return command;
  }

  /**
   * {@code java -Xmx… -cp <test class path> dev.relent.cli.RelentCli ARGS…}.
   *
   * @param maxHeap the {@code -Xmx} value, e.g. {@code 32m}
   */
  public static List<String> relent(String maxHeap, String... args) {
    return relent(List.of("-Xmx" + maxHeap), List.of(args));
  }

  /** A batch input line: a JSON POST of {@code amount} to {@code url}, id {@code pay-<n>}. */
  public static String payment(Object url, int n, long amount) {
    return "{\"id\": \"pay-"
        + n
        + "\", \"method\": \"POST\", \"url\": \""
        + url
        + "\", \"body\": {\"amount\": "
        + amount
        + "}}";
  }
}
