package dev.relent;

import dev.relent.internal.exec.GiveUp;

/**
 * Every retry the policy allows was made and the last outcome was still retryable.
 *
 * <p>Immutable once thrown.
 */
public final class RetriesExhaustedException extends RelentException {
  private static final long serialVersionUID = 1L;

  RetriesExhaustedException(GiveUp details) {
    super(details);
  }
}
