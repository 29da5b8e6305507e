package dev.relent.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.idempotency.spi.IdempotencyRecord;
import org.junit.jupiter.api.Test;

/**
 * What only the in-memory store does; the shared behaviour is in {@code
 * InMemoryIdempotencyStoreContractTest}.
 */
class InMemoryIdempotencyStoreTest {

  static final String SCOPE = "a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3";

  final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

  @Test
  void findDropsAnExpiredRecord() {
    store.begin(IdempotencyRecord.inFlight(SCOPE, "k", "f", "t", 0, 10), 0);

    assertThat(store.find(SCOPE, "k", 10)).isEmpty();
    assertThat(store.size()).isZero();
  }

  @Test
  void beginSweepsExpiredRecordsEverySoOften() {
    for (int i = 0; i < InMemoryIdempotencyStore.SWEEP_EVERY - 1; i++) {
      store.begin(IdempotencyRecord.inFlight(SCOPE, "k" + i, "f", "t", 0, 10), 0);
    }
    assertThat(store.size()).isEqualTo(InMemoryIdempotencyStore.SWEEP_EVERY - 1);

    // The next begin is the sweeping one: everything before it has expired at 10.
    store.begin(IdempotencyRecord.inFlight(SCOPE, "last", "f", "t", 10, 20), 10);

    assertThat(store.size()).isEqualTo(1);
    assertThat(store.find(SCOPE, "last", 10)).isPresent();
  }

  @Test
  void toStringCountsRecords() {
    store.begin(IdempotencyRecord.inFlight(SCOPE, "k", "f", "t", 0, 10), 0);

    assertThat(store).hasToString("InMemoryIdempotencyStore{records=1}");
  }
}
