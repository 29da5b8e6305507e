package dev.relent.postgres;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.idempotency.spi.IdempotencyStore;
import dev.relent.idempotency.spi.WallClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * An {@link IdempotencyStore} in a PostgreSQL table, shared by every process that uses the same
 * database: a key claimed by one server is in flight for all of them. Built by {@link
 * #builder(DataSource)} over a {@link DataSource} the application supplies (a pool such as
 * HikariCP, or pgjdbc's {@code PGSimpleDataSource}); defaults: table {@value #DEFAULT_TABLE} found
 * through the connection's {@code search_path}, sweeps in batches of {@value
 * #DEFAULT_SWEEP_BATCH_SIZE} rows, {@link WallClock#system()} for {@link #sweepExpired()}.
 *
 * <p>The table comes from the versioned file {@value #SCHEMA_RESOURCE} in this jar: apply it with a
 * migration tool, or call {@link #createSchemaIfAbsent()}. {@link #schemaSql()} gives its
 * statements for this store's table name.
 *
 * <p>Design: one row per (scope, key), primary key on both. Each statement is its own transaction
 * (autocommit). {@link #complete}, {@link #release} and {@link #find} are one statement each;
 * {@link #begin} is a claim statement and, when it loses, a read of the winner; {@link
 * #purgeExpired} one statement per batch:
 *
 * <ul>
 *   <li>{@code begin}: {@code INSERT ... ON CONFLICT (scope, idem_key) DO UPDATE ... WHERE
 *       expires_at_millis <= now}. The primary key lets one insert in; a concurrent one waits for
 *       it and then sees the row. The row lock taken by {@code ON CONFLICT} means that an expired
 *       row (a finished replay window, or the lease of an owner that crashed) is replaced by
 *       exactly one claimant. One row written means the caller won; none means an unexpired record
 *       is there, which a second statement reads. If that record was released or swept in between,
 *       the claim is tried again.
 *   <li>{@code complete} and {@code release}: an {@code UPDATE} or {@code DELETE} that matches the
 *       owner token and the in-flight state, so a claimant whose lease expired and was taken over
 *       cannot touch the new owner's row.
 *   <li>Expiry is judged by the times the caller passes (the application's wall clock, as the SPI
 *       asks), never by the database's {@code now()}; rows are deleted by {@link #purgeExpired} in
 *       batches of {@code DELETE ... WHERE ctid = ANY(ARRAY(SELECT ctid ... LIMIT n FOR UPDATE SKIP
 *       LOCKED))}, so a sweep holds few locks at a time and two sweepers never wait for each other.
 * </ul>
 *
 * <p>The store takes a connection from the DataSource for each operation and closes it at once. A
 * connection that comes with autocommit off gets its work committed before it is closed; give the
 * store a plain pool, not one bound to the application's transactions, since its writes must be
 * visible to other requests at once. The statements are meant for READ COMMITTED, PostgreSQL's
 * default isolation; a serialization failure or deadlock, which a stricter default can cause under
 * contention, is retried twice with a new connection. Timeouts are the DataSource's (pgjdbc's
 * {@code connectTimeout} and {@code socketTimeout}, a pool's {@code connectionTimeout}). Failures
 * are {@link PostgresStoreException}s whose message says what to check and never contains a
 * password.
 *
 * <p>Strings go into {@code text} columns, which cannot hold U+0000: a record with a NUL in its
 * key, scope, fingerprint, token or a header is refused with {@link IllegalArgumentException} (HTTP
 * field values cannot contain NUL, and validated Idempotency-Keys are printable ASCII).
 *
 * <p>Immutable and thread-safe if the DataSource is (every pool is).
 */
public final class PostgresIdempotencyStore implements IdempotencyStore {

  /** The table name used unless {@link Builder#withTable} says otherwise. */
  public static final String DEFAULT_TABLE = "relent_idempotency";

  /** How many expired rows one sweep statement deletes unless {@link Builder} says otherwise. */
  public static final int DEFAULT_SWEEP_BATCH_SIZE = 1000;

  /** The largest sweep batch: more rows per statement would hold too many locks at once. */
  public static final int MAX_SWEEP_BATCH_SIZE = 100_000;

  /** The class-path location of the schema, version 1, as Flyway names versioned migrations. */
  public static final String SCHEMA_RESOURCE = "dev/relent/postgres/V1__relent_idempotency.sql";

  /**
   * Lowercase, so that the name means the same quoted (as the store writes it) or unquoted (as a
   * hand-written migration would); at most 48 characters, so that the index name, the table name
   * plus {@code _expires_at_idx}, fits PostgreSQL's 63.
   */
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

  private static final String INDEX_SUFFIX = "_expires_at_idx";

  /** The table's and the index's names in the schema file. */
  private static final Pattern SCHEMA_NAMES =
      Pattern.compile("\\b" + DEFAULT_TABLE + "(" + INDEX_SUFFIX + ")?\\b");

  /** A claim that keeps finding its winner gone (released, swept) gives up after this many. */
  private static final int MAX_CLAIM_ROUNDS = 16;

  /** Attempts of an operation that failed with a serialization failure or a deadlock. */
  private static final int MAX_ATTEMPTS = 3;

  private static final String IN_FLIGHT = "IN_FLIGHT";
  private static final String COMPLETED = "COMPLETED";

  private static final String COLUMNS =
      "scope, idem_key, fingerprint, token, state, created_at_millis, expires_at_millis, status,"
          + " header_names, header_values, body";

  private final DataSource dataSource;
  private final String schema;
  private final String table;
  private final String qualifiedTable;
  private final WallClock clock;
  private final int sweepBatchSize;

  private final String claimSql;
  private final String findSql;
  private final String completeSql;
  private final String releaseSql;
  private final String sweepSql;

  private PostgresIdempotencyStore(Builder b) {
    this.dataSource = b.dataSource;
    this.schema = b.schema;
    this.table = b.table;
    this.qualifiedTable = (schema == null ? "" : quote(schema) + ".") + quote(table);
    this.clock = b.clock;
    this.sweepBatchSize = b.sweepBatchSize;
    String t = qualifiedTable;
    this.claimSql =
        "INSERT INTO "
            + t
            + " AS r ("
            + COLUMNS
            + ") VALUES (?, ?, ?, ?, '"
            + IN_FLIGHT
            + "', ?, ?, 0, '{}'::text[], '{}'::text[], ''::bytea)"
            + " ON CONFLICT (scope, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,"
            + " token = EXCLUDED.token, state = EXCLUDED.state,"
            + " created_at_millis = EXCLUDED.created_at_millis,"
            + " expires_at_millis = EXCLUDED.expires_at_millis, status = EXCLUDED.status,"
            + " header_names = EXCLUDED.header_names, header_values = EXCLUDED.header_values,"
            + " body = EXCLUDED.body"
            + " WHERE r.expires_at_millis <= ?";
    this.findSql =
        "SELECT "
            + COLUMNS
            + " FROM "
            + t
            + " WHERE scope = ? AND idem_key = ? AND expires_at_millis > ?";
    this.completeSql =
        "UPDATE "
            + t
            + " SET state = '"
            + COMPLETED
            + "', fingerprint = ?, created_at_millis = ?, expires_at_millis = ?, status = ?,"
            + " header_names = ?, header_values = ?, body = ?"
            + " WHERE scope = ? AND idem_key = ? AND token = ? AND state = '"
            + IN_FLIGHT
            + "'";
    this.releaseSql =
        "DELETE FROM "
            + t
            + " WHERE scope = ? AND idem_key = ? AND token = ? AND state = '"
            + IN_FLIGHT
            + "'";
    // The inner SELECT finds the batch by the expiry index and locks it, skipping rows that a
    // claim or another sweep holds; ARRAY(...) makes the DELETE one TID scan of those ctids,
    // whatever the statistics say (an IN (...) may be planned as a join). The expiry is checked
    // again on the row as it is when deleted.
    this.sweepSql =
        "DELETE FROM "
            + t
            + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM "
            + t
            + " WHERE expires_at_millis <= ? LIMIT ? FOR UPDATE SKIP LOCKED))"
            + " AND expires_at_millis <= ?";
  }

  /**
   * Returns a builder over the DataSource that the store takes its connections from.
   *
   * @param dataSource where connections come from; the application owns it and closes it
   * @return a new builder with the defaults
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  @Override
  public Optional<IdempotencyRecord> begin(IdempotencyRecord inFlight, long nowMillis) {
    Objects.requireNonNull(inFlight, "inFlight cannot be null");
    if (!inFlight.isInFlight()) {
      throw new IllegalArgumentException("begin needs an in-flight record: " + inFlight);
    }
    checkStrings(inFlight);
    return run(
        "claim a key",
        c -> {
          for (int round = 0; round < MAX_CLAIM_ROUNDS; round++) {
            if (claim(c, inFlight, nowMillis)) {
              return Optional.empty();
            }
            // Autocommit: this is a new statement with a new snapshot, so it sees the winner that
            // the claim waited for, even one that committed after the claim began.
            Optional<IdempotencyRecord> winner =
                find(c, inFlight.scope(), inFlight.key(), nowMillis);
            if (winner.isPresent()) {
              return winner;
            }
          }
          throw new IllegalStateException(
              "claim a key: the key was claimed and given up again "
                  + MAX_CLAIM_ROUNDS
                  + " times in a row while this request tried to claim it; table "
                  + qualifiedTable);
        });
  }

  private boolean claim(Connection c, IdempotencyRecord r, long nowMillis) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(claimSql)) {
      s.setString(1, r.scope());
      s.setString(2, r.key());
      s.setString(3, r.fingerprint());
      s.setString(4, r.token());
      s.setLong(5, r.createdAtMillis());
      s.setLong(6, r.expiresAtMillis());
      s.setLong(7, nowMillis);
      return s.executeUpdate() == 1;
    }
  }

  @Override
  public boolean complete(IdempotencyRecord completed) {
    Objects.requireNonNull(completed, "completed cannot be null");
    if (completed.isInFlight()) {
      throw new IllegalArgumentException("complete needs a completed record: " + completed);
    }
    checkStrings(completed);
    Headers headers = Headers.flatten(completed.headers());
    return run(
        "store a response",
        c -> {
          try (PreparedStatement s = c.prepareStatement(completeSql)) {
            s.setString(1, completed.fingerprint());
            s.setLong(2, completed.createdAtMillis());
            s.setLong(3, completed.expiresAtMillis());
            s.setInt(4, completed.status());
            Array names = c.createArrayOf("text", headers.names);
            Array values = c.createArrayOf("text", headers.values);
            try {
              s.setArray(5, names);
              s.setArray(6, values);
              s.setBytes(7, completed.body());
              s.setString(8, completed.scope());
              s.setString(9, completed.key());
              s.setString(10, completed.token());
              return s.executeUpdate() == 1;
            } finally {
              names.free();
              values.free();
            }
          }
        });
  }

  @Override
  public boolean release(IdempotencyRecord inFlight) {
    Objects.requireNonNull(inFlight, "inFlight cannot be null");
    if (hasNul(inFlight.scope()) || hasNul(inFlight.key()) || hasNul(inFlight.token())) {
      return false; // never stored: begin refuses such a record
    }
    return run(
        "release a key",
        c -> {
          try (PreparedStatement s = c.prepareStatement(releaseSql)) {
            s.setString(1, inFlight.scope());
            s.setString(2, inFlight.key());
            s.setString(3, inFlight.token());
            return s.executeUpdate() == 1;
          }
        });
  }

  @Override
  public Optional<IdempotencyRecord> find(String scope, String key, long nowMillis) {
    Objects.requireNonNull(scope, "scope cannot be null");
    Objects.requireNonNull(key, "key cannot be null");
    if (hasNul(scope) || hasNul(key)) {
      return Optional.empty(); // never stored: begin refuses such a record
    }
    return run("read a record", c -> find(c, scope, key, nowMillis));
  }

  private Optional<IdempotencyRecord> find(Connection c, String scope, String key, long nowMillis)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(findSql)) {
      s.setString(1, scope);
      s.setString(2, key);
      s.setLong(3, nowMillis);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /**
   * Deletes every record expired at {@code nowMillis}, in flight or completed, in batches of the
   * {@linkplain Builder#withSweepBatchSize sweep batch size}, each its own statement and
   * transaction. Stops after a batch that deleted fewer rows than its size: the rest, if any, are
   * locked by another sweep or a claim replacing them.
   *
   * @param nowMillis the current time, epoch milliseconds
   * @return how many records were deleted
   * @throws PostgresStoreException if a batch fails; the batches before it stay deleted
   */
  @Override
  public long purgeExpired(long nowMillis) {
    long deleted = 0;
    int batch;
    do {
      batch = deleteExpiredBatch(nowMillis, sweepBatchSize);
      deleted += batch;
    } while (batch == sweepBatchSize);
    return deleted;
  }

  /**
   * Deletes the records expired now by the builder's clock: {@code purgeExpired(clock.millis())}.
   * Meant for a scheduled job; rows that are expired but not yet swept cost disk space only, since
   * every read ignores them.
   *
   * @return how many records were deleted
   * @throws PostgresStoreException if a batch fails; the batches before it stay deleted
   */
  public long sweepExpired() {
    return purgeExpired(clock.millis());
  }

  /**
   * Deletes at most {@code maxRows} records expired at {@code nowMillis}, in one statement. Rows
   * that another transaction holds locked are skipped. For a job that bounds its work per run.
   *
   * @param nowMillis the current time, epoch milliseconds
   * @param maxRows at most this many rows, 1 to {@value #MAX_SWEEP_BATCH_SIZE}
   * @return how many records were deleted, at most {@code maxRows}
   * @throws IllegalArgumentException if {@code maxRows} is out of range
   * @throws PostgresStoreException if the statement fails
   */
  public int deleteExpiredBatch(long nowMillis, int maxRows) {
    checkBatchSize(maxRows);
    return run(
        "delete expired records",
        c -> {
          try (PreparedStatement s = c.prepareStatement(sweepSql)) {
            s.setLong(1, nowMillis);
            s.setInt(2, maxRows);
            s.setLong(3, nowMillis);
            return s.executeUpdate();
          }
        });
  }

  /**
   * Creates the table and its index if they do not exist, from {@link #schemaSql()}, in one
   * transaction. Safe to call on every start-up and from several processes at once (they queue on a
   * transaction-level advisory lock); an existing table is left as it is, even if it differs. Needs
   * the privilege to create tables in the schema; where only a migration tool may change the
   * schema, apply {@value #SCHEMA_RESOURCE} with it instead.
   *
   * @throws PostgresStoreException if the statements fail
   */
  public void createSchemaIfAbsent() {
    List<String> statements = schemaStatements();
    run(
        "create the schema",
        c -> {
          boolean autoCommit = c.getAutoCommit();
          if (autoCommit) {
            c.setAutoCommit(false);
          }
          try {
            try (PreparedStatement lock =
                c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
              // Two CREATE TABLE IF NOT EXISTS at once can both pass the check and one fail.
              lock.setString(1, "relent-postgres schema " + qualifiedTable);
              lock.execute();
            }
            try (Statement s = c.createStatement()) {
              for (String sql : statements) {
                s.execute(sql);
              }
            }
            c.commit();
          } catch (SQLException | RuntimeException e) {
            rollbackQuietly(c, e);
            throw e;
          } finally {
            if (autoCommit) {
              c.setAutoCommit(true);
            }
          }
          return null;
        });
  }

  /**
   * Returns the schema, {@value #SCHEMA_RESOURCE}, for this store's table: comments removed, the
   * table and index names replaced (quoted), statements separated by {@code ;} and a newline. For a
   * migration tool that takes SQL text, or to review what {@link #createSchemaIfAbsent()} runs.
   *
   * @return the SQL statements
   */
  public String schemaSql() {
    return schemaStatements().stream().map(s -> s + ";\n").collect(Collectors.joining());
  }

  private List<String> schemaStatements() {
    List<String> statements = new ArrayList<>();
    for (String statement : withoutComments(schemaFile()).split(";")) {
      String sql = statement.strip();
      if (!sql.isEmpty()) {
        // One pass, so that a replacement is never replaced again.
        statements.add(
            SCHEMA_NAMES
                .matcher(sql)
                .replaceAll(
                    m ->
                        Matcher.quoteReplacement(
                            m.group(1) == null ? qualifiedTable : quote(table + INDEX_SUFFIX))));
      }
    }
    return statements;
  }

  private static String schemaFile() {
    try (InputStream in =
        PostgresIdempotencyStore.class.getClassLoader().getResourceAsStream(SCHEMA_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing from the class path: " + SCHEMA_RESOURCE);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + SCHEMA_RESOURCE, e);
    }
  }

  private static String withoutComments(String sql) {
    // The file has no "--" inside a string literal, so a line comment is everything after it.
    return sql.lines()
        .map(l -> (l.contains("--") ? l.substring(0, l.indexOf("--")) : l).stripTrailing())
        .collect(Collectors.joining("\n"));
  }

  /**
   * Returns the table's name as given to the builder, without schema.
   *
   * @return the table name
   */
  public String table() {
    return table;
  }

  /**
   * Returns the schema the table is in, if the builder named one.
   *
   * @return the schema, or empty when the table is found through the {@code search_path}
   */
  public Optional<String> schema() {
    return Optional.ofNullable(schema);
  }

  /**
   * Returns how many rows one sweep statement of {@link #purgeExpired} deletes at most.
   *
   * @return the batch size
   */
  public int sweepBatchSize() {
    return sweepBatchSize;
  }

  @Override
  public String toString() {
    // Not the DataSource: its toString may show a URL with credentials.
    return "PostgresIdempotencyStore{table=" + qualifiedTable + '}';
  }

  private static IdempotencyRecord read(ResultSet rs) throws SQLException {
    String scope = rs.getString(1);
    String key = rs.getString(2);
    String fingerprint = rs.getString(3);
    String token = rs.getString(4);
    String state = rs.getString(5);
    long created = rs.getLong(6);
    long expires = rs.getLong(7);
    if (IN_FLIGHT.equals(state)) {
      return IdempotencyRecord.inFlight(scope, key, fingerprint, token, created, expires);
    }
    int status = rs.getInt(8);
    Map<String, List<String>> headers =
        Headers.unflatten(strings(rs.getArray(9)), strings(rs.getArray(10)));
    return IdempotencyRecord.completed(
        scope, key, fingerprint, token, created, expires, status, headers, rs.getBytes(11));
  }

  private static String[] strings(Array array) throws SQLException {
    try {
      return (String[]) array.getArray();
    } finally {
      array.free();
    }
  }

  /** The work of one operation on one connection. */
  @FunctionalInterface
  private interface Work<T> {
    T apply(Connection c) throws SQLException;
  }

  private <T> T run(String operation, Work<T> work) {
    for (int attempt = 1; ; attempt++) {
      try (Connection c = dataSource.getConnection()) {
        if (c == null) {
          throw new IllegalStateException(operation + ": the DataSource returned no connection");
        }
        if (c.getAutoCommit()) {
          return work.apply(c);
        }
        try {
          T result = work.apply(c);
          c.commit();
          return result;
        } catch (SQLException | RuntimeException e) {
          rollbackQuietly(c, e);
          throw e;
        }
      } catch (SQLException e) {
        if (attempt < MAX_ATTEMPTS && isTransient(e)) {
          continue;
        }
        throw failure(operation, e);
      }
    }
  }

  /** Serialization failure or deadlock: PostgreSQL rolled the work back, so it may run again. */
  private static boolean isTransient(SQLException e) {
    return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState());
  }

  private static void rollbackQuietly(Connection c, Exception cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(Secrets.mask(e));
    }
  }

  private PostgresStoreException failure(String operation, SQLException e) {
    SQLException masked = Secrets.mask(e);
    String state = e.getSQLState();
    StringBuilder m = new StringBuilder("PostgreSQL idempotency store could not ");
    m.append(operation).append(" in table ").append(qualifiedTable).append(": ");
    // One line: the server's "Position: 137" would otherwise start a line of its own.
    m.append(Secrets.mask(String.valueOf(e.getMessage())).strip().replaceAll("\\s*\\n\\s*", " "));
    if (state != null) {
      m.append(" (SQLSTATE ").append(state).append(')');
    }
    String hint = hint(state);
    if (hint != null) {
      m.append(". ").append(hint);
    }
    return new PostgresStoreException(m.toString(), state, masked);
  }

  private String hint(String state) {
    if (state == null) {
      return null;
    }
    if (state.startsWith("08")) {
      return "Check that PostgreSQL is running and that the DataSource's host, port and database"
          + " are right.";
    }
    if (state.startsWith("28")) {
      return "Check the DataSource's user and password, and pg_hba.conf.";
    }
    if (state.equals("3D000")) {
      return "Check the DataSource's database name.";
    }
    if (state.equals("42P01")) {
      return "Create the table: apply "
          + SCHEMA_RESOURCE
          + " with your migration tool, or call createSchemaIfAbsent().";
    }
    if (state.equals("42501")) {
      return "Grant the DataSource's user SELECT, INSERT, UPDATE and DELETE on the table.";
    }
    if (state.equals("42703") || state.equals("42804") || state.equals("42P10")) {
      return "The table does not have the columns and primary key of " + SCHEMA_RESOURCE + ".";
    }
    return null;
  }

  private static void checkStrings(IdempotencyRecord r) {
    checkNoNul("scope", r.scope());
    checkNoNul("key", r.key());
    checkNoNul("fingerprint", r.fingerprint());
    checkNoNul("token", r.token());
    for (Map.Entry<String, List<String>> e : r.headers().entrySet()) {
      checkNoNul("a header name", e.getKey());
      for (String v : e.getValue()) {
        checkNoNul("a header value", v);
      }
    }
  }

  private static void checkNoNul(String what, String value) {
    if (hasNul(value)) {
      throw new IllegalArgumentException(
          what + " contains NUL (U+0000), which a PostgreSQL text column cannot hold");
    }
  }

  private static boolean hasNul(String s) {
    return s.indexOf('\0') >= 0;
  }

  private static String quote(String identifier) {
    // Only [a-z0-9_] gets here, so there is no quote to double.
    return '"' + identifier + '"';
  }

  private static int checkBatchSize(int size) {
    if (size < 1 || size > MAX_SWEEP_BATCH_SIZE) {
      throw new IllegalArgumentException(
          "sweep batch size must be in 1.." + MAX_SWEEP_BATCH_SIZE + ": " + size + " rows");
    }
    return size;
  }

  private static String checkIdentifier(String what, String name) {
    Objects.requireNonNull(name, what + " cannot be null");
    if (!IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " must be a lowercase SQL identifier: a-z, 0-9 and _, not starting with a digit,"
              + " 1 to 48 characters: \""
              + name.replace("\"", "\\\"")
              + '"');
    }
    return name;
  }

  /**
   * Headers as two parallel {@code text[]}s, one element per value, so that a DBA can read them
   * with plain SQL; a name with no value at all gets one NULL value, so it survives the trip.
   */
  private static final class Headers {
    final String[] names;
    final String[] values;

    private Headers(List<String> names, List<String> values) {
      this.names = names.toArray(new String[0]);
      this.values = values.toArray(new String[0]);
    }

    static Headers flatten(Map<String, List<String>> headers) {
      List<String> names = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getValue().isEmpty()) {
          names.add(e.getKey());
          values.add(null);
        }
        for (String v : e.getValue()) {
          names.add(e.getKey());
          values.add(v);
        }
      }
      return new Headers(names, values);
    }

    static Map<String, List<String>> unflatten(String[] names, String[] values) {
      if (names.length != values.length) {
        throw new IllegalStateException(
            "header_names and header_values differ in length: "
                + names.length
                + " != "
                + values.length);
      }
      Map<String, List<String>> headers = new LinkedHashMap<>();
      for (int i = 0; i < names.length; i++) {
        List<String> list = headers.computeIfAbsent(names[i], n -> new ArrayList<>());
        if (values[i] != null) {
          list.add(values[i]);
        }
      }
      return Collections.unmodifiableMap(headers);
    }
  }

  /**
   * Builds a {@link PostgresIdempotencyStore}. Defaults: table {@value
   * PostgresIdempotencyStore#DEFAULT_TABLE}, no schema (the connection's {@code search_path}
   * decides), sweep batches of {@value #DEFAULT_SWEEP_BATCH_SIZE} rows, {@link WallClock#system()}.
   *
   * <p>Mutable and not thread-safe; {@link #build()} does no I/O.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema;
    private String table = DEFAULT_TABLE;
    private WallClock clock = WallClock.system();
    private int sweepBatchSize = DEFAULT_SWEEP_BATCH_SIZE;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource cannot be null");
    }

    /**
     * Sets the table's name; default {@value PostgresIdempotencyStore#DEFAULT_TABLE}. Processes
     * that must see each other's keys use the same table.
     *
     * @param table a lowercase SQL identifier: a-z, 0-9 and _, not starting with a digit, 1 to 48
     *     characters
     * @return this builder
     * @throws NullPointerException if {@code table} is null
     * @throws IllegalArgumentException if {@code table} is not such an identifier
     */
    public Builder withTable(String table) {
      this.table = checkIdentifier("table name", table);
      return this;
    }

    /**
     * Sets the schema the table is in; default none: the connection's {@code search_path} finds it
     * ({@code public} unless configured otherwise).
     *
     * @param schema a lowercase SQL identifier, as for {@link #withTable}
     * @return this builder
     * @throws NullPointerException if {@code schema} is null
     * @throws IllegalArgumentException if {@code schema} is not such an identifier
     */
    public Builder withSchema(String schema) {
      this.schema = checkIdentifier("schema name", schema);
      return this;
    }

    /**
     * Sets the clock that {@link PostgresIdempotencyStore#sweepExpired()} judges expiry by; default
     * {@link WallClock#system()}. The SPI methods take the time from their caller. Use the same
     * clock as the {@code IdempotencyHandler}.
     *
     * @param clock the wall clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder withClock(WallClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock cannot be null");
      return this;
    }

    /**
     * Sets how many rows one statement of {@link PostgresIdempotencyStore#purgeExpired} deletes at
     * most; default {@value PostgresIdempotencyStore#DEFAULT_SWEEP_BATCH_SIZE}. Smaller batches
     * hold fewer row locks and write less WAL per transaction; larger ones need fewer round trips.
     *
     * @param rows 1 to {@value PostgresIdempotencyStore#MAX_SWEEP_BATCH_SIZE}
     * @return this builder
     * @throws IllegalArgumentException if {@code rows} is out of range
     */
    public Builder withSweepBatchSize(int rows) {
      this.sweepBatchSize = checkBatchSize(rows);
      return this;
    }

    /**
     * Returns a store with these settings. Connects to nothing: a missing table or an unreachable
     * database shows in the first operation (call {@link
     * PostgresIdempotencyStore#createSchemaIfAbsent()} at start-up to find out early).
     *
     * @return the store
     */
    public PostgresIdempotencyStore build() {
      return new PostgresIdempotencyStore(this);
    }
  }
}
