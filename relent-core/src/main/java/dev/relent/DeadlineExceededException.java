package dev.relent;

import dev.relent.internal.exec.GiveUp;

/**
 * The operation's total deadline left no room for the next wait or attempt, or for the pacer's or
 * the concurrency limit's wait. It stops before waiting, never after.
 *
 * <p>Immutable once thrown.
 */
public final class DeadlineExceededException extends RelentException {
  private static final long serialVersionUID = 1L;

  DeadlineExceededException(GiveUp details) {
    super(details);
  }
}
