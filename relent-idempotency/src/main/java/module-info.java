/**
 * Server side of the {@code Idempotency-Key} request header: key validation, request fingerprint,
 * in-flight and completed records, replay of the first response, the 400 / 409 / 422 rules, expiry
 * and per-caller scope. JDK only.
 *
 * <p>{@code dev.relent.idempotency} is the API ({@link dev.relent.idempotency.IdempotencyHandler});
 * {@code dev.relent.idempotency.spi} holds the store and clock interfaces that other stores (Redis,
 * PostgreSQL) and tests implement.
 */
module dev.relent.idempotency {
  exports dev.relent.idempotency;
  exports dev.relent.idempotency.spi;
}
