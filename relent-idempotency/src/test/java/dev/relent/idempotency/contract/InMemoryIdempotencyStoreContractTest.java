package dev.relent.idempotency.contract;

import dev.relent.idempotency.InMemoryIdempotencyStore;
import dev.relent.idempotency.spi.IdempotencyStore;

/**
 * Runs the store contract against the in-memory store. It lives in the contract's package because
 * on the module path only the packages of the selected test classes are opened to JUnit.
 */
class InMemoryIdempotencyStoreContractTest extends IdempotencyStoreContract {

  @Override
  protected IdempotencyStore newStore() {
    return new InMemoryIdempotencyStore();
  }
}
