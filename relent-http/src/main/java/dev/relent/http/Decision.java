package dev.relent.http;

import dev.relent.Verdict;

/**
 * What the {@link DecisionTable} decided about one HTTP outcome: the core {@link Verdict} (with the
 * name of the rule that fired, e.g. {@code retry: http-503}), the table's {@link
 * DecisionTable.Rule} for the row, whether a write was held back because it carries no {@code
 * Idempotency-Key}, and a one-line explanation.
 *
 * <p>Decisions are created when a table is built and shared, so deciding allocates nothing.
 * Immutable and thread-safe.
 */
public final class Decision {
  private final Verdict verdict;
  private final DecisionTable.Rule tableRule;
  private final boolean notResent;
  private final String explanation;

  Decision(Verdict verdict, DecisionTable.Rule tableRule, boolean notResent, String explanation) {
    this.verdict = verdict;
    this.tableRule = tableRule;
    this.notResent = notResent;
    this.explanation = explanation;
  }

  /**
   * Returns the verdict for the core executor.
   *
   * @return the verdict
   */
  public Verdict verdict() {
    return verdict;
  }

  /**
   * Returns the name of the rule that fired, e.g. {@code http-503}, {@code io-connect-refused} or
   * {@code http-504-unkeyed-write}.
   *
   * @return the rule name
   */
  public String rule() {
    return verdict.rule();
  }

  /**
   * Returns the table's rule for the row that matched, or null for a failure that is not a network
   * fault (rule {@code not-a-network-fault}).
   *
   * @return the row's rule, or null
   */
  public DecisionTable.Rule tableRule() {
    return tableRule;
  }

  /**
   * Returns whether the outcome would have been retried had the request been idempotent or keyed: a
   * POST or PATCH without {@code Idempotency-Key} that may have reached the server. Such a request
   * is never re-sent; adapters surface it as a {@link NotRetriedWriteException}.
   *
   * @return true if a write was held back
   */
  public boolean notResent() {
    return notResent;
  }

  /**
   * Returns whether the executor may try again.
   *
   * @return true for a retry verdict
   */
  public boolean isRetry() {
    return verdict.kind() == Verdict.Kind.RETRY;
  }

  /**
   * Returns a one-line explanation of the rule, for logs and messages.
   *
   * @return the explanation
   */
  public String explanation() {
    return explanation;
  }

  @Override
  public String toString() {
    return verdict + " (" + explanation + ")";
  }
}
