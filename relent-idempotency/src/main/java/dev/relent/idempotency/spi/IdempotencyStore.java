package dev.relent.idempotency.spi;

import java.util.Optional;

/**
 * Where idempotency records live: in memory, Redis or PostgreSQL. A record is identified by its
 * {@link IdempotencyRecord#scope() scope} and {@link IdempotencyRecord#key() key} together.
 *
 * <p><b>Each method is one atomic operation</b> on the store (a {@code ConcurrentHashMap.compute},
 * one Lua script, one SQL statement): many processes may call the same store at once, and two
 * {@link #begin} calls for one key must never both win. A record whose {@link
 * IdempotencyRecord#expiresAtMillis() expiry} has passed counts as absent everywhere; a store may
 * delete it at any time.
 *
 * <p>Implementations must be thread-safe. Verify a new one by extending {@code
 * dev.relent.idempotency.contract.IdempotencyStoreContract} from this module's test-jar.
 */
public interface IdempotencyStore {

  /**
   * Claims a key: stores {@code inFlight} if no unexpired record with its scope and key exists,
   * replacing an expired one.
   *
   * @param inFlight the new record, {@linkplain IdempotencyRecord.State#IN_FLIGHT in flight}
   * @param nowMillis the current time, epoch milliseconds, to judge expiry
   * @return empty if {@code inFlight} was stored (the caller owns the key and must later {@link
   *     #complete} or {@link #release} it), otherwise the unexpired record already there
   * @throws NullPointerException if {@code inFlight} is null
   * @throws IllegalArgumentException if {@code inFlight} is not in flight
   */
  Optional<IdempotencyRecord> begin(IdempotencyRecord inFlight, long nowMillis);

  /**
   * Stores a response: replaces the in-flight record with the same scope, key and token by {@code
   * completed}. Does nothing if that record is gone or has another token (it expired and another
   * request claimed the key since).
   *
   * @param completed the record with the response, {@linkplain IdempotencyRecord.State#COMPLETED
   *     completed}
   * @return whether the record was replaced
   * @throws NullPointerException if {@code completed} is null
   * @throws IllegalArgumentException if {@code completed} is not completed
   */
  boolean complete(IdempotencyRecord completed);

  /**
   * Gives a key up so that a retry can execute: deletes the in-flight record with the same scope,
   * key and token as {@code inFlight}. Does nothing to a completed record or another owner's.
   *
   * @param inFlight the record that {@link #begin} stored
   * @return whether a record was deleted
   * @throws NullPointerException if {@code inFlight} is null
   */
  boolean release(IdempotencyRecord inFlight);

  /**
   * Reads the unexpired record for a scope and key.
   *
   * @param scope the scope digest
   * @param key the idempotency key
   * @param nowMillis the current time, epoch milliseconds, to judge expiry
   * @return the record, or empty if there is none or it has expired
   * @throws NullPointerException if {@code scope} or {@code key} is null
   */
  Optional<IdempotencyRecord> find(String scope, String key, long nowMillis);

  /**
   * Deletes every record that has expired at {@code nowMillis}, in flight or completed.
   *
   * @param nowMillis the current time, epoch milliseconds
   * @return how many records were deleted
   */
  long purgeExpired(long nowMillis);
}
