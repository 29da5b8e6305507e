package dev.relent.idempotency;

import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The server side of {@code Idempotency-Key} (IETF httpapi draft, Stripe's semantics): wraps an
 * operation so that retries of one request execute it at most once.
 *
 * <ul>
 *   <li>The first request with a key executes; its response, whatever the status (5xx included), is
 *       stored and replayed to every duplicate, marked {@code Idempotent-Replayed: true}.
 *   <li>A duplicate that arrives while the first still executes gets 409 {@link
 *       IdempotencyProblem#KEY_IN_FLIGHT}.
 *   <li>The same key with another method, path or body gets 422 {@link
 *       IdempotencyProblem#KEY_REUSED} (checked before 409: waiting would not help).
 *   <li>No key: 400 {@link IdempotencyProblem#KEY_MISSING} if required, otherwise the operation
 *       runs unprotected. A malformed key: 400 {@link IdempotencyProblem#KEY_INVALID}.
 *   <li>Keys belong to a {@linkplain IdempotencyRequest#scope() scope} (one caller); only its
 *       digest is stored, and one scope never sees another's records.
 *   <li>Records expire ({@link IdempotencyConfig#expiry()}); then the key executes again.
 *   <li>An operation that throws (or whose stage fails) produced no response: the key is released
 *       so that a retry executes, and the exception propagates.
 * </ul>
 *
 * <p>Immutable and thread-safe; share one handler (or one store) across all request threads.
 */
public interface IdempotencyHandler {

  /** The request header that carries the key. */
  String KEY_HEADER = "Idempotency-Key";

  /** The response header that marks a replayed response; its value is {@code true}. */
  String REPLAYED_HEADER = "Idempotent-Replayed";

  /**
   * Returns a builder with the defaults of {@link IdempotencyHandlerBuilder}.
   *
   * @return a new builder
   */
  static IdempotencyHandlerBuilder builder() {
    return new IdempotencyHandlerBuilder();
  }

  /**
   * Returns a builder that starts from a handler's settings, its store included.
   *
   * @param config the settings to start from
   * @return a new builder
   * @throws NullPointerException if {@code config} is null
   */
  static IdempotencyHandlerBuilder builder(IdempotencyConfig config) {
    return new IdempotencyHandlerBuilder(config);
  }

  /**
   * Returns a handler with the defaults and its own in-memory store.
   *
   * @return a new handler
   */
  static IdempotencyHandler ofDefaults() {
    return builder().build();
  }

  /**
   * Returns this handler's settings.
   *
   * @return the config
   */
  IdempotencyConfig config();

  /**
   * Executes {@code operation} for a first request, replays the stored response for a duplicate, or
   * answers a problem (400, 409, 422) without calling it. Blocks only as long as the store and the
   * operation do.
   *
   * @param request the incoming request
   * @param operation what the endpoint does; called at most once, on this thread
   * @return the operation's response (unmarked), a replay (marked) or a problem response
   * @throws NullPointerException if an argument is null or the operation returns null (the key is
   *     then released)
   * @throws RuntimeException what the operation or the store throws; after an operation failure the
   *     key is released
   */
  IdempotencyResponse handle(
      IdempotencyRequest request,
      Function<? super IdempotencyRequest, ? extends IdempotencyResponse> operation);

  /**
   * Like {@link #handle}, for an operation that answers later; never blocks on the operation, so it
   * may be called from an event loop as long as the store does not block (the in-memory store does
   * not). The store is called on the calling thread and on the thread that completes the
   * operation's stage.
   *
   * @param request the incoming request
   * @param operation what the endpoint does; called at most once, on this thread
   * @return a stage with the operation's response, a replay or a problem response; failed with the
   *     operation's or the store's exception (the key is released after an operation failure)
   * @throws NullPointerException if an argument is null
   */
  CompletionStage<IdempotencyResponse> handleAsync(
      IdempotencyRequest request,
      Function<? super IdempotencyRequest, ? extends CompletionStage<IdempotencyResponse>>
          operation);

  /**
   * Deletes the expired records from the store, at the clock's current time. Call it now and then
   * (a scheduled task) for a store that does not expire records on its own.
   *
   * @return how many records were deleted
   */
  long purgeExpired();
}
