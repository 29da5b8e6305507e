package dev.relent.mockserver;

import java.time.Duration;
import java.util.Objects;

/**
 * The check a duration setting's setter makes (a delay, a stall, a {@code Retry-After}, a CORS max
 * age): given and not negative, named in the message as {@link IntRange} names an integer one.
 */
final class Durations {
  private Durations() {}

  /**
   * Checks a duration for a setter.
   *
   * @param name the setting's name in messages
   * @param value the duration
   * @return {@code value}
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if {@code value} is negative
   */
  static Duration nonNegative(String name, Duration value) {
    Objects.requireNonNull(value, name + " cannot be null");
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must be >= 0: " + value.toMillis() + " ms");
    }
    return value;
  }
}
