package dev.relent;

import dev.relent.internal.exec.GiveUp;

/**
 * The circuit breaker is open: the call was not sent, and is not counted as a failure of the
 * downstream. {@link #retryAt()} says when the next probe may be tried.
 *
 * <p>Immutable once thrown.
 */
public final class CircuitOpenException extends RelentException {
  private static final long serialVersionUID = 1L;

  CircuitOpenException(GiveUp details) {
    super(details);
  }
}
