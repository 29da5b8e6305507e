/**
 * Server-side idempotency: {@link dev.relent.idempotency.IdempotencyHandler} wraps an endpoint's
 * operation so that retries carrying the same {@code Idempotency-Key} execute it at most once and
 * receive the first response again.
 *
 * <p>Handlers, configs, requests, responses and the in-memory store are immutable or thread-safe
 * and meant to be shared; builders are not thread-safe. Time comes from the injected {@link
 * dev.relent.idempotency.spi.WallClock}.
 */
package dev.relent.idempotency;
