package dev.relent.redis;

import dev.relent.spi.CircuitBreakerState;
import dev.relent.spi.CircuitBreakerStateContract;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * Runs relent-core's circuit breaker state contract (from its test-jar) against Redis. The contract
 * works on virtual time, so the states here take the caller's readings instead of Redis's clock
 * (the script's only difference between the two is where {@code now} comes from); one key per
 * state, deleted after each test.
 */
class RedisCircuitBreakerStateContractTest extends CircuitBreakerStateContract {
  private static RelentRedis redis;
  private final List<String> names = new ArrayList<>();

  @BeforeAll
  static void connect() {
    redis = LocalRedis.connect();
  }

  @AfterAll
  static void disconnect() {
    redis.close();
  }

  @Override
  protected CircuitBreakerState newState() {
    String name = LocalRedis.uniqueName("breaker");
    synchronized (names) {
      names.add(name);
    }
    return new RedisCircuitBreakerState(redis, name, true);
  }

  @AfterEach
  void deleteTheKeys() {
    synchronized (names) {
      byte[][] keys = new byte[names.size()][];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = LocalRedis.bytes(RedisCircuitBreakerState.keyOf(names.get(i)));
      }
      if (keys.length > 0) {
        redis.commands().del(keys);
      }
      names.clear();
    }
  }
}
