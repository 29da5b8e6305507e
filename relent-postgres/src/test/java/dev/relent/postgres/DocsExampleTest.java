package dev.relent.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.idempotency.IdempotencyHandler;
import dev.relent.idempotency.IdempotencyRequest;
import dev.relent.idempotency.IdempotencyResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Compiles and runs the PostgreSQL example of {@code docs/idempotency.md}; keep the two equal. */
class DocsExampleTest {

  // --- begin example (docs/idempotency.md) ---
  private static final System.Logger LOG = System.getLogger("payments.idempotency");

  /** One handler for every server process: they share the keys through the table. */
  static IdempotencyHandler newHandler(DataSource dataSource) {
    PostgresIdempotencyStore store =
        PostgresIdempotencyStore.builder(dataSource) // your pool, e.g. HikariCP
            .withTable("relent_idempotency") // the default
            .build();
    store.createSchemaIfAbsent(); // or apply V1__relent_idempotency.sql with Flyway or Liquibase
    return IdempotencyHandler.builder()
        .withStore(store)
        .withExpiry(Duration.ofHours(24)) // how long a response is replayed
        .withInFlightTimeout(Duration.ofMinutes(10)) // the lease: longer than the slowest call
        .build();
  }

  /** Deletes expired rows every ten minutes; reads ignore them anyway, so this frees space. */
  static void startSweeping(PostgresIdempotencyStore store, ScheduledExecutorService scheduler) {
    scheduler.scheduleWithFixedDelay(() -> sweep(store), 10, 10, TimeUnit.MINUTES);
  }

  static void sweep(PostgresIdempotencyStore store) {
    try {
      long deleted = store.sweepExpired(); // 1000 rows per statement
      LOG.log(Level.DEBUG, "deleted {0} expired idempotency records", deleted);
    } catch (PostgresStoreException e) {
      // Caught: an exception would cancel the schedule. The next run tries again.
      LOG.log(Level.WARNING, "idempotency sweep failed: {0}", e.getMessage());
    }
  }

  // --- end example ---

  private String schema;
  private PGSimpleDataSource dataSource;

  @BeforeEach
  void createSchema() {
    // The default table name, in a schema of this test's own.
    schema = TestDatabase.freshTable("docs");
    TestDatabase.dataSource();
    TestDatabase.execute("CREATE SCHEMA " + schema);
    dataSource = TestDatabase.unchecked();
    dataSource.setCurrentSchema(schema);
  }

  @AfterEach
  void dropSchema() {
    TestDatabase.execute("DROP SCHEMA " + schema + " CASCADE");
  }

  @Test
  void theDocumentedHandlerChargesOncePerKeyAcrossProcesses() {
    AtomicInteger charges = new AtomicInteger();
    IdempotencyHandler processA = newHandler(dataSource);
    IdempotencyHandler processB = newHandler(dataSource); // the table exists now: left alone
    IdempotencyRequest request =
        IdempotencyRequest.builder()
            .withScope("acct_1")
            .withMethod("POST")
            .withPath("/v1/payments")
            .withKey("\"key-1\"")
            .withBody("{\"amount\":100}".getBytes(StandardCharsets.UTF_8))
            .build();

    IdempotencyResponse first =
        processA.handle(
            request,
            r ->
                IdempotencyResponse.builder(201)
                    .withBody("pay_" + charges.incrementAndGet())
                    .build());
    IdempotencyResponse retry = processB.handle(request, r -> null);

    assertThat(first.bodyUtf8()).isEqualTo("pay_1");
    assertThat(retry.isReplayed()).isTrue();
    assertThat(retry.bodyUtf8()).isEqualTo("pay_1");
    assertThat(charges).hasValue(1);
    assertThat(TestDatabase.count(schema + "\".\"relent_idempotency", "true")).isEqualTo(1);
  }

  @Test
  void theDocumentedSweepIsScheduledAndSurvivesAFailure() {
    PostgresIdempotencyStore store = PostgresIdempotencyStore.builder(dataSource).build();
    store.createSchemaIfAbsent();
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    try {
      startSweeping(store, scheduler);
      assertThat(scheduler.getQueue()).hasSize(1);
    } finally {
      scheduler.shutdownNow();
    }
    sweep(store); // nothing expired: deletes nothing
    PGSimpleDataSource down = TestDatabase.unchecked();
    down.setPortNumbers(new int[] {1});
    List<LogRecord> logged = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            logged.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    // System.getLogger writes to java.util.logging here; keep the warning out of the build log.
    Logger jul = Logger.getLogger("payments.idempotency");
    jul.setUseParentHandlers(false);
    jul.addHandler(capture);
    try {
      sweep(PostgresIdempotencyStore.builder(down).build()); // logs, does not throw
    } finally {
      jul.removeHandler(capture);
      jul.setUseParentHandlers(true);
    }
    assertThat(logged)
        .singleElement()
        .satisfies(r -> assertThat(r.getLevel()).isEqualTo(java.util.logging.Level.WARNING))
        .satisfies(
            r ->
                assertThat(r.getParameters()[0].toString())
                    .startsWith(
                        "PostgreSQL idempotency store could not delete expired records in table"));
  }

  @Test
  void theDocsShowExactlyTheCodeCompiledHere() throws IOException {
    // Surefire runs in the module directory.
    String source =
        Files.readString(
            Path.of("src/test/java/dev/relent/postgres/DocsExampleTest.java"),
            StandardCharsets.UTF_8);
    String docs = Files.readString(Path.of("../docs/idempotency.md"), StandardCharsets.UTF_8);

    assertThat(docs).contains("```java\n" + between(source, "// --- begin example") + "```\n");
  }

  /** The lines after the begin marker up to the end marker, without their common indent. */
  private static String between(String source, String begin) {
    int start = source.indexOf('\n', source.indexOf(begin)) + 1;
    int end = source.lastIndexOf('\n', source.indexOf("// --- end", start));
    String block = source.substring(start, end).stripTrailing();
    int indent =
        block
            .lines()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return block
            .lines()
            .map(l -> l.isBlank() ? "" : l.substring(indent))
            .collect(Collectors.joining("\n"))
        + "\n";
  }
}
