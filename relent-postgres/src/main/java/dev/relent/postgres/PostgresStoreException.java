package dev.relent.postgres;

import java.sql.SQLException;

/**
 * A {@link PostgresIdempotencyStore} operation failed in the database or on the way to it: no
 * connection, a missing table, a statement PostgreSQL refused. The message names the operation and
 * the table, carries PostgreSQL's own words and says what to check; it never contains a password (a
 * {@code password=...} the driver or a pool put into a message is masked, in the cause chain too).
 *
 * <p>After a failed {@code begin} the operation did not run and nothing may be assumed about the
 * key; after a failed {@code complete} the response is not stored and the key stays in flight until
 * its lease ends. Immutable and thread-safe.
 */
public final class PostgresStoreException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The SQLSTATE of the failure, or null if the driver gave none. */
  private final String sqlState;

  PostgresStoreException(String message, String sqlState, SQLException cause) {
    super(message, cause);
    this.sqlState = sqlState;
  }

  /**
   * Returns the SQLSTATE that PostgreSQL or the driver reported: {@code 08001} no connection,
   * {@code 28P01} wrong password, {@code 3D000} no such database, {@code 42P01} no such table, and
   * so on.
   *
   * @return the five-character SQLSTATE, or null if there was none
   */
  public String sqlState() {
    return sqlState;
  }
}
