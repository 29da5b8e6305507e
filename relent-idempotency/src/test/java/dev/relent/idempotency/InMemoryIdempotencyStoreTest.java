package dev.relent.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.idempotency.spi.IdempotencyStore;
import dev.relent.idempotency.spi.IdempotencyStoreContract;
import org.junit.jupiter.api.Test;

class InMemoryIdempotencyStoreTest extends IdempotencyStoreContract {

  @Override
  protected IdempotencyStore newStore() {
    return new InMemoryIdempotencyStore();
  }

  private InMemoryIdempotencyStore memory() {
    return (InMemoryIdempotencyStore) store;
  }

  @Test
  void findDropsAnExpiredRecord() {
    store.begin(IdempotencyRecord.inFlight(SCOPE_A, "k", "f", "t", 0, 10), 0);

    assertThat(store.find(SCOPE_A, "k", 10)).isEmpty();
    assertThat(memory().size()).isZero();
  }

  @Test
  void beginSweepsExpiredRecordsEverySoOften() {
    for (int i = 0; i < InMemoryIdempotencyStore.SWEEP_EVERY - 1; i++) {
      store.begin(IdempotencyRecord.inFlight(SCOPE_A, "k" + i, "f", "t", 0, 10), 0);
    }
    assertThat(memory().size()).isEqualTo(InMemoryIdempotencyStore.SWEEP_EVERY - 1);

    // The next begin is the sweeping one: everything before it has expired at 10.
    store.begin(IdempotencyRecord.inFlight(SCOPE_A, "last", "f", "t", 10, 20), 10);

    assertThat(memory().size()).isEqualTo(1);
    assertThat(store.find(SCOPE_A, "last", 10)).isPresent();
  }

  @Test
  void toStringCountsRecords() {
    store.begin(IdempotencyRecord.inFlight(SCOPE_A, "k", "f", "t", 0, 10), 0);

    assertThat(store).hasToString("InMemoryIdempotencyStore{records=1}");
  }
}
