package dev.relent.postgres;

import dev.relent.idempotency.contract.IdempotencyStoreContract;
import dev.relent.idempotency.spi.IdempotencyStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The behaviour every store shares, against the real PostgreSQL; each test has its own table. */
class PostgresIdempotencyStoreContractTest extends IdempotencyStoreContract {

  private static TestPool pool;
  private String table;

  @BeforeAll
  static void openPool() throws Exception {
    // As many connections as the contract's race has threads, so that none of them queues.
    pool = new TestPool(TestDatabase.dataSource(), 32);
  }

  @AfterAll
  static void closePool() throws Exception {
    if (pool != null) {
      pool.close();
    }
  }

  @Override
  protected IdempotencyStore newStore() {
    table = TestDatabase.freshTable("contract");
    PostgresIdempotencyStore s = PostgresIdempotencyStore.builder(pool).withTable(table).build();
    s.createSchemaIfAbsent();
    return s;
  }

  @AfterEach
  void dropTable() {
    TestDatabase.drop(table);
  }
}
