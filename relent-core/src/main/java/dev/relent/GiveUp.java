package dev.relent;

import dev.relent.time.Durations;
import java.time.Instant;

/**
 * The facts behind a {@link RelentException}, gathered by the executor and turned into one message
 * so that every reason reads the same way: "{headline} after N attempts in T (last: outcome, rule
 * R; detail)", or "(last: outcome, not retried; detail)" when the detail is why a retryable outcome
 * was not retried.
 */
final class GiveUp {
  final RelentException.Reason reason;
  int attempts;
  long elapsedNanos;
  String lastOutcome;
  String lastRule;
  Object lastResult;
  Throwable failure;
  long serverWaitNanos = -1;
  long allowedWaitNanos = -1;
  Instant retryAt;
  long budgetAvailable = -1;
  long budgetLimit = -1;
  String detail;

  GiveUp(RelentException.Reason reason) {
    this.reason = reason;
  }

  RelentException toException() {
    switch (reason) {
      case RETRIES_EXHAUSTED:
        return new RetriesExhaustedException(this);
      case DEADLINE:
      case RATE_LIMIT_WAIT:
      case CONCURRENCY_LIMIT:
        return new DeadlineExceededException(this);
      case SERVER_WAIT_TOO_LONG:
        return new ServerWaitTooLongException(this);
      case QUOTA_EXHAUSTED:
        return new QuotaExhaustedException(this);
      case CIRCUIT_OPEN:
        return new CircuitOpenException(this);
      case RETRY_BUDGET:
        return new RetryBudgetExhaustedException(this);
      default:
        return new RelentException(this);
    }
  }

  String message() {
    StringBuilder m = new StringBuilder(160).append(headline());
    if (attempts == 0) {
      m.append(" before any attempt, ").append(Durations.format(elapsedNanos)).append(" in (");
    } else {
      m.append(" after ")
          .append(attempts)
          .append(attempts == 1 ? " attempt in " : " attempts in ")
          .append(Durations.format(elapsedNanos))
          .append(" (");
    }
    boolean first = true;
    if (lastOutcome != null) {
      m.append("last: ").append(lastOutcome);
      if (notRetried()) {
        m.append(", not retried");
      } else if (lastRule != null) {
        m.append(", rule ").append(lastRule);
      }
      first = false;
    }
    if (detail != null) {
      m.append(first ? "" : "; ").append(detail);
      first = false;
    }
    if (budgetLimit >= 0) {
      m.append(first ? "" : "; ")
          .append("retry budget ")
          .append(budgetAvailable)
          .append(" of ")
          .append(budgetLimit);
      first = false;
    }
    if (retryAt != null) {
      m.append(first ? "" : "; ").append("retry at ").append(retryAt);
    }
    return m.append(')').toString();
  }

  /**
   * Whether the last outcome was judged retryable and yet no retry followed it, for another reason
   * (no retry allowed at all, a quota that waiting does not renew, a server wait or a deadline too
   * long, the pacer, the budget, the breaker, an interruption): the rule that said retry is then
   * not named, lest the message read as if the request had been retried; the detail says why not.
   * Only a request retried until no retry was left names it ({@code rule retry: http-503; all 2
   * retries used}). {@link RelentException#lastRule()} keeps the rule either way.
   */
  private boolean notRetried() {
    return lastRule != null
        && lastRule.startsWith("retry")
        && !(reason == RelentException.Reason.RETRIES_EXHAUSTED && attempts > 1);
  }

  private String headline() {
    switch (reason) {
      case QUOTA_EXHAUSTED:
        return "quota exhausted";
      case CIRCUIT_OPEN:
        return "circuit breaker open";
      case RETRY_BUDGET:
        return "retry budget spent";
      case THROTTLED:
        return "throttled";
      case NOT_RETRYABLE:
        return "not retryable";
      case INTERRUPTED:
        return "interrupted";
      default:
        return "gave up";
    }
  }
}
