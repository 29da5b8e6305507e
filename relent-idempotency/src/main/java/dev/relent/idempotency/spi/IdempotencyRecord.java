package dev.relent.idempotency.spi;

import dev.relent.idempotency.internal.ResponseParts;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an {@link IdempotencyStore} keeps for one idempotency key of one caller: the request
 * fingerprint, who owns the key while the first request runs, and, once it finished, the response
 * to replay. Made of strings, ints, longs and one byte array so that any backend can keep it.
 *
 * <p>A record is identified by {@link #scope()} and {@link #key()} together. It is {@linkplain
 * State#IN_FLIGHT in flight} from the first request's start until its response is stored, then
 * {@linkplain State#COMPLETED completed}. From {@link #expiresAtMillis()} on it counts as absent.
 *
 * <p>Immutable and thread-safe. {@link #toString()} shows neither the key, the headers nor the
 * body, so a record may be logged.
 */
public final class IdempotencyRecord {

  /** Whether the first request with the key still runs or has a stored response. */
  public enum State {
    /** The first request is still running; its owner is {@link IdempotencyRecord#token()}. */
    IN_FLIGHT,
    /** The first request finished and its response is stored for replay. */
    COMPLETED
  }

  private static final byte[] NO_BODY = new byte[0];

  private final String scope;
  private final String key;
  private final String fingerprint;
  private final String token;
  private final State state;
  private final long createdAtMillis;
  private final long expiresAtMillis;
  private final int status;
  private final Map<String, List<String>> headers;
  private final byte[] body;

  private IdempotencyRecord(
      String scope,
      String key,
      String fingerprint,
      String token,
      State state,
      long createdAtMillis,
      long expiresAtMillis,
      int status,
      Map<String, List<String>> headers,
      byte[] body) {
    this.scope = Objects.requireNonNull(scope, "scope cannot be null");
    this.key = Objects.requireNonNull(key, "key cannot be null");
    this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint cannot be null");
    this.token = Objects.requireNonNull(token, "token cannot be null");
    this.state = state;
    if (expiresAtMillis <= createdAtMillis) {
      throw new IllegalArgumentException(
          "expiresAtMillis must be > createdAtMillis: "
              + expiresAtMillis
              + " ms <= "
              + createdAtMillis
              + " ms");
    }
    this.createdAtMillis = createdAtMillis;
    this.expiresAtMillis = expiresAtMillis;
    this.status = status;
    this.headers = headers;
    this.body = body;
  }

  /**
   * Returns a record for a first request that has just started.
   *
   * @param scope the digest of the caller's scope (never the raw credential)
   * @param key the idempotency key, unquoted
   * @param fingerprint the digest of the request (method, path, body)
   * @param token a value unique to this execution: only its owner may complete or release it
   * @param createdAtMillis when the first request started, in epoch milliseconds
   * @param expiresAtMillis from when on the record counts as absent, in epoch milliseconds
   * @return an in-flight record
   * @throws NullPointerException if a string is null
   * @throws IllegalArgumentException if {@code expiresAtMillis <= createdAtMillis}
   */
  public static IdempotencyRecord inFlight(
      String scope,
      String key,
      String fingerprint,
      String token,
      long createdAtMillis,
      long expiresAtMillis) {
    return new IdempotencyRecord(
        scope,
        key,
        fingerprint,
        token,
        State.IN_FLIGHT,
        createdAtMillis,
        expiresAtMillis,
        0,
        Map.of(),
        NO_BODY);
  }

  /**
   * Returns a record with a stored response, as a store rebuilds it from its own representation.
   *
   * @param scope the digest of the caller's scope
   * @param key the idempotency key, unquoted
   * @param fingerprint the digest of the request
   * @param token the token of the execution that produced the response
   * @param createdAtMillis when the first request started, in epoch milliseconds
   * @param expiresAtMillis from when on the record counts as absent, in epoch milliseconds
   * @param status the HTTP status of the stored response
   * @param headers the response headers, name to values in order; copied
   * @param body the response body; copied
   * @return a completed record
   * @throws NullPointerException if a string, the headers, a header name or value, or the body is
   *     null
   * @throws IllegalArgumentException if {@code expiresAtMillis <= createdAtMillis} or the status is
   *     outside 100..599
   */
  public static IdempotencyRecord completed(
      String scope,
      String key,
      String fingerprint,
      String token,
      long createdAtMillis,
      long expiresAtMillis,
      int status,
      Map<String, List<String>> headers,
      byte[] body) {
    return new IdempotencyRecord(
        scope,
        key,
        fingerprint,
        token,
        State.COMPLETED,
        createdAtMillis,
        expiresAtMillis,
        ResponseParts.checkStatus(status),
        ResponseParts.copyHeaders(headers),
        Objects.requireNonNull(body, "body cannot be null").clone());
  }

  /**
   * Returns this in-flight record completed with a response: same scope, key, fingerprint, token
   * and creation time.
   *
   * @param status the HTTP status of the response
   * @param headers the response headers; copied
   * @param body the response body; copied
   * @param expiresAtMillis the new expiry, in epoch milliseconds
   * @return the completed record
   * @throws IllegalStateException if this record is already completed
   * @throws NullPointerException if the headers, a header name or value, or the body is null
   * @throws IllegalArgumentException if the status is outside 100..599 or {@code expiresAtMillis <=
   *     createdAtMillis()}
   */
  public IdempotencyRecord complete(
      int status, Map<String, List<String>> headers, byte[] body, long expiresAtMillis) {
    if (state != State.IN_FLIGHT) {
      throw new IllegalStateException("record is already completed");
    }
    return completed(
        scope, key, fingerprint, token, createdAtMillis, expiresAtMillis, status, headers, body);
  }

  /**
   * Returns the digest of the caller's scope: records of different scopes never meet.
   *
   * @return lowercase hex SHA-256 of the scope
   */
  public String scope() {
    return scope;
  }

  /**
   * Returns the idempotency key as the client chose it, unquoted.
   *
   * @return the key
   */
  public String key() {
    return key;
  }

  /**
   * Returns the digest of the first request (method, path, body); a duplicate must match it.
   *
   * @return the fingerprint
   */
  public String fingerprint() {
    return fingerprint;
  }

  /**
   * Returns the token of the execution that owns (or owned) the key.
   *
   * @return the owner token
   */
  public String token() {
    return token;
  }

  /**
   * Returns whether the first request still runs or has finished.
   *
   * @return the state
   */
  public State state() {
    return state;
  }

  /**
   * Returns whether the first request still runs.
   *
   * @return {@code true} for {@link State#IN_FLIGHT}
   */
  public boolean isInFlight() {
    return state == State.IN_FLIGHT;
  }

  /**
   * Returns when the first request started.
   *
   * @return epoch milliseconds
   */
  public long createdAtMillis() {
    return createdAtMillis;
  }

  /**
   * Returns from when on this record counts as absent.
   *
   * @return epoch milliseconds
   */
  public long expiresAtMillis() {
    return expiresAtMillis;
  }

  /**
   * Returns whether this record counts as absent at {@code nowMillis}.
   *
   * @param nowMillis the current time, epoch milliseconds
   * @return {@code true} if {@code nowMillis >= expiresAtMillis()}
   */
  public boolean isExpiredAt(long nowMillis) {
    return nowMillis >= expiresAtMillis;
  }

  /**
   * Returns the stored status.
   *
   * @return the HTTP status, or 0 while in flight
   */
  public int status() {
    return status;
  }

  /**
   * Returns the stored headers.
   *
   * @return header name to values, in the order given; unmodifiable; empty while in flight
   */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /**
   * Returns the stored body.
   *
   * @return a copy of the body; empty while in flight
   */
  public byte[] body() {
    return body.clone();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof IdempotencyRecord)) {
      return false;
    }
    IdempotencyRecord that = (IdempotencyRecord) o;
    return createdAtMillis == that.createdAtMillis
        && expiresAtMillis == that.expiresAtMillis
        && status == that.status
        && state == that.state
        && scope.equals(that.scope)
        && key.equals(that.key)
        && fingerprint.equals(that.fingerprint)
        && token.equals(that.token)
        && headers.equals(that.headers)
        && Arrays.equals(body, that.body);
  }

  @Override
  public int hashCode() {
    int h = Objects.hash(scope, key, fingerprint, token, state, createdAtMillis, expiresAtMillis);
    return 31 * (31 * h + status) + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    // No key, headers or body: they may carry personal data, and the record may be logged.
    return "IdempotencyRecord{state="
        + state
        + ", status="
        + status
        + ", headers="
        + headers.size()
        + ", body="
        + body.length
        + " bytes, createdAtMillis="
        + createdAtMillis
        + ", expiresAtMillis="
        + expiresAtMillis
        + '}';
  }
}
