package dev.relent.mockserver;

/**
 * The values an integer setting takes. The setter checks with it, and the scenario file names it
 * when a value is not an integer at all, so that each range is written once.
 *
 * @param name the setting's name in messages
 * @param min the smallest value allowed
 * @param max the largest value allowed; {@link Integer#MAX_VALUE} for no upper bound
 */
record IntRange(String name, int min, int max) {

  /** A setting of {@code min} or more. */
  static IntRange atLeast(String name, int min) {
    return new IntRange(name, min, Integer.MAX_VALUE);
  }

  /** The range as messages write it: {@code 100..599}, or {@code >= 1} without an upper bound. */
  String text() {
    return max == Integer.MAX_VALUE ? ">= " + min : min + ".." + max;
  }

  boolean contains(long value) {
    return value >= min && value <= max;
  }

  /**
   * Checks a value for the setter.
   *
   * @throws IllegalArgumentException if {@code value} is out of range
   */
  int check(int value) {
    if (!contains(value)) {
      throw new IllegalArgumentException(name + " must be an integer " + text() + ": " + value);
    }
    return value;
  }
}
