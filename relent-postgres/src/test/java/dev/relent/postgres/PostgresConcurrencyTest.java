package dev.relent.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.idempotency.IdempotencyHandler;
import dev.relent.idempotency.IdempotencyRequest;
import dev.relent.idempotency.IdempotencyResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * 1000 duplicates of one request, on 32 threads released together, through two handlers whose
 * stores have pools of their own, as two server processes would: the operation executes exactly
 * once. Time is virtual and stands still; nothing sleeps.
 */
class PostgresConcurrencyTest {

  static final int DUPLICATES = 1000;
  static final int THREADS = 32;
  static final long T0 = 1_700_000_000_000L;
  static final byte[] ORDER = "{\"amount\":100}".getBytes(StandardCharsets.UTF_8);

  private static TestPool poolA;
  private static TestPool poolB;

  private final AtomicLong now = new AtomicLong(T0);
  private final AtomicInteger executions = new AtomicInteger();
  private String table;
  private IdempotencyHandler processA;
  private IdempotencyHandler processB;

  @BeforeAll
  static void openPools() throws Exception {
    poolA = new TestPool(TestDatabase.dataSource(), THREADS / 2);
    poolB = new TestPool(TestDatabase.dataSource(), THREADS / 2);
  }

  @AfterAll
  static void closePools() throws Exception {
    if (poolA != null) {
      poolA.close();
    }
    if (poolB != null) {
      poolB.close();
    }
  }

  @BeforeEach
  void createTable() {
    table = TestDatabase.freshTable("race");
    PostgresIdempotencyStore a = PostgresIdempotencyStore.builder(poolA).withTable(table).build();
    PostgresIdempotencyStore b = PostgresIdempotencyStore.builder(poolB).withTable(table).build();
    a.createSchemaIfAbsent();
    processA = IdempotencyHandler.builder().withStore(a).withClock(now::get).build();
    processB = IdempotencyHandler.builder().withStore(b).withClock(now::get).build();
  }

  @AfterEach
  void dropTable() {
    TestDatabase.drop(table);
  }

  static IdempotencyRequest payment() {
    return IdempotencyRequest.builder()
        .withScope("acct_1")
        .withMethod("POST")
        .withPath("/v1/payments")
        .withKey("8e03978e-40d5-43e8-bc93-6894a57f9324")
        .withBody(ORDER)
        .build();
  }

  /** Runs {@code call(i)} for i in 0..DUPLICATES-1 on THREADS threads, all released together. */
  static List<IdempotencyResponse> race(IntFunction<IdempotencyResponse> call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<IdempotencyResponse>> futures = new ArrayList<>();
      for (int i = 0; i < DUPLICATES; i++) {
        int id = i;
        futures.add(
            pool.submit(
                () -> {
                  if (!go.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("start gate never opened");
                  }
                  return call.apply(id);
                }));
      }
      go.countDown();
      List<IdempotencyResponse> responses = new ArrayList<>();
      for (Future<IdempotencyResponse> f : futures) {
        responses.add(f.get(120, TimeUnit.SECONDS));
      }
      return responses;
    } finally {
      pool.shutdownNow();
    }
  }

  private IdempotencyHandler processFor(int id) {
    return id % 2 == 0 ? processA : processB;
  }

  @Test
  void whileTheFirstRunsEveryDuplicateGets409() throws Exception {
    CountDownLatch othersAnswered = new CountDownLatch(DUPLICATES - 1);

    List<IdempotencyResponse> responses =
        race(
            id -> {
              IdempotencyResponse r =
                  processFor(id)
                      .handle(
                          payment(),
                          req -> {
                            executions.incrementAndGet();
                            // Finish after every duplicate has its answer: all met the claim.
                            awaitQuietly(othersAnswered);
                            return IdempotencyResponse.builder(201).withBody("pay_1").build();
                          });
              if (r.status() == 409) {
                othersAnswered.countDown();
              }
              return r;
            });

    assertThat(executions).hasValue(1);
    assertThat(responses).filteredOn(r -> r.status() == 201).hasSize(1);
    assertThat(responses).filteredOn(r -> r.status() == 409).hasSize(DUPLICATES - 1);
    assertThat(TestDatabase.count(table, "true")).isEqualTo(1);
  }

  @Test
  void aFastOperationRunsOnceAndEveryDuplicateGets409OrTheStoredResponse() throws Exception {
    List<IdempotencyResponse> responses =
        race(
            id ->
                processFor(id)
                    .handle(
                        payment(),
                        req -> {
                          int n = executions.incrementAndGet();
                          return IdempotencyResponse.builder(201)
                              .withHeader("Location", "/v1/payments/pay_" + n)
                              .withBody("pay_" + n)
                              .build();
                        }));

    assertThat(executions).hasValue(1);
    int originals = 0;
    int replays = 0;
    for (IdempotencyResponse r : responses) {
      if (r.status() == 409) {
        continue;
      }
      assertThat(r.status()).isEqualTo(201);
      assertThat(r.bodyUtf8()).isEqualTo("pay_1");
      assertThat(r.header("Location")).contains("/v1/payments/pay_1");
      if (r.isReplayed()) {
        replays++;
      } else {
        originals++;
      }
    }
    assertThat(originals).isEqualTo(1);
    assertThat(replays + originals + count409(responses)).isEqualTo(DUPLICATES);
    // Once the first finished, both processes replay its response.
    IdempotencyResponse later = processB.handle(payment(), req -> null);
    assertThat(later.isReplayed()).isTrue();
    assertThat(later.bodyUtf8()).isEqualTo("pay_1");
  }

  @Test
  void distinctKeysAllExecute() throws Exception {
    List<IdempotencyResponse> responses =
        race(
            id ->
                processFor(id)
                    .handle(
                        IdempotencyRequest.builder()
                            .withScope("acct_1")
                            .withMethod("POST")
                            .withPath("/v1/payments")
                            .withKey("key-" + id)
                            .withBody(ORDER)
                            .build(),
                        req -> {
                          executions.incrementAndGet();
                          return IdempotencyResponse.builder(201).build();
                        }));

    assertThat(executions).hasValue(DUPLICATES);
    assertThat(responses).allSatisfy(r -> assertThat(r.status()).isEqualTo(201));
    assertThat(TestDatabase.count(table, "state = 'COMPLETED'")).isEqualTo(DUPLICATES);
  }

  @Test
  void underSerializableIsolationTheDuplicatesStillRunTheOperationOnce() throws Exception {
    // A database whose default isolation is SERIALIZABLE: a claim that meets a row committed after
    // its snapshot fails with a serialization failure, which the store retries.
    PGSimpleDataSource serializable = TestDatabase.unchecked();
    serializable.setOptions("-c default_transaction_isolation=serializable");
    try (TestPool strict = new TestPool(serializable, THREADS)) {
      IdempotencyHandler handler =
          IdempotencyHandler.builder()
              .withStore(PostgresIdempotencyStore.builder(strict).withTable(table).build())
              .withClock(now::get)
              .build();

      List<IdempotencyResponse> responses =
          race(
              id ->
                  handler.handle(
                      payment(),
                      req -> {
                        executions.incrementAndGet();
                        return IdempotencyResponse.builder(201).withBody("pay_1").build();
                      }));

      assertThat(executions).hasValue(1);
      assertThat(responses)
          .allSatisfy(r -> assertThat(r.status()).isIn(201, 409))
          .filteredOn(r -> r.status() == 201 && !r.isReplayed())
          .hasSize(1);
    }
  }

  private static long count409(List<IdempotencyResponse> responses) {
    return responses.stream().filter(r -> r.status() == 409).count();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new AssertionError("the duplicates never all answered");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
