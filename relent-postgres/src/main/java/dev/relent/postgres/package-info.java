/**
 * Idempotency records in PostgreSQL: {@link dev.relent.postgres.PostgresIdempotencyStore}, an
 * {@link dev.relent.idempotency.spi.IdempotencyStore} over a {@link javax.sql.DataSource} the
 * application supplies, so that every server process that shares the database shares the keys.
 *
 * <p>The schema is the versioned file {@code dev/relent/postgres/V1__relent_idempotency.sql} in
 * this jar. The store speaks plain JDBC; it is tested with pgjdbc, PostgreSQL's own driver.
 */
package dev.relent.postgres;
