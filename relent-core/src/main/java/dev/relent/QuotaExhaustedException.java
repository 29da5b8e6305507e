package dev.relent;

import dev.relent.internal.exec.GiveUp;

/**
 * The server's quota (a daily quota, say) will not come back by waiting a while. Distinct from
 * "retry later": {@link #retryAt()} says when the quota resets, when the server said.
 *
 * <p>Immutable once thrown.
 */
public final class QuotaExhaustedException extends RelentException {
  private static final long serialVersionUID = 1L;

  QuotaExhaustedException(GiveUp details) {
    super(details);
  }
}
