package dev.relent.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.idempotency.IdempotencyHandler;
import dev.relent.idempotency.IdempotencyRequest;
import dev.relent.idempotency.IdempotencyResponse;
import dev.relent.idempotency.spi.IdempotencyRecord;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** What the PostgreSQL store does beyond the shared contract, against the real server. */
class PostgresIdempotencyStoreTest {

  static final String SCOPE = "a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3";
  static final long T0 = 1_700_000_000_000L;
  static final long HOUR = 3_600_000L;

  private final List<String> tables = new ArrayList<>();

  @AfterEach
  void dropTables() {
    tables.forEach(TestDatabase::drop);
  }

  private PostgresIdempotencyStore.Builder builder(String prefix) {
    String table = TestDatabase.freshTable(prefix);
    tables.add(table);
    return PostgresIdempotencyStore.builder(TestDatabase.dataSource()).withTable(table);
  }

  private PostgresIdempotencyStore newStore(String prefix) {
    PostgresIdempotencyStore store = builder(prefix).build();
    store.createSchemaIfAbsent();
    return store;
  }

  static IdempotencyRecord inFlight(String key, String token, long created, long expires) {
    return IdempotencyRecord.inFlight(SCOPE, key, "fp", token, created, expires);
  }

  @Nested
  class Builder {

    @Test
    void defaults() {
      PostgresIdempotencyStore store =
          PostgresIdempotencyStore.builder(TestDatabase.unchecked()).build();

      assertThat(store.table()).isEqualTo("relent_idempotency");
      assertThat(store.schema()).isEmpty();
      assertThat(store.sweepBatchSize()).isEqualTo(1000);
      assertThat(store).hasToString("PostgresIdempotencyStore{table=\"relent_idempotency\"}");
    }

    @Test
    void aTableNameThatIsNotALowercaseIdentifierIsRefused() {
      PostgresIdempotencyStore.Builder b =
          PostgresIdempotencyStore.builder(TestDatabase.unchecked());
      for (String bad :
          List.of(
              "",
              "relent-idempotency",
              "x; DROP TABLE users",
              "\"quoted\"",
              "1table",
              "Relent",
              "public.relent",
              "caf\u00e9",
              "t".repeat(49))) {
        assertThatThrownBy(() -> b.withTable(bad))
            .as(bad)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("table name must be a lowercase SQL identifier")
            .hasMessageContaining("a-z, 0-9 and _, not starting with a digit, 1 to 48 characters");
      }
      assertThatThrownBy(() -> b.withTable("x\"y")).hasMessageEndingWith(": \"x\\\"y\"");
      assertThatThrownBy(() -> b.withSchema("My Schema"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("schema name must be a lowercase SQL identifier");
      assertThatThrownBy(() -> b.withTable(null)).isInstanceOf(NullPointerException.class);
      assertThat(b.withTable("t".repeat(48)).withTable("_idem_2").build().table())
          .isEqualTo("_idem_2");
    }

    @Test
    void otherSettingsAreChecked() {
      PostgresIdempotencyStore.Builder b =
          PostgresIdempotencyStore.builder(TestDatabase.unchecked());

      assertThatThrownBy(() -> PostgresIdempotencyStore.builder(null))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("dataSource cannot be null");
      assertThatThrownBy(() -> b.withSweepBatchSize(0))
          .hasMessage("sweep batch size must be in 1..100000: 0 rows");
      assertThatThrownBy(() -> b.withSweepBatchSize(100_001))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> b.withClock(null)).isInstanceOf(NullPointerException.class);
      assertThat(b.withSweepBatchSize(1).build().sweepBatchSize()).isEqualTo(1);
    }
  }

  @Nested
  class Schema {

    @Test
    void theVersionedFileIsInTheJarAndCreateSchemaIfAbsentRunsIt() throws Exception {
      assertThat(
              PostgresIdempotencyStore.class
                  .getClassLoader()
                  .getResource(PostgresIdempotencyStore.SCHEMA_RESOURCE))
          .isNotNull();
      PostgresIdempotencyStore store = builder("schema").build();

      store.createSchemaIfAbsent();
      store.createSchemaIfAbsent(); // again: nothing happens

      assertThat(store.begin(inFlight("k", "t", T0, T0 + 1), T0)).isEmpty();
      assertThat(
              TestDatabase.count(
                  store.table(),
                  "true AND EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = '"
                      + store.table()
                      + "_expires_at_idx')"))
          .isEqualTo(1);
    }

    @Test
    void schemaSqlNamesTheConfiguredTableAndIndexOnly() {
      String sql =
          PostgresIdempotencyStore.builder(TestDatabase.unchecked())
              .withSchema("app")
              .withTable("idem")
              .build()
              .schemaSql();

      assertThat(sql)
          .startsWith("CREATE TABLE IF NOT EXISTS \"app\".\"idem\" (")
          .contains("CREATE INDEX IF NOT EXISTS \"idem_expires_at_idx\"\n    ON \"app\".\"idem\"")
          .doesNotContain("relent_idempotency")
          .doesNotContain("--");
      assertThat(sql.split(";\n")).hasSize(2);
      assertThat(PostgresIdempotencyStore.builder(TestDatabase.unchecked()).build().schemaSql())
          .startsWith("CREATE TABLE IF NOT EXISTS \"relent_idempotency\" (")
          .contains("CREATE INDEX IF NOT EXISTS \"relent_idempotency_expires_at_idx\"\n")
          .contains("    ON \"relent_idempotency\" (expires_at_millis);\n");
    }

    @Test
    void theFileAsAMigrationToolAppliesItMakesTheSameTableAsCreateSchemaIfAbsent()
        throws Exception {
      // Flyway runs the file as it is; here in a schema of its own, found by search_path.
      String byTool = TestDatabase.freshTable("by_tool");
      String byStore = TestDatabase.freshTable("by_store");
      String file;
      try (InputStream in =
          PostgresIdempotencyStore.class
              .getClassLoader()
              .getResourceAsStream(PostgresIdempotencyStore.SCHEMA_RESOURCE)) {
        file = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      try (Connection c = TestDatabase.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA " + byTool);
        s.execute("CREATE SCHEMA " + byStore);
        s.execute("SET search_path TO " + byTool);
        s.execute(file);
      }
      try {
        PostgresIdempotencyStore fromFile =
            PostgresIdempotencyStore.builder(TestDatabase.dataSource()).withSchema(byTool).build();
        PostgresIdempotencyStore created =
            PostgresIdempotencyStore.builder(TestDatabase.dataSource()).withSchema(byStore).build();
        created.createSchemaIfAbsent();

        assertThat(describe(byStore)).isEqualTo(describe(byTool)).contains("body bytea NO");
        IdempotencyRecord r = inFlight("k", "t", T0, T0 + 10);
        assertThat(fromFile.begin(r, T0)).isEmpty();
        assertThat(fromFile.find(SCOPE, "k", T0)).contains(r);
        assertThat(created.begin(r, T0)).isEmpty();
        assertThat(created.find(SCOPE, "k", T0)).contains(r);
      } finally {
        TestDatabase.execute("DROP SCHEMA " + byTool + " CASCADE");
        TestDatabase.execute("DROP SCHEMA " + byStore + " CASCADE");
      }
    }

    /** The columns, constraints and indexes of the schema's relent_idempotency, as text. */
    private String describe(String schema) throws SQLException {
      StringBuilder out = new StringBuilder();
      String[] queries = {
        "SELECT column_name || ' ' || udt_name || ' ' || is_nullable FROM"
            + " information_schema.columns WHERE table_schema = ? AND table_name ="
            + " 'relent_idempotency' ORDER BY ordinal_position",
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = (? ||"
            + " '.relent_idempotency')::regclass ORDER BY 1",
        "SELECT indexname || ' ' || regexp_replace(indexdef, ' ON [^ ]+ ', ' ON t ') FROM"
            + " pg_indexes WHERE schemaname = ? ORDER BY 1"
      };
      try (Connection c = TestDatabase.dataSource().getConnection()) {
        for (String q : queries) {
          try (PreparedStatement s = c.prepareStatement(q)) {
            s.setString(1, schema);
            try (ResultSet rs = s.executeQuery()) {
              while (rs.next()) {
                out.append(rs.getString(1)).append('\n');
              }
            }
          }
        }
      }
      return out.toString();
    }

    @Test
    void severalProcessesCreatingTheSchemaAtOnceAllSucceed() throws Exception {
      PostgresIdempotencyStore store = builder("schema_race").build();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          runs.add(pool.submit(store::createSchemaIfAbsent));
        }
        for (Future<?> f : runs) {
          f.get(30, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(store.purgeExpired(T0)).isZero();
    }
  }

  @Nested
  class Lease {

    @Test
    void aCrashedOwnersLeaseEndsAndTheNextRequestExecutes() {
      AtomicLong now = new AtomicLong(T0);
      PostgresIdempotencyStore store = newStore("lease");
      IdempotencyHandler handler =
          IdempotencyHandler.builder()
              .withStore(store)
              .withClock(now::get)
              .withInFlightTimeout(Duration.ofHours(1))
              .build();
      AtomicInteger executions = new AtomicInteger();
      IdempotencyRequest request =
          IdempotencyRequest.builder()
              .withScope("acct_1")
              .withMethod("POST")
              .withPath("/v1/payments")
              .withKey("k-1")
              .withBody(new byte[] {1})
              .build();
      // The first process claims the key, then dies inside the operation: no complete, no release.
      handler.handleAsync(
          request,
          r -> {
            executions.incrementAndGet();
            return new CompletableFuture<>(); // never completes
          });

      now.set(T0 + HOUR - 1);
      IdempotencyResponse duringTheLease =
          handler.handle(request, r -> IdempotencyResponse.builder(201).withBody("no").build());
      assertThat(duringTheLease.status()).isEqualTo(409);

      now.set(T0 + HOUR);
      IdempotencyResponse afterTheLease =
          handler.handle(
              request,
              r -> {
                executions.incrementAndGet();
                return IdempotencyResponse.builder(201).withBody("second").build();
              });

      assertThat(afterTheLease.status()).isEqualTo(201);
      assertThat(afterTheLease.isReplayed()).isFalse();
      assertThat(executions).hasValue(2);
      assertThat(handler.handle(request, r -> null).bodyUtf8()).isEqualTo("second");
    }

    @Test
    void theOwnerWhoseLeaseWasTakenOverCannotCompleteOrRelease() {
      PostgresIdempotencyStore store = newStore("lease_taken");
      IdempotencyRecord old = inFlight("k", "old", T0, T0 + HOUR);
      IdempotencyRecord taker = inFlight("k", "new", T0 + HOUR, T0 + 2 * HOUR);
      store.begin(old, T0);

      assertThat(store.begin(taker, T0 + HOUR)).isEmpty();
      assertThat(store.complete(old.complete(200, Map.of(), new byte[0], T0 + 9 * HOUR))).isFalse();
      assertThat(store.release(old)).isFalse();
      assertThat(store.find(SCOPE, "k", T0 + HOUR)).contains(taker);
      // The new owner completes normally.
      IdempotencyRecord done = taker.complete(201, Map.of(), new byte[] {1}, T0 + 3 * HOUR);
      assertThat(store.complete(done)).isTrue();
      assertThat(store.find(SCOPE, "k", T0 + 2 * HOUR)).contains(done);
    }

    @Test
    void twoStoresOnOneTableShareTheirKeys() {
      PostgresIdempotencyStore a = newStore("shared");
      PostgresIdempotencyStore b =
          PostgresIdempotencyStore.builder(TestDatabase.unchecked()).withTable(a.table()).build();
      IdempotencyRecord mine = inFlight("k", "a", T0, T0 + HOUR);

      assertThat(a.begin(mine, T0)).isEmpty();
      assertThat(b.begin(inFlight("k", "b", T0, T0 + HOUR), T0)).contains(mine);
      assertThat(b.release(mine)).isTrue();
      assertThat(a.find(SCOPE, "k", T0)).isEmpty();
    }
  }

  @Nested
  class Responses {

    @Test
    void headersKeepOrderRepeatsEmptyValuesAndNamesWithoutValues() {
      PostgresIdempotencyStore store = newStore("headers");
      Map<String, List<String>> headers = new LinkedHashMap<>();
      headers.put("Set-Cookie", List.of("a=1", "a=1", "b=2"));
      headers.put("X-None", List.of());
      headers.put("X-Empty", List.of(""));
      headers.put("x-utf8", List.of("caf\u00e9 \u2603 \ud83d\ude00"));
      headers.put("X-Quote", List.of("\"{},\\'"));
      IdempotencyRecord mine = inFlight("k", "t", T0, T0 + 1);
      store.begin(mine, T0);
      IdempotencyRecord done = mine.complete(200, headers, new byte[0], T0 + HOUR);

      assertThat(store.complete(done)).isTrue();
      IdempotencyRecord got = store.find(SCOPE, "k", T0).orElseThrow();
      assertThat(got).isEqualTo(done);
      assertThat(List.copyOf(got.headers().keySet()))
          .containsExactly("Set-Cookie", "X-None", "X-Empty", "x-utf8", "X-Quote");
    }

    @Test
    void aNulThatTextCannotHoldIsRefusedBeforeAnySql() {
      PostgresIdempotencyStore store = newStore("nul");
      IdempotencyRecord nulKey = inFlight("k\0", "t", T0, T0 + 1);
      IdempotencyRecord mine = inFlight("k", "t", T0, T0 + 1);
      store.begin(mine, T0);

      assertThatThrownBy(() -> store.begin(nulKey, T0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("key contains NUL (U+0000), which a PostgreSQL text column cannot hold");
      assertThatThrownBy(
              () ->
                  store.complete(
                      mine.complete(200, Map.of("X", List.of("a\0b")), new byte[0], T0 + 1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("a header value contains NUL");
      assertThat(store.find(SCOPE, "k\0", T0)).isEmpty();
      assertThat(store.release(nulKey)).isFalse();
      assertThat(store.find(SCOPE, "k", T0)).contains(mine);
    }
  }

  @Nested
  class Sweep {

    private void insertRows(String table, int n, long expiresAt, String prefix) {
      TestDatabase.execute(
          "INSERT INTO \""
              + table
              + "\" (scope, idem_key, fingerprint, token, state, created_at_millis,"
              + " expires_at_millis, status, header_names, header_values, body)"
              + " SELECT '"
              + SCOPE
              + "', '"
              + prefix
              + "' || i, 'fp', 't' || i, 'COMPLETED', 0, "
              + expiresAt
              + ", 200, '{}', '{}', '' FROM generate_series(1, "
              + n
              + ") AS i");
    }

    @Test
    void expiredRowsGoInBatchesOfTheConfiguredSize() {
      PostgresIdempotencyStore store = builder("sweep").withSweepBatchSize(7).build();
      store.createSchemaIfAbsent();
      insertRows(store.table(), 20, T0, "old-");
      insertRows(store.table(), 5, T0 + 1, "live-");

      assertThat(store.deleteExpiredBatch(T0, 7)).isEqualTo(7);
      assertThat(store.deleteExpiredBatch(T0, 7)).isEqualTo(7);
      assertThat(store.deleteExpiredBatch(T0, 7)).isEqualTo(6);
      assertThat(store.deleteExpiredBatch(T0, 7)).isZero();
      assertThat(TestDatabase.count(store.table(), "true")).isEqualTo(5);

      insertRows(store.table(), 250, T0 - HOUR, "older-");
      assertThat(store.purgeExpired(T0)).isEqualTo(250);
      assertThat(TestDatabase.count(store.table(), "true")).isEqualTo(5);
      assertThat(store.purgeExpired(T0 + 1)).isEqualTo(5);
    }

    @Test
    void aDefaultSweepOfManyRowsTakesSeveralBatches() {
      PostgresIdempotencyStore store = newStore("sweep_many");
      insertRows(store.table(), 2345, T0, "old-");
      insertRows(store.table(), 10, T0 + HOUR, "live-");

      assertThat(store.purgeExpired(T0)).isEqualTo(2345);
      assertThat(TestDatabase.count(store.table(), "true")).isEqualTo(10);
    }

    @Test
    void sweepExpiredJudgesByTheBuildersClock() {
      AtomicLong now = new AtomicLong(T0);
      PostgresIdempotencyStore store = builder("sweep_clock").withClock(now::get).build();
      store.createSchemaIfAbsent();
      insertRows(store.table(), 3, T0 + 10, "k-");

      assertThat(store.sweepExpired()).isZero();
      now.set(T0 + 10);
      assertThat(store.sweepExpired()).isEqualTo(3);
    }

    @Test
    void aRowThatAnotherTransactionHoldsIsSkippedNotWaitedFor() throws Exception {
      PostgresIdempotencyStore store = newStore("sweep_locked");
      insertRows(store.table(), 10, T0, "old-");
      try (Connection holder = TestDatabase.dataSource().getConnection()) {
        holder.setAutoCommit(false);
        try (Statement s = holder.createStatement()) {
          s.execute("SELECT 1 FROM \"" + store.table() + "\" WHERE idem_key = 'old-3' FOR UPDATE");
        }

        assertThat(store.purgeExpired(T0)).isEqualTo(9);
        holder.rollback();
      }
      assertThat(store.purgeExpired(T0)).isEqualTo(1);
    }

    @Test
    void theBatchSizeIsChecked() {
      PostgresIdempotencyStore store =
          PostgresIdempotencyStore.builder(TestDatabase.unchecked()).build();

      assertThatThrownBy(() -> store.deleteExpiredBatch(T0, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("sweep batch size must be in 1..100000: 0 rows");
    }
  }

  @Nested
  class Failures {

    private static final String PASSWORD = "pw-never-in-a-message-4711";

    private String everything(Throwable t) {
      StringWriter out = new StringWriter();
      t.printStackTrace(new PrintWriter(out));
      return out + " " + t;
    }

    @Test
    void noServerGivesAClearExceptionWithoutThePassword() throws Exception {
      int closedPort;
      try (ServerSocket s = new ServerSocket(0)) {
        closedPort = s.getLocalPort();
      }
      PGSimpleDataSource ds = TestDatabase.unchecked();
      ds.setPortNumbers(new int[] {closedPort});
      ds.setPassword(PASSWORD);
      PostgresIdempotencyStore store = PostgresIdempotencyStore.builder(ds).build();

      assertThatThrownBy(() -> store.begin(inFlight("k", "t", T0, T0 + 1), T0))
          .isInstanceOf(PostgresStoreException.class)
          .hasMessageStartingWith(
              "PostgreSQL idempotency store could not claim a key in table"
                  + " \"relent_idempotency\": ")
          .hasMessageContaining("(SQLSTATE 08001)")
          .hasMessageEndingWith(
              "Check that PostgreSQL is running and that the DataSource's host, port and"
                  + " database are right.")
          .satisfies(e -> assertThat(((PostgresStoreException) e).sqlState()).isEqualTo("08001"))
          .satisfies(e -> assertThat(everything(e)).doesNotContain(PASSWORD))
          .hasCauseInstanceOf(SQLException.class);
    }

    @Test
    void aMissingDatabaseIsNamed() {
      PGSimpleDataSource ds = TestDatabase.unchecked();
      ds.setDatabaseName("relent_no_such_db");
      ds.setPassword(PASSWORD);
      PostgresIdempotencyStore store = PostgresIdempotencyStore.builder(ds).build();

      assertThatThrownBy(() -> store.find(SCOPE, "k", T0))
          .isInstanceOf(PostgresStoreException.class)
          .hasMessageContaining("could not read a record")
          .hasMessageContaining("relent_no_such_db")
          .hasMessageContaining("(SQLSTATE 3D000)")
          .hasMessageEndingWith("Check the DataSource's database name.")
          .satisfies(e -> assertThat(everything(e)).doesNotContain(PASSWORD));
    }

    @Test
    void aPasswordThatAPoolPutIntoItsMessageIsMasked() {
      DataSource leaky =
          new FailingDataSource(
              new SQLException(
                  "Pool could not connect to jdbc:postgresql://db:5432/app?user=app&password="
                      + PASSWORD
                      + "&ssl=true",
                  "08001",
                  new SQLException("password: '" + PASSWORD + "' refused", "28P01")));
      PostgresIdempotencyStore store = PostgresIdempotencyStore.builder(leaky).build();

      assertThatThrownBy(() -> store.release(inFlight("k", "t", T0, T0 + 1)))
          .isInstanceOf(PostgresStoreException.class)
          .hasMessageContaining("could not release a key")
          .hasMessageContaining("?user=app&password=***&ssl=true")
          .satisfies(e -> assertThat(everything(e)).doesNotContain(PASSWORD))
          .satisfies(
              e ->
                  assertThat(e.getCause().getCause())
                      .isInstanceOf(SQLException.class)
                      .hasMessage("password: *** refused"));
    }

    @Test
    void aMissingTableSaysHowToCreateIt() {
      PostgresIdempotencyStore store =
          PostgresIdempotencyStore.builder(TestDatabase.dataSource())
              .withTable("relent_no_such_table")
              .build();

      assertThatThrownBy(() -> store.begin(inFlight("k", "t", T0, T0 + 1), T0))
          .isInstanceOf(PostgresStoreException.class)
          .hasMessageContaining("(SQLSTATE 42P01)")
          .hasMessageEndingWith(
              "Create the table: apply dev/relent/postgres/V1__relent_idempotency.sql with your"
                  + " migration tool, or call createSchemaIfAbsent().");
    }

    @Test
    void aConnectionWithoutAutocommitGetsItsWorkCommitted() throws Exception {
      PostgresIdempotencyStore reference = newStore("no_autocommit");
      try (TestPool manual = new TestPool(TestDatabase.dataSource(), 1)) {
        DataSource noAutocommit = new AutocommitOff(manual);
        PostgresIdempotencyStore store =
            PostgresIdempotencyStore.builder(noAutocommit).withTable(reference.table()).build();
        IdempotencyRecord mine = inFlight("k", "t", T0, T0 + 10);

        assertThat(store.begin(mine, T0)).isEmpty();
        assertThat(reference.find(SCOPE, "k", T0)).contains(mine);
        assertThat(store.release(mine)).isTrue();
        assertThat(reference.find(SCOPE, "k", T0)).isEmpty();
      }
    }
  }

  /** A DataSource whose every connection comes with autocommit off, as some pools configure. */
  static final class AutocommitOff extends FailingDataSource {
    private final DataSource delegate;

    AutocommitOff(DataSource delegate) {
      super(null);
      this.delegate = delegate;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = delegate.getConnection();
      c.setAutoCommit(false);
      return c;
    }
  }
}
