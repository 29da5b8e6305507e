package dev.relent;

import dev.relent.internal.exec.GiveUp;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * An operation ended without a result the policy accepts. Carries, as fields and in its message,
 * what a person on call needs: why it stopped, how many attempts were made and for how long, the
 * last outcome and the rule that judged it, and where a server asked for a wait, how long it asked
 * for, what was allowed and when a retry may be made.
 *
 * <p>Example message: {@code gave up after 1 attempt in 0.12 s (last: HTTP 429, not retried; server
 * asked to wait 86400 s, more than the 30 s allowed; retry at 2026-12-01T14:51:00Z)}. The last
 * outcome is described by the policy's {@link OutcomeDescriber}, which never reveals secrets.
 *
 * <p>Subclasses name the reasons callers most often handle apart; {@link #reason()} names every
 * one. Immutable once thrown.
 */
public class RelentException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why an operation stopped. */
  public enum Reason {
    /** Every retry the policy allows was made. */
    RETRIES_EXHAUSTED,
    /** The last failure is not retryable and is a checked exception (wrapped). */
    NOT_RETRYABLE,
    /** The next wait would have passed the total deadline, or no time was left. */
    DEADLINE,
    /** The server asked for a wait longer than allowed (max server wait or deadline). */
    SERVER_WAIT_TOO_LONG,
    /** The server's quota will not come back by waiting a while. */
    QUOTA_EXHAUSTED,
    /** The circuit breaker is open: nothing was sent. */
    CIRCUIT_OPEN,
    /** The retry budget is spent: retries would add too much load. */
    RETRY_BUDGET,
    /** The pacer's next start permit lies past the deadline. */
    RATE_LIMIT_WAIT,
    /** No concurrency slot came free before the deadline. */
    CONCURRENCY_LIMIT,
    /** The waiting thread was interrupted. */
    INTERRUPTED,
    /**
     * Adaptive throttling refused the attempt here: the downstream has been rejecting too many
     * requests, so nothing was sent.
     */
    THROTTLED;

    /**
     * Returns the reason as logs, reports and scripts spell it: lower case with hyphens ({@code
     * RETRIES_EXHAUSTED} is {@code retries-exhausted}).
     *
     * @return the slug
     */
    public String slug() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  private final Reason reason;
  private final int attempts;
  private final long elapsedNanos;
  private final String lastOutcome;
  private final String lastRule;
  private final transient Object lastResult;
  private final long serverWaitNanos;
  private final long allowedWaitNanos;
  private final Instant retryAt;
  private final long budgetAvailable;
  private final long budgetLimit;

  /** The executor's exception for a give-up; see {@link #of}. */
  RelentException(GiveUp g) {
    super(g.message(), g.failure());
    this.reason = g.reason();
    this.attempts = g.attempts();
    this.elapsedNanos = g.elapsedNanos();
    this.lastOutcome = g.lastOutcome();
    this.lastRule = g.lastRule();
    this.lastResult = g.lastResult();
    this.serverWaitNanos = g.serverWaitNanos();
    this.allowedWaitNanos = g.allowedWaitNanos();
    this.retryAt = g.retryAt();
    this.budgetAvailable = g.budgetAvailable();
    this.budgetLimit = g.budgetLimit();
  }

  /**
   * The exception a call gives up with: the subclass its reason names. Made only by the executor,
   * through {@link RelentExecutor.Builder}'s access to what this package keeps to itself.
   */
  static RelentException of(GiveUp g) {
    switch (g.reason()) {
      case RETRIES_EXHAUSTED:
        return new RetriesExhaustedException(g);
      case DEADLINE:
      case RATE_LIMIT_WAIT:
      case CONCURRENCY_LIMIT:
        return new DeadlineExceededException(g);
      case SERVER_WAIT_TOO_LONG:
        return new ServerWaitTooLongException(g);
      case QUOTA_EXHAUSTED:
        return new QuotaExhaustedException(g);
      case CIRCUIT_OPEN:
        return new CircuitOpenException(g);
      case RETRY_BUDGET:
        return new RetryBudgetExhaustedException(g);
      default:
        return new RelentException(g);
    }
  }

  /**
   * Creates an exception that restates a give-up with more to say: the same reason, attempts,
   * times, last outcome, hints and budget as {@code gaveUp}, the same cause (the last failure), and
   * a message of its own. For layers that know more about the operation than the executor does,
   * such as an HTTP adapter that knows a write may have taken effect.
   *
   * @param message the message, which should contain {@code gaveUp}'s
   * @param gaveUp the executor's exception
   * @throws NullPointerException if {@code message} or {@code gaveUp} is null
   */
  protected RelentException(String message, RelentException gaveUp) {
    super(
        Objects.requireNonNull(message, "message cannot be null"),
        Objects.requireNonNull(gaveUp, "gaveUp cannot be null").getCause());
    this.reason = gaveUp.reason;
    this.attempts = gaveUp.attempts;
    this.elapsedNanos = gaveUp.elapsedNanos;
    this.lastOutcome = gaveUp.lastOutcome;
    this.lastRule = gaveUp.lastRule;
    this.lastResult = gaveUp.lastResult;
    this.serverWaitNanos = gaveUp.serverWaitNanos;
    this.allowedWaitNanos = gaveUp.allowedWaitNanos;
    this.retryAt = gaveUp.retryAt;
    this.budgetAvailable = gaveUp.budgetAvailable;
    this.budgetLimit = gaveUp.budgetLimit;
  }

  /**
   * Returns why the operation stopped.
   *
   * @return the reason
   */
  public Reason reason() {
    return reason;
  }

  /**
   * Returns how many attempts were made (network attempts, not counting refusals by guards).
   *
   * @return zero or more
   */
  public int attempts() {
    return attempts;
  }

  /**
   * Returns the time from the start of the operation until it stopped.
   *
   * @return the elapsed time
   */
  public Duration elapsed() {
    return Duration.ofNanos(elapsedNanos);
  }

  /**
   * Returns a description of the last outcome, such as {@code "HTTP 503"}.
   *
   * @return the description, or empty if no attempt was made
   */
  public Optional<String> lastOutcome() {
    return Optional.ofNullable(lastOutcome);
  }

  /**
   * Returns the rule that judged the last outcome, such as {@code "retry: http-503"}.
   *
   * @return the rule, or empty if no attempt was made
   */
  public Optional<String> lastRule() {
    return Optional.ofNullable(lastRule);
  }

  /**
   * Returns the last result, when the last attempt returned rather than threw (for example the last
   * 503 response). The failure, when it threw, is the {@link #getCause() cause}.
   *
   * @return the last result, or empty
   */
  public Optional<Object> lastResult() {
    return Optional.ofNullable(lastResult);
  }

  /**
   * Returns how long the server asked to wait, when it did.
   *
   * @return the requested wait, or empty
   */
  public Optional<Duration> serverWait() {
    return serverWaitNanos < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(serverWaitNanos));
  }

  /**
   * Returns the longest wait that was allowed at that point (max server wait or deadline left).
   *
   * @return the allowed wait, or empty when no wait was refused
   */
  public Optional<Duration> allowedWait() {
    return allowedWaitNanos < 0
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(allowedWaitNanos));
  }

  /**
   * Returns the earliest wall-clock time a new attempt may be made, when known: the server's
   * requested wait, a quota reset, or the circuit breaker's next probe.
   *
   * @return the time, or empty
   */
  public Optional<Instant> retryAt() {
    return Optional.ofNullable(retryAt);
  }

  /**
   * Returns the retries the budget allowed when the operation stopped, when a budget is used.
   *
   * @return retries available, or -1 without a budget
   */
  public long budgetAvailable() {
    return budgetAvailable;
  }

  /**
   * Returns the retries the budget allowed in its window, when a budget is used.
   *
   * @return the budget's limit, or -1 without a budget
   */
  public long budgetLimit() {
    return budgetLimit;
  }
}
