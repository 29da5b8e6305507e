package dev.relent.mockserver;

import java.util.List;

/**
 * A scenario file that cannot be used. The message has one line per problem, each naming the
 * source, the line, the field and what was expected:
 *
 * <pre>scenario.json:3: routes[0].steps[1].status: expected an integer 100..599, got "abc"</pre>
 *
 * <p>Immutable.
 */
public final class ScenarioException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  /** The source name used in the messages. */
  private final String source;

  /** One line per problem, in file order. */
  private final List<String> problems;

  /** The line of the first problem. */
  private final int line;

  ScenarioException(String source, int line, List<String> problems) {
    super(String.join("\n", problems));
    this.source = source;
    this.line = line;
    this.problems = List.copyOf(problems);
  }

  /**
   * Returns the file name (or source name) the messages use.
   *
   * @return the source name
   */
  public String source() {
    return source;
  }

  /**
   * Returns the line of the first problem, 1-based.
   *
   * @return the line number
   */
  public int line() {
    return line;
  }

  /**
   * Returns every problem found, one message per problem, in the order of the file.
   *
   * @return the problems, at least one
   */
  public List<String> problems() {
    return problems;
  }
}
