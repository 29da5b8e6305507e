package dev.relent;

import dev.relent.internal.exec.GiveUp;

/**
 * The retry budget is spent: retries already add as much load as allowed, so this failure returns
 * at once. {@link #budgetAvailable()} and {@link #budgetLimit()} give the state.
 *
 * <p>Immutable once thrown.
 */
public final class RetryBudgetExhaustedException extends RelentException {
  private static final long serialVersionUID = 1L;

  RetryBudgetExhaustedException(GiveUp details) {
    super(details);
  }
}
