package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.CircuitBreakerState;
import dev.relent.spi.CircuitBreakerState.Change;
import dev.relent.spi.CircuitBreakerState.Config;
import dev.relent.spi.CircuitBreakerState.Phase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RedisCircuitBreakerState on Redis's own clock (the contract test covers the rules on virtual
 * time): open periods of an hour, or of one microsecond, which any two round trips outlast, so no
 * result depends on timing.
 */
class RedisCircuitBreakerStateTest {
  private static final long HOUR = 3_600_000_000_000L;

  private RelentRedis redis;
  private final List<String> names = new ArrayList<>();

  @BeforeEach
  void connect() {
    redis = LocalRedis.connect();
  }

  @AfterEach
  void deleteTheKeys() {
    for (String name : names) {
      redis.commands().del(LocalRedis.bytes(RedisCircuitBreakerState.keyOf(name)));
    }
    redis.close();
  }

  private RedisCircuitBreakerState newState() {
    String name = LocalRedis.uniqueName("breaker");
    names.add(name);
    return redis.circuitBreakerState(name);
  }

  @Test
  void failuresOpenItForEveryProcessForTheOpenDurationOnRedisClock() {
    Config config = new Config(4, 0, 0, 4, 50.0, HOUR, 1);
    RedisCircuitBreakerState state = newState();
    assertThat(state.onFailure(0, config)).isNull();
    assertThat(state.onSuccess(0, config)).isNull();
    assertThat(state.onSuccess(0, config)).isNull();
    assertThat(state.onFailure(Long.MAX_VALUE, config)).isEqualTo(Change.CLOSED_TO_OPEN);

    // Another process, as far as Redis knows, with a ticker of its own.
    CircuitBreakerState other = redis.circuitBreakerState(state.name());
    assertThat(other.tryAcquirePermission(123, config)).isBetween(HOUR - 60_000_000_000L, HOUR);
    assertThat(other.snapshot(0, config).state()).isEqualTo(Phase.OPEN);
    long ttl =
        redis.commands().pttl(LocalRedis.bytes(RedisCircuitBreakerState.keyOf(state.name())));
    assertThat(ttl).isBetween(86_399_000L, 86_400_000L); // a day: more than 3 x the hour
  }

  @Test
  void aMicrosecondOpenPeriodIsOverByTheNextRoundTrip() {
    Config config = new Config(2, 0, 0, 1, 100.0, 1_000, 1);
    RedisCircuitBreakerState state = newState();
    assertThat(state.onFailure(0, config)).isEqualTo(Change.CLOSED_TO_OPEN);

    assertThat(state.tryAcquirePermission(0, config))
        .isEqualTo(CircuitBreakerState.PERMITTED_AND_HALF_OPENED);
    assertThat(state.tryAcquirePermission(0, config)).isEqualTo(1_000); // the one probe is out
    assertThat(state.onSuccess(0, config)).isEqualTo(Change.HALF_OPEN_TO_CLOSED);
    assertThat(state.snapshot(0, config).calls()).isZero();
  }

  @Test
  void aTimeWindowOnRedisClockCountsEveryProcess() {
    Config config = new Config(0, HOUR, 4, 10, 50.0, HOUR, 1);
    RedisCircuitBreakerState first = newState();
    CircuitBreakerState second = redis.circuitBreakerState(first.name());
    first.onFailure(0, config);
    second.onSuccess(-5, config);
    second.onSuccess(Long.MIN_VALUE, config);

    CircuitBreakerState.Snapshot snapshot = first.snapshot(0, config);
    assertThat(snapshot.calls()).isEqualTo(3);
    assertThat(snapshot.failures()).isEqualTo(1);
    assertThatThrownBy(() -> first.snapshot(0, new Config(5, 0, 0, 1, 50.0, HOUR, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(RedisCircuitBreakerState.keyOf(first.name()));
    assertThat(RedisCircuitBreakerState.keyOf("payments-api"))
        .isEqualTo("relent:{payments-api}:breaker");
  }
}
