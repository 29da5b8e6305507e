/**
 * Relent's shared states in Redis, on the Lettuce client: a {@link dev.relent.spi.PacerState} so
 * that a fleet of processes keeps one start rate ({@link dev.relent.redis.RedisPacerState}), a
 * {@link dev.relent.spi.RetryBudgetState} so that it keeps one retry ratio ({@link
 * dev.relent.redis.RedisRetryBudgetState}), a {@link dev.relent.spi.CircuitBreakerState} so that it
 * opens and closes as one ({@link dev.relent.redis.RedisCircuitBreakerState}), and an {@link
 * dev.relent.idempotency.spi.IdempotencyStore} so that they share one set of idempotency records
 * ({@link dev.relent.redis.RedisIdempotencyStore}). Both come from one {@link
 * dev.relent.redis.RelentRedis} connection. Each decision is one {@code EVALSHA} round trip of a
 * Lua script, atomic on the server; times are taken from Redis's own clock. docs/redis.md tells the
 * key layout and what is guaranteed.
 */
package dev.relent.redis;
