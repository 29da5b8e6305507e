package dev.relent;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A snapshot of an executor's counters since it was built: first attempts, retries, successes and
 * final failures, with the failures broken down by reason (budget and breaker refusals among them).
 * Immutable.
 *
 * @param firstAttempts operations that made their first attempt
 * @param retries attempts after the first
 * @param successes operations that returned a result
 * @param failures operations that gave up
 * @param failuresByReason failures by reason; every reason is present
 */
public record RelentCounters(
    long firstAttempts,
    long retries,
    long successes,
    long failures,
    Map<RelentException.Reason, Long> failuresByReason) {

  /**
   * Creates a snapshot.
   *
   * @throws NullPointerException if {@code failuresByReason} is null
   */
  public RelentCounters {
    EnumMap<RelentException.Reason, Long> copy = new EnumMap<>(RelentException.Reason.class);
    for (RelentException.Reason reason : RelentException.Reason.values()) {
      copy.put(reason, failuresByReason.getOrDefault(reason, 0L));
    }
    failuresByReason = Collections.unmodifiableMap(copy);
  }

  /**
   * Returns the operations refused because the retry budget was spent.
   *
   * @return the count
   */
  public long budgetRefusals() {
    return failuresByReason.get(RelentException.Reason.RETRY_BUDGET);
  }

  /**
   * Returns the operations refused because the circuit breaker was open.
   *
   * @return the count
   */
  public long breakerRefusals() {
    return failuresByReason.get(RelentException.Reason.CIRCUIT_OPEN);
  }

  /**
   * Returns network attempts made: first attempts plus retries.
   *
   * @return the count
   */
  public long attempts() {
    return firstAttempts + retries;
  }
}
