package dev.relent.http;

import dev.relent.RelentException;
import java.util.List;
import java.util.Objects;

/**
 * A write (a POST, a PATCH: a method that is not idempotent) with an {@code Idempotency-Key} is
 * <em>unresolved</em>: the executor gave up on it (retries used, deadline, a server wait too long,
 * budget, breaker) after an attempt that may have reached the server without an answer saying what
 * happened (a read timeout, a reset, a connection closed mid-response, a truncated answer, a 504 or
 * another answer a proxy may have given). The write may have taken effect, or not; it is safe to
 * send again with the same key, and the server then either replays its first answer or does the
 * work once. A caller that keeps a queue sends it again later with {@link #idempotencyKey()} until
 * it resolves (a success, or an answer the decision table stops at).
 *
 * <p>Example message: {@code gave up after 3 attempts in 1.21 s (last: HTTP 504 from POST
 * http://api.example.com/v1/payments, rule retry: http-504; all 2 retries used); unresolved: the
 * write may have taken effect; safe to send again with key 8e7c1c0a…}. The message shows the key in
 * its short form ({@link AttemptRecord#shortKey}), as logs do; the whole key is {@link
 * #idempotencyKey()}.
 *
 * <p>Everything else is the executor's give-up, unchanged: {@link #reason()} says why it stopped
 * ({@code RETRIES_EXHAUSTED}, {@code DEADLINE}, …), the cause is the last failure, {@link
 * #lastResult()} the last response. A write without a key is never re-sent after it may have
 * reached the server; it ends in {@link NotRetriedWriteException} instead. Immutable once thrown;
 * the attempt records are kept but not serialised.
 */
public class UnresolvedWriteException extends RelentException {
  private static final long serialVersionUID = 1L;

  private final String method;
  private final String endpoint;
  private final String idempotencyKey;
  private final transient List<AttemptRecord> attemptRecords;

  /**
   * Creates the exception.
   *
   * @param gaveUp the executor's exception
   * @param method the request method
   * @param endpoint the endpoint, already redacted
   * @param idempotencyKey the key every attempt carried
   * @param attemptRecords the records of the attempts made, in order
   * @throws NullPointerException if an argument is null
   */
  public UnresolvedWriteException(
      RelentException gaveUp,
      String method,
      String endpoint,
      String idempotencyKey,
      List<AttemptRecord> attemptRecords) {
    super(
        Objects.requireNonNull(gaveUp, "gaveUp cannot be null").getMessage()
            + "; unresolved: the write may have taken effect; safe to send again with key "
            + AttemptRecord.shortKey(
                Objects.requireNonNull(idempotencyKey, "idempotencyKey cannot be null")),
        gaveUp);
    this.method = Objects.requireNonNull(method, "method cannot be null");
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint cannot be null");
    this.idempotencyKey = idempotencyKey;
    this.attemptRecords = List.copyOf(attemptRecords);
  }

  /**
   * Returns the whole {@code Idempotency-Key} every attempt carried: send the request again with
   * it.
   *
   * @return the key
   */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  /**
   * Returns the request method.
   *
   * @return the method
   */
  public String method() {
    return method;
  }

  /**
   * Returns the endpoint, redacted.
   *
   * @return the endpoint
   */
  public String endpoint() {
    return endpoint;
  }

  /**
   * Returns the records of the attempts made, in order; at least one is {@link
   * AttemptRecord#ambiguous() ambiguous}.
   *
   * @return an immutable list; empty after deserialisation
   */
  public List<AttemptRecord> attemptRecords() {
    return attemptRecords == null ? List.of() : attemptRecords;
  }
}
