package dev.relent.internal.exec;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.ServerHint;
import dev.relent.Verdict;

/**
 * What the executor needs of {@code dev.relent} that the API does not publish: the constructors of
 * the exceptions and events it hands out, package-private there so that only the executor makes
 * them, and a server hint's numbers read without allocating (its public accessors return
 * optionals). {@link dev.relent.RelentExecutor.Builder#build()} hands its one implementation to
 * every executor it builds, in the executor's {@link ExecutionSettings}; nothing else implements
 * it.
 *
 * <p>Thread-safe and stateless.
 */
public interface ApiAccess {

  /**
   * Returns the exception a call gives up with: the subclass of {@link RelentException} its reason
   * names, with the give-up's message and facts.
   *
   * @param giveUp why and how the call gave up
   * @return a new exception
   */
  RelentException exception(GiveUp giveUp);

  /**
   * Returns a new event with the given values; a value the event does not have is -1 or null.
   *
   * @param type what happened
   * @param attempt the attempt the event belongs to, 0 before any
   * @param elapsedNanos the time since the call began
   * @param attemptStartNanos when the attempt began, from the call's start; -1 before any attempt
   * @param attemptDurationNanos how long the attempt took; -1 unless it finished
   * @param result the attempt's result, or null
   * @param failure the attempt's failure, or null
   * @param verdict the verdict on the outcome, or null
   * @param waitNanos the wait chosen, -1 for none
   * @param hint the server's hint, or null
   * @param exception the exception the call gave up with, or null
   * @param outcomeClass the outcome's class ({@link dev.relent.OutcomeDescriber#outcomeClass})
   * @param serverWait whether the wait is the server's, not the backoff's
   * @param <R> the result type
   * @return a new event
   */
  <R> RelentEvent<R> event(
      RelentEvent.Type type,
      int attempt,
      long elapsedNanos,
      long attemptStartNanos,
      long attemptDurationNanos,
      R result,
      Throwable failure,
      Verdict verdict,
      long waitNanos,
      ServerHint hint,
      RelentException exception,
      String outcomeClass,
      boolean serverWait);

  /**
   * Returns the requests the server still allows in its window.
   *
   * @param hint the hint
   * @return the remaining requests, -1 without a quota
   */
  long quotaRemaining(ServerHint hint);

  /**
   * Returns the time until the server's window resets.
   *
   * @param hint the hint
   * @return nanoseconds, -1 without a quota
   */
  long quotaResetNanos(ServerHint hint);

  /**
   * Returns the requests the server's policy allows per window.
   *
   * @param hint the hint
   * @return the quota per window, -1 without a policy
   */
  long policyQuota(ServerHint hint);

  /**
   * Returns the window of the server's policy.
   *
   * @param hint the hint
   * @return nanoseconds, -1 when unknown
   */
  long policyWindowNanos(ServerHint hint);
}
