package dev.relent.redis;

import dev.relent.idempotency.contract.IdempotencyStoreContract;
import dev.relent.idempotency.spi.IdempotencyStore;
import org.junit.jupiter.api.AfterEach;

/**
 * Runs relent-idempotency's store contract against Redis, one namespace per test, deleted after it.
 * Times are an hour after the real time, so that the TTL Redis sets at each record's expiry (by its
 * own clock) never deletes a record the test still expects, however slow the machine.
 */
class RedisIdempotencyStoreContractTest extends IdempotencyStoreContract {
  private RelentRedis redis;
  private String namespace;

  @Override
  protected IdempotencyStore newStore() {
    redis = LocalRedis.connect();
    namespace = LocalRedis.uniqueName("idem");
    return redis.idempotencyStore(namespace);
  }

  @Override
  protected long base() {
    return System.currentTimeMillis() + 3_600_000L;
  }

  @AfterEach
  void deleteTheNamespace() {
    if (redis != null) {
      LocalRedis.deleteKeys(redis, "relent:idem:" + namespace + ":*");
      redis.close();
    }
  }
}
