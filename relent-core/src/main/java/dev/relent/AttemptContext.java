package dev.relent;

import java.time.Duration;

/**
 * What an attempt may know about itself: its number and its time limit. Passed to {@link
 * ContextualSupplier} and {@link AsyncSupplier}; valid only for the attempt it was passed to.
 *
 * <p>Times come as {@link Duration}s ({@link #timeout()}, {@link #elapsed()}); the {@code
 * ...Nanos()} forms give the same values without allocating, for adapters that map them onto a
 * client's own timeout on every attempt.
 */
public interface AttemptContext {
  /**
   * Returns the number of this attempt.
   *
   * @return 1 for the first attempt, 2 for the first retry, and so on
   */
  int attempt();

  /**
   * Returns whether this attempt is a retry.
   *
   * @return true from the second attempt on
   */
  default boolean isRetry() {
    return attempt() > 1;
  }

  /**
   * Returns how long this attempt may take: the smaller of the policy's attempt timeout and what is
   * left of the deadline. Map it onto the client's own timeout so that the operation never overruns
   * its deadline.
   *
   * @return nanoseconds, at least 1
   */
  long timeoutNanos();

  /**
   * Returns how long this attempt may take, as {@link #timeoutNanos()} does.
   *
   * @return more than zero
   */
  default Duration timeout() {
    return Duration.ofNanos(timeoutNanos());
  }

  /**
   * Returns the time since the operation's first attempt began.
   *
   * @return nanoseconds, zero or more
   */
  long elapsedNanos();

  /**
   * Returns the time since the operation's first attempt began, as {@link #elapsedNanos()} does.
   *
   * @return zero or more
   */
  default Duration elapsed() {
    return Duration.ofNanos(elapsedNanos());
  }
}
