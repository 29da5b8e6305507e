/**
 * The idempotency store and clock SPI: what a backend (in memory, Redis, PostgreSQL) implements.
 *
 * <p>Every {@link dev.relent.idempotency.spi.IdempotencyStore} method is one atomic operation on
 * one record; records hold only strings, ints, longs and a byte array so that any backend can keep
 * them. Run {@code dev.relent.idempotency.contract.IdempotencyStoreContract} from this module's
 * test-jar against a new store.
 */
package dev.relent.idempotency.spi;
