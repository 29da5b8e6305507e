package dev.relent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.guard.Pacer;
import dev.relent.spi.PacerState;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Relent's pacer and Bucket4j's bucket get the same limit in RedisLimiterBenchmark. Checked on
 * in-memory states with the same configuration objects, so no Redis is needed; no timing.
 */
class RedisLimitersTest {

  @ParameterizedTest
  @EnumSource(RedisLimiters.Limit.class)
  void bothLibrariesGetTheSameRateAndBurst(RedisLimiters.Limit limit) {
    Pacer pacer =
        Pacer.builder()
            .withRate(limit.perSecond, Duration.ofSeconds(1))
            .withBurst(limit.burst)
            .withState(PacerState.inMemory())
            .build();
    BucketConfiguration configuration = limit.bucket();

    assertThat(configuration.getBandwidths()).hasSize(1);
    Bandwidth bandwidth = configuration.getBandwidths()[0];
    assertThat(bandwidth.getCapacity()).isEqualTo(limit.burst);
    assertThat(bandwidth.getInitialTokens()).isEqualTo(limit.burst);
    assertThat(bandwidth.getRefillTokens()).isEqualTo(limit.perSecond);
    assertThat(bandwidth.getRefillPeriodNanos()).isEqualTo(1_000_000_000L);
    assertThat(pacer.burst()).isEqualTo(limit.burst);
    assertThat(pacer.interval().toNanos())
        .isEqualTo((1_000_000_000L + limit.perSecond - 1) / limit.perSecond);
  }

  @Test
  void atTheRefusingLimitBothAllowTheBurstThenRefuseWithTheSameWait() {
    RedisLimiters.Limit limit = RedisLimiters.Limit.REFUSING;
    // Bucket4j's in-memory bucket on a frozen clock, Relent's pacer at one instant.
    Bucket bucket =
        Bucket.builder()
            .addLimit(limit.bucket().getBandwidths()[0])
            .withCustomTimePrecision(new FrozenTime())
            .build();
    Pacer pacer =
        Pacer.builder()
            .withRate(limit.perSecond, Duration.ofSeconds(1))
            .withBurst(limit.burst)
            .build();
    long now = 5_000_000_000L;
    for (int i = 0; i < limit.burst; i++) {
      assertThat(pacer.tryAcquire(now, 0)).isZero();
      assertThat(bucket.tryConsume(1)).isTrue();
    }
    long relentWait = -pacer.tryAcquire(now, 0);
    long bucket4jWait = bucket.tryConsumeAndReturnRemaining(1).getNanosToWaitForRefill();
    assertThat(relentWait).isEqualTo(1_000_000L);
    assertThat(bucket4jWait).isEqualTo(1_000_000L);
  }

  @Test
  void anUnknownLibraryIsRefusedByName() {
    assertThatThrownBy(
            () -> RedisLimiters.connect("guava", RedisLimiters.Limit.OPEN, "redis://127.0.0.1:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("library must be one of [relent, bucket4j]: guava");
  }

  @Test
  void commandStatsAreReadPerCommandAndDividedByDecisions() {
    String info =
        "# Commandstats\r\n"
            + "cmdstat_get:calls=20,usec=3,usec_per_call=3.00,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_eval:calls=10,usec=99,usec_per_call=9.90,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_config|resetstat:calls=1,usec=109,usec_per_call=109.00\r\n";
    Map<String, Long> calls = RedisRoundTrips.commandCalls(info, "calls");
    Map<String, Long> micros = RedisRoundTrips.commandCalls(info, "usec");
    assertThat(calls).containsEntry("get", 20L).containsEntry("eval", 10L).hasSize(3);
    assertThat(micros).containsEntry("get", 3L).containsEntry("eval", 99L);
    calls.remove("config|resetstat");
    String perDecision = RedisRoundTrips.perDecision(calls, 8);
    assertThat(perDecision).isEqualTo("eval 1.25, get 2.50");
    assertThat(RedisRoundTrips.withMicros(perDecision, calls, micros))
        .isEqualTo("eval 1.25, get 2.50; per call: eval 9.9 µs, get 0.2 µs");
  }

  /** A Bucket4j clock that never moves. */
  private static final class FrozenTime implements io.github.bucket4j.TimeMeter {
    @Override
    public long currentTimeNanos() {
      return 5_000_000_000L;
    }

    @Override
    public boolean isWallClockBased() {
      return false;
    }
  }
}
