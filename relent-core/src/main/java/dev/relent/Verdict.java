package dev.relent;

import java.util.Objects;

/**
 * What one attempt's outcome means: succeed, retry, or stop; and which rule said so, so that every
 * decision can be explained ("retry: http-503", "abort: http-404").
 *
 * <p>A verdict also says whether the outcome counts as a failure of the downstream service, which
 * is what the circuit breaker counts: a 404 stops the retries but says nothing bad about the
 * server; a 500 on a non-idempotent request is not retried yet still counts as a failure. An abort
 * on a result hands the result back to the caller as the call's answer, unless the verdict {@link
 * #rejectsResult() rejects it} ({@link #reject}): then the call fails, and every observer (meters,
 * spans, logs) hears one outcome, the failure the caller gets.
 *
 * <p>Immutable and thread-safe. Classifiers should return constants (as {@link #SUCCESS}) or
 * verdicts they created once, so that classifying allocates nothing.
 */
public final class Verdict {
  /** How the executor proceeds after an outcome. */
  public enum Kind {
    /** The outcome is the answer: return it. */
    SUCCESS,
    /** The outcome is transient: try again if the policy and the guards allow. */
    RETRY,
    /** Trying again cannot help or is unsafe: stop now. */
    ABORT
  }

  /** A success under the rule {@code "success"}. */
  public static final Verdict SUCCESS = new Verdict(Kind.SUCCESS, "success", false, false);

  /** A retry under the rule {@code "retry"}. */
  public static final Verdict RETRY = new Verdict(Kind.RETRY, "retry", true, false);

  /** An abort under the rule {@code "abort"} that does not count against the downstream. */
  public static final Verdict ABORT = new Verdict(Kind.ABORT, "abort", false, false);

  private final Kind kind;
  private final String rule;
  private final boolean downstreamFailure;
  private final boolean rejectsResult;

  private Verdict(Kind kind, String rule, boolean downstreamFailure, boolean rejectsResult) {
    this.kind = kind;
    this.rule = rule;
    this.downstreamFailure = downstreamFailure;
    this.rejectsResult = rejectsResult;
  }

  /**
   * Creates a success verdict.
   *
   * @param rule the name of the rule that fired, as it should appear in logs
   * @return a new verdict
   * @throws NullPointerException if {@code rule} is null
   */
  public static Verdict success(String rule) {
    return new Verdict(Kind.SUCCESS, requireRule(rule), false, false);
  }

  /**
   * Creates a retry verdict; the outcome counts as a downstream failure.
   *
   * @param rule the name of the rule that fired
   * @return a new verdict
   * @throws NullPointerException if {@code rule} is null
   */
  public static Verdict retry(String rule) {
    return new Verdict(Kind.RETRY, requireRule(rule), true, false);
  }

  /**
   * Creates an abort verdict for an outcome that is the caller's problem (a bad request), not the
   * downstream's: the circuit breaker does not count it.
   *
   * @param rule the name of the rule that fired
   * @return a new verdict
   * @throws NullPointerException if {@code rule} is null
   */
  public static Verdict abort(String rule) {
    return new Verdict(Kind.ABORT, requireRule(rule), false, false);
  }

  /**
   * Creates an abort verdict for a downstream failure that must not be retried (for example a 500
   * answer to a payment request without an idempotency key): the circuit breaker counts it.
   *
   * @param rule the name of the rule that fired
   * @return a new verdict
   * @throws NullPointerException if {@code rule} is null
   */
  public static Verdict abortFailure(String rule) {
    return new Verdict(Kind.ABORT, requireRule(rule), true, false);
  }

  /**
   * Creates an abort verdict for a downstream failure whose result, when the attempt returned one,
   * must not reach the caller as the answer: the call fails as it does on a checked failure that is
   * not retried, with a {@link RelentException} of reason {@link
   * RelentException.Reason#NOT_RETRYABLE} whose {@link RelentException#lastResult()} is that
   * result, and the circuit breaker counts a failure. For example a 503 answer to a payment request
   * without an idempotency key, which may have taken effect and so is not sent again: the HTTP
   * adapters turn the give-up into their {@code NotRetriedWriteException}, and the call is one
   * failure whether the server answered or the connection broke.
   *
   * @param rule the name of the rule that fired
   * @return a new verdict
   * @throws NullPointerException if {@code rule} is null
   */
  public static Verdict reject(String rule) {
    return new Verdict(Kind.ABORT, requireRule(rule), true, true);
  }

  private static String requireRule(String rule) {
    return Objects.requireNonNull(rule, "rule cannot be null");
  }

  /**
   * Returns how the executor proceeds.
   *
   * @return the kind
   */
  public Kind kind() {
    return kind;
  }

  /**
   * Returns the name of the rule that fired.
   *
   * @return the rule, never null
   */
  public String rule() {
    return rule;
  }

  /**
   * Returns whether the outcome counts as a failure of the downstream service.
   *
   * @return true if the circuit breaker should count a failure
   */
  public boolean isDownstreamFailure() {
    return downstreamFailure;
  }

  /**
   * Returns whether the executor gives up on a result this verdict judged, in place of returning
   * it: true only for {@link #reject} verdicts.
   *
   * @return true if a result so judged fails the call
   */
  public boolean rejectsResult() {
    return rejectsResult;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Verdict
        && ((Verdict) o).kind == kind
        && ((Verdict) o).rule.equals(rule)
        && ((Verdict) o).downstreamFailure == downstreamFailure
        && ((Verdict) o).rejectsResult == rejectsResult;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, rule, downstreamFailure, rejectsResult);
  }

  @Override
  public String toString() {
    return kind.name().toLowerCase(java.util.Locale.ROOT) + ": " + rule;
  }
}
