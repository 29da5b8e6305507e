package dev.relent.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of {@code relent} in a JVM of its own, on the test class path, with a heap. */
final class ChildJvm {
  private ChildJvm() {}

  /**
   * {@code java -Xmx… -cp <test class path> dev.relent.cli.RelentCli ARGS…}.
   *
   * @param maxHeap the {@code -Xmx} value, e.g. {@code 32m}
   */
  static List<String> relent(String maxHeap, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + maxHeap);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.relent.cli.RelentCli");
    command.addAll(List.of(args));
    return command;
  }
}
