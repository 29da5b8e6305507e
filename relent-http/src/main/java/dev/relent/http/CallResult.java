package dev.relent.http;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a Relent HTTP adapter did for a response it returned: how many attempts it made, the {@code
 * Idempotency-Key} the call carried, the decision about the final response and a record of every
 * attempt. The OkHttp interceptor attaches it to the response's request, the HttpClient 5 handlers
 * to the call's context; the JDK client's {@link RelentHttpResponse} offers the same facts.
 *
 * <p>Adapters make it; callers read it. Immutable and thread-safe.
 */
public final class CallResult {
  private final int attempts;
  private final String idempotencyKey;
  private final Decision decision;
  private final List<AttemptRecord> attemptRecords;

  /**
   * Creates a result; meant for adapters.
   *
   * @param attempts the attempts made, 1 or more
   * @param idempotencyKey the call's key, or null
   * @param decision the decision about the final response
   * @param attemptRecords the records of the attempts, in order
   * @throws NullPointerException if {@code decision} or {@code attemptRecords} is null
   */
  public CallResult(
      int attempts, String idempotencyKey, Decision decision, List<AttemptRecord> attemptRecords) {
    this.attempts = attempts;
    this.idempotencyKey = idempotencyKey;
    this.decision = Objects.requireNonNull(decision, "decision cannot be null");
    this.attemptRecords = List.copyOf(attemptRecords);
  }

  /**
   * Returns the attempts made: requests handed to the client, the final one included.
   *
   * @return 1 or more
   */
  public int attempts() {
    return attempts;
  }

  /**
   * Returns the {@code Idempotency-Key} every attempt carried.
   *
   * @return the key, or empty when the call had none
   */
  public Optional<String> idempotencyKey() {
    return Optional.ofNullable(idempotencyKey);
  }

  /**
   * Returns the decision about the final response, naming the rule that fired.
   *
   * @return the decision
   */
  public Decision decision() {
    return decision;
  }

  /**
   * Returns a record of every attempt, in order, the final one included.
   *
   * @return an immutable list
   */
  public List<AttemptRecord> attemptRecords() {
    return attemptRecords;
  }

  @Override
  public String toString() {
    return "CallResult[attempts=" + attempts + ", decision=" + decision.verdict() + "]";
  }
}
