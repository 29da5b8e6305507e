package dev.relent.internal.exec;

import dev.relent.RelentException;
import dev.relent.ServerHint;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import dev.relent.time.Durations;
import java.time.Instant;
import java.util.List;

/**
 * The facts behind a {@link RelentException}, gathered by the executor and turned into one message
 * so that every reason reads the same way: "{headline} after N attempts in T (last: outcome, rule
 * R; detail)", or "(last: outcome, not retried; detail)" when the detail is why a retryable outcome
 * was not retried.
 *
 * <p>Every give-up is made by one factory below, one for each way a call ends without a result,
 * grouped by {@link RelentException.Reason}: each factory writes its detail, so that every message
 * the executor gives up with is in this file. The executor hands over the facts ({@link Facts}, the
 * guard that refused, the numbers); the fields are set only here. Not thread-safe: made and thrown
 * by one execution.
 */
public final class GiveUp {
  /**
   * What every give-up says about the call so far.
   *
   * @param attempts the attempts made
   * @param elapsedNanos the time since the call began
   * @param lastOutcome the last outcome, described; null before any attempt
   * @param lastRule the rule that judged it; null before any attempt
   * @param lastResult the last result; null if none
   * @param failure the last failure, the exception's cause; null if none
   */
  record Facts(
      int attempts,
      long elapsedNanos,
      String lastOutcome,
      String lastRule,
      Object lastResult,
      Throwable failure) {}

  private final RelentException.Reason reason;
  private final int attempts;
  private final long elapsedNanos;
  private final String lastOutcome;
  private final String lastRule;
  private final Object lastResult;
  private final Throwable failure;
  private long serverWaitNanos = -1;
  private long allowedWaitNanos = -1;
  private Instant retryAt;
  private long budgetAvailable = -1;
  private long budgetLimit = -1;
  private String detail;

  private GiveUp(RelentException.Reason reason, Facts facts, String detail) {
    this.reason = reason;
    this.attempts = facts.attempts();
    this.elapsedNanos = facts.elapsedNanos();
    this.lastOutcome = facts.lastOutcome();
    this.lastRule = facts.lastRule();
    this.lastResult = facts.lastResult();
    this.failure = facts.failure();
    this.detail = detail;
  }

  // ---------------------------------------------------------------- what the exception reads

  /**
   * Returns why the call gave up.
   *
   * @return the reason
   */
  public RelentException.Reason reason() {
    return reason;
  }

  /**
   * Returns the attempts made.
   *
   * @return zero or more
   */
  public int attempts() {
    return attempts;
  }

  /**
   * Returns the time from the start of the call until it gave up.
   *
   * @return nanoseconds, zero or more
   */
  public long elapsedNanos() {
    return elapsedNanos;
  }

  /**
   * Returns the last outcome, described.
   *
   * @return the description, or null before any attempt
   */
  public String lastOutcome() {
    return lastOutcome;
  }

  /**
   * Returns the rule that judged the last outcome.
   *
   * @return the rule, or null before any attempt
   */
  public String lastRule() {
    return lastRule;
  }

  /**
   * Returns the last result, when the last attempt returned one.
   *
   * @return the result, or null
   */
  public Object lastResult() {
    return lastResult;
  }

  /**
   * Returns the last failure: the exception's cause.
   *
   * @return the failure, or null
   */
  public Throwable failure() {
    return failure;
  }

  /**
   * Returns how long the server asked to wait.
   *
   * @return nanoseconds, or -1 when it did not ask
   */
  public long serverWaitNanos() {
    return serverWaitNanos;
  }

  /**
   * Returns the longest wait that was allowed.
   *
   * @return nanoseconds, or -1 when no wait was refused
   */
  public long allowedWaitNanos() {
    return allowedWaitNanos;
  }

  /**
   * Returns the earliest wall-clock time a new attempt may be made.
   *
   * @return the time, or null when not known
   */
  public Instant retryAt() {
    return retryAt;
  }

  /**
   * Returns the retries the budget allowed.
   *
   * @return retries available, or -1 without a budget
   */
  public long budgetAvailable() {
    return budgetAvailable;
  }

  /**
   * Returns the retries the budget allows in its window.
   *
   * @return the limit, or -1 without a budget
   */
  public long budgetLimit() {
    return budgetLimit;
  }

  // ---------------------------------------------------------------- RETRIES_EXHAUSTED

  /** Every retry the policy allows was made; with none allowed, the first attempt was the last. */
  static GiveUp retriesExhausted(Facts f, int maxRetries) {
    return new GiveUp(
        RelentException.Reason.RETRIES_EXHAUSTED,
        f,
        maxRetries == 0
            ? "no retry allowed (max retries 0)"
            : "all " + maxRetries + " retries used");
  }

  // ---------------------------------------------------------------- NOT_RETRYABLE

  /**
   * The last outcome is not retried and the caller gets no result: a result the verdict rejects, or
   * a checked failure (wrapped). An unchecked failure is rethrown as it is, without a give-up.
   */
  static GiveUp notRetryable(Facts f) {
    return new GiveUp(RelentException.Reason.NOT_RETRYABLE, f, null);
  }

  // ---------------------------------------------------------------- DEADLINE

  /** The deadline passed before an attempt. */
  static GiveUp noTimeLeft(Facts f, long deadlineNanos) {
    return new GiveUp(
        RelentException.Reason.DEADLINE,
        f,
        "no time left of the " + Durations.format(deadlineNanos) + " deadline");
  }

  /** The wait before the next attempt would pass the deadline, {@code leftNanos} away. */
  static GiveUp waitPastDeadline(Facts f, long waitNanos, long deadlineNanos, long leftNanos) {
    long left = Math.max(0L, leftNanos);
    GiveUp g =
        new GiveUp(
            RelentException.Reason.DEADLINE,
            f,
            "the next wait of "
                + Durations.format(waitNanos)
                + " would pass the "
                + Durations.format(deadlineNanos)
                + " deadline ("
                + Durations.format(left)
                + " left)");
    g.allowedWaitNanos = left;
    return g;
  }

  // ---------------------------------------------------------------- SERVER_WAIT_TOO_LONG

  /**
   * The server asked for a wait longer than the executor allows ({@code maxServerWaitNanos}) or
   * than the deadline leaves ({@code leftNanos}).
   */
  static GiveUp serverWaitTooLong(
      Facts f, ServerHint hint, long maxServerWaitNanos, long leftNanos, Instant retryAt) {
    long asked = hint.waitNanos();
    long allowed = Math.max(0L, Math.min(maxServerWaitNanos, leftNanos));
    GiveUp g =
        new GiveUp(
            RelentException.Reason.SERVER_WAIT_TOO_LONG,
            f,
            "server asked to wait "
                + Durations.format(asked)
                + " ("
                + hint.source()
                + "), more than the "
                + Durations.format(allowed)
                + (asked > maxServerWaitNanos ? " allowed" : " left of the deadline"));
    g.serverWaitNanos = asked;
    g.allowedWaitNanos = allowed;
    g.retryAt = retryAt;
    return g;
  }

  // ---------------------------------------------------------------- QUOTA_EXHAUSTED

  /** The server's quota is spent until it resets: waiting a while will not renew it. */
  static GiveUp quotaExhausted(Facts f, ServerHint hint, Instant retryAt) {
    GiveUp g =
        new GiveUp(
            RelentException.Reason.QUOTA_EXHAUSTED,
            f,
            hint.source()
                + ": the quota resets in "
                + Durations.format(hint.waitNanos())
                + "; waiting a while will not help");
    g.serverWaitNanos = hint.waitNanos();
    g.retryAt = retryAt;
    return g;
  }

  // ---------------------------------------------------------------- CIRCUIT_OPEN

  /** The executor's circuit breaker refused the attempt; it probes again in {@code probeNanos}. */
  static GiveUp circuitOpen(Facts f, long probeNanos, Instant retryAt) {
    GiveUp g =
        new GiveUp(
            RelentException.Reason.CIRCUIT_OPEN,
            f,
            "nothing sent; next probe in " + Durations.format(probeNanos));
    g.retryAt = retryAt;
    return g;
  }

  /**
   * The circuit breaker of {@code scope} (null when no longer known) refused the attempt; it probes
   * again in {@code probeNanos}.
   */
  static GiveUp scopeCircuitOpen(Facts f, Scope scope, long probeNanos, Instant retryAt) {
    GiveUp g =
        new GiveUp(
            RelentException.Reason.CIRCUIT_OPEN,
            f,
            (scope == null ? "a scope's circuit breaker" : "the circuit breaker of " + scope)
                + " is open: nothing sent; next probe in "
                + Durations.format(probeNanos));
    g.retryAt = retryAt;
    return g;
  }

  // ---------------------------------------------------------------- RETRY_BUDGET

  /** The executor's retry budget allows no further retry now. */
  static GiveUp budgetSpent(Facts f, RetryBudget budget, long nowNanos) {
    return withBudget(
        new GiveUp(
            RelentException.Reason.RETRY_BUDGET, f, "retries already add as much load as allowed"),
        budget,
        nowNanos);
  }

  /** The retry budget of {@code scope} allows no further retry now. */
  static GiveUp scopeBudgetSpent(Facts f, Scope scope, RetryBudget budget, long nowNanos) {
    return withBudget(
        new GiveUp(
            RelentException.Reason.RETRY_BUDGET,
            f,
            "retries of " + scope + " already add as much load as allowed"),
        budget,
        nowNanos);
  }

  private static GiveUp withBudget(GiveUp g, RetryBudget budget, long nowNanos) {
    g.budgetAvailable = budget.available(nowNanos);
    g.budgetLimit = budget.limit(nowNanos);
    return g;
  }

  // ---------------------------------------------------------------- RATE_LIMIT_WAIT

  /** The executor's pacer has no start before the deadline, {@code leftNanos} away. */
  static GiveUp pacerPastDeadline(Facts f, long startInNanos, long leftNanos) {
    GiveUp g =
        new GiveUp(
            RelentException.Reason.RATE_LIMIT_WAIT,
            f,
            "the pacer's next start is in "
                + Durations.format(startInNanos)
                + ", past the deadline ("
                + Durations.format(leftNanos)
                + " left)");
    g.allowedWaitNanos = leftNanos;
    return g;
  }

  /** A pause of one of the call's scopes lasts past the deadline, {@code leftNanos} away. */
  static GiveUp scopePausedPastDeadline(
      Facts f, ScopeGuards paused, long leftNanos, Instant retryAt) {
    StringBuilder m = new StringBuilder(160).append(paused.scope()).append(" is paused for ");
    m.append(Durations.format(paused.pauseRemaining().toNanos()));
    paused.pausedUntil().ifPresent(u -> m.append(" more (until ").append(u).append(')'));
    m.append(", past the deadline (")
        .append(Durations.format(leftNanos))
        .append(" left), by ")
        .append(paused.pauseCause().orElse("a pause"));
    m.append("; GuardRegistry.resume(scope) ends it");
    return rateLimitWait(f, m.toString(), leftNanos, retryAt);
  }

  /**
   * A pacer of a call with scopes has no start before the deadline, {@code leftNanos} away: the
   * pacer of {@code scope}, or the executor's own when {@code scope} is null ({@code known} false:
   * which pacer is not known).
   */
  static GiveUp scopePacerPastDeadline(
      Facts f, boolean known, Scope scope, long startInNanos, long leftNanos, Instant retryAt) {
    String name =
        !known ? "the pacer" : scope == null ? "the executor's pacer" : "the pacer of " + scope;
    return rateLimitWait(
        f,
        name
            + ": the next start is in "
            + Durations.format(startInNanos)
            + ", past the deadline ("
            + Durations.format(leftNanos)
            + " left)",
        leftNanos,
        retryAt);
  }

  private static GiveUp rateLimitWait(Facts f, String detail, long leftNanos, Instant retryAt) {
    GiveUp g = new GiveUp(RelentException.Reason.RATE_LIMIT_WAIT, f, detail);
    g.allowedWaitNanos = leftNanos;
    g.retryAt = retryAt;
    return g;
  }

  // ---------------------------------------------------------------- CONCURRENCY_LIMIT

  /** No slot of the executor's concurrency limit came free within the deadline. */
  static GiveUp noSlot(Facts f, int maxConcurrent, long deadlineNanos) {
    return new GiveUp(
        RelentException.Reason.CONCURRENCY_LIMIT,
        f,
        "no concurrency slot of "
            + maxConcurrent
            + " came free within the "
            + Durations.format(deadlineNanos)
            + " deadline");
  }

  /** No slot of the concurrency limit of {@code scope} came free within the deadline. */
  static GiveUp noScopeSlot(Facts f, Scope scope, int maxConcurrent, long deadlineNanos) {
    return new GiveUp(
        RelentException.Reason.CONCURRENCY_LIMIT,
        f,
        "no concurrency slot of "
            + scope
            + " ("
            + maxConcurrent
            + " at once) came free within the "
            + Durations.format(deadlineNanos)
            + " deadline");
  }

  // ---------------------------------------------------------------- INTERRUPTED

  /** The thread was interrupted while the executor waited (for a slot, a start, a backoff). */
  static GiveUp interruptedWaiting(Facts f) {
    return new GiveUp(RelentException.Reason.INTERRUPTED, f, "no further attempt is made");
  }

  /** The attempt itself ended with an {@link InterruptedException}. */
  static GiveUp interruptedAttempt(Facts f) {
    return new GiveUp(RelentException.Reason.INTERRUPTED, f, null);
  }

  // ---------------------------------------------------------------- THROTTLED

  /** Adaptive throttling refused the attempt here; {@code throttleState} says how it stands. */
  static GiveUp throttled(Facts f, String throttleState) {
    return new GiveUp(
        RelentException.Reason.THROTTLED,
        f,
        "refused here by adaptive throttling, nothing sent (" + throttleState + ")");
  }

  // ---------------------------------------------------------------- what the call did

  /**
   * Adds that this call paused {@code scopes} for {@code pauseNanos}, whatever the reason it gave
   * up for: the other calls of those scopes wait because of it.
   *
   * @return this
   */
  GiveUp alsoPaused(List<Scope> scopes, long pauseNanos) {
    StringBuilder m = new StringBuilder("paused ");
    for (int i = 0; i < scopes.size(); i++) {
      m.append(i == 0 ? "" : " and ").append(scopes.get(i));
    }
    m.append(" for ").append(Durations.format(pauseNanos));
    detail = (detail == null ? "" : detail + "; ") + m;
    return this;
  }

  /**
   * Returns the exception's message: "{headline} after N attempts in T (last: …; detail)".
   *
   * @return the message
   */
  public String message() {
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
