package dev.relent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.RelentCounters;
import dev.relent.RelentExecutor;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.time.Ticker;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every benchmark's setup is configured as documented and makes exactly the attempts its scenario
 * asks for. No timing is asserted here: the benchmarks measure, bench/run.sh runs them.
 */
class PipelinesTest {
  private static final int CALLS = 300;

  static Stream<Arguments> setups() {
    return Pipelines.LIBRARIES.stream()
        .flatMap(
            library ->
                Pipelines.PIPELINES.stream()
                    .flatMap(
                        pipeline ->
                            Stream.of(
                                Arguments.of(library, pipeline, false),
                                Arguments.of(library, pipeline, true))));
  }

  @ParameterizedTest(name = "{0} {1} failOnce={2}")
  @MethodSource("setups")
  void syncCallsSucceedWithTheExpectedAttempts(String library, String pipeline, boolean failOnce)
      throws Throwable {
    Operation op = new Operation(failOnce);
    Pipelines.Calls calls = Pipelines.build(library, pipeline, op);
    for (int i = 0; i < CALLS; i++) {
      assertThat(calls.sync().call()).isEqualTo("ok");
    }
    assertThat(op.attempts()).isEqualTo(failOnce ? 2L * CALLS : CALLS);
    assertGuardsIdle(library, calls, failOnce);
  }

  @ParameterizedTest(name = "{0} {1} failOnce={2}")
  @MethodSource("setups")
  void asyncCallsCompleteAtOnceWithTheExpectedAttempts(
      String library, String pipeline, boolean failOnce) {
    Operation op = new Operation(failOnce);
    Pipelines.Calls calls = Pipelines.build(library, pipeline, op);
    for (int i = 0; i < CALLS; i++) {
      // Zero waits run inline: the future is complete when the call returns.
      assertThat(calls.async().call()).isCompletedWithValue("ok");
    }
    assertThat(op.attempts()).isEqualTo(failOnce ? 2L * CALLS : CALLS);
    assertGuardsIdle(library, calls, failOnce);
  }

  private static void assertGuardsIdle(String library, Pipelines.Calls calls, boolean failOnce) {
    switch (library) {
      case "relent" -> {
        @SuppressWarnings("unchecked")
        RelentCounters counters = ((RelentExecutor<String>) calls.parts().get(0)).counters();
        assertThat(counters.firstAttempts()).isEqualTo(CALLS);
        assertThat(counters.retries()).isEqualTo(failOnce ? CALLS : 0);
        assertThat(counters.successes()).isEqualTo(CALLS);
        if (calls.parts().size() > 1) {
          assertThat(calls.part(CircuitBreaker.class).state(Ticker.system().read()))
              .isEqualTo(CircuitBreaker.State.CLOSED);
          assertThat(calls.part(ConcurrencyLimit.class).available())
              .isEqualTo(Pipelines.MAX_CONCURRENT);
        }
      }
      case "resilience4j" -> {
        Retry.Metrics metrics = calls.part(Retry.class).getMetrics();
        assertThat(
                failOnce
                    ? metrics.getNumberOfSuccessfulCallsWithRetryAttempt()
                    : metrics.getNumberOfSuccessfulCallsWithoutRetryAttempt())
            .isEqualTo(CALLS);
        if (calls.parts().size() > 1) {
          assertThat(
                  calls.part(io.github.resilience4j.circuitbreaker.CircuitBreaker.class).getState())
              .isEqualTo(io.github.resilience4j.circuitbreaker.CircuitBreaker.State.CLOSED);
          assertThat(calls.part(Bulkhead.class).getMetrics().getAvailableConcurrentCalls())
              .isEqualTo(Pipelines.MAX_CONCURRENT);
        }
      }
      case "failsafe" -> {
        if (calls.parts().size() > 1) {
          @SuppressWarnings("unchecked")
          dev.failsafe.CircuitBreaker<String> breaker =
              calls.part(dev.failsafe.CircuitBreaker.class);
          assertThat(breaker.isClosed()).isTrue();
        }
      }
      default -> assertThat(calls.parts()).isEmpty();
    }
  }

  @Test
  void everyLibraryGetsTheSameSettings() {
    // Relent
    assertThat(Pipelines.relentPolicy().config().maxRetries()).isEqualTo(3);
    Pacer pacer = Pipelines.relentPacer();
    assertThat(pacer.interval()).isEqualTo(Duration.ofNanos(1));
    assertThat(pacer.burst()).isEqualTo(Integer.MAX_VALUE);

    // Resilience4j
    assertThat(Pipelines.resilience4jRetryConfig().getMaxAttempts()).isEqualTo(4);
    assertThat(Pipelines.resilience4jRetryConfig().getIntervalBiFunction().apply(1, null))
        .isEqualTo(0L);
    CircuitBreakerConfig breaker = Pipelines.resilience4jBreaker().getCircuitBreakerConfig();
    assertThat(breaker.getFailureRateThreshold()).isEqualTo(90f);
    assertThat(breaker.getSlidingWindowType())
        .isEqualTo(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED);
    assertThat(breaker.getSlidingWindowSize()).isEqualTo(100);
    assertThat(breaker.getMinimumNumberOfCalls()).isEqualTo(20);
    assertThat(breaker.getWaitIntervalFunctionInOpenState().apply(1)).isEqualTo(30_000L);
    assertThat(breaker.getPermittedNumberOfCallsInHalfOpenState()).isEqualTo(3);
    RateLimiter limiter = Pipelines.resilience4jRateLimiter();
    assertThat(limiter.getRateLimiterConfig().getLimitForPeriod()).isEqualTo(Integer.MAX_VALUE);
    assertThat(limiter.getRateLimiterConfig().getLimitRefreshPeriod())
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(limiter.getRateLimiterConfig().getTimeoutDuration()).isEqualTo(Duration.ZERO);
    Pipelines.Calls r4j = Pipelines.build("resilience4j", "full", new Operation(false));
    assertThat(r4j.part(Bulkhead.class).getBulkheadConfig().getMaxConcurrentCalls()).isEqualTo(100);
    assertThat(r4j.part(Bulkhead.class).getBulkheadConfig().getMaxWaitDuration())
        .isEqualTo(Duration.ZERO);

    // Failsafe
    assertThat(Pipelines.failsafeRetryPolicy().getConfig().getMaxRetries()).isEqualTo(3);
    assertThat(Pipelines.failsafeRetryPolicy().getConfig().getDelay()).isEqualTo(Duration.ZERO);
    dev.failsafe.CircuitBreakerConfig<String> failsafeBreaker =
        Pipelines.failsafeBreaker().getConfig();
    assertThat(failsafeBreaker.getFailureThreshold()).isEqualTo(90);
    assertThat(failsafeBreaker.getFailureThresholdingCapacity()).isEqualTo(100);
    assertThat(failsafeBreaker.getDelay()).isEqualTo(Duration.ofSeconds(30));
    assertThat(failsafeBreaker.getSuccessThreshold()).isEqualTo(3);
    assertThat(Pipelines.failsafeRateLimiter().getConfig().getMaxPermits())
        .isEqualTo(Integer.MAX_VALUE);
    assertThat(Pipelines.failsafeRateLimiter().getConfig().getPeriod())
        .isEqualTo(Duration.ofSeconds(1));
    Pipelines.Calls failsafe = Pipelines.build("failsafe", "full", new Operation(false));
    @SuppressWarnings("unchecked")
    dev.failsafe.Bulkhead<String> bulkhead = failsafe.part(dev.failsafe.Bulkhead.class);
    assertThat(bulkhead.getConfig().getMaxConcurrency()).isEqualTo(100);
    assertThat(bulkhead.getConfig().getMaxWaitTime()).isEqualTo(Duration.ZERO);
  }

  @Test
  void unknownNamesAreRefusedWithTheChoices() {
    assertThatThrownBy(() -> Pipelines.build("hystrix", "retry", new Operation(false)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("library must be one of [relent, resilience4j, failsafe, baseline]: hystrix");
    assertThatThrownBy(() -> Pipelines.build("relent", "half", new Operation(false)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pipeline must be one of [retry, full]: half");
  }

  @Test
  void overheadBenchmarkRunsOneInvocationOfEachParameterSet() throws Throwable {
    for (String library : Pipelines.LIBRARIES) {
      for (String pipeline : Pipelines.PIPELINES) {
        for (String outcome : List.of("success", "failOnce")) {
          OverheadBenchmark benchmark = new OverheadBenchmark();
          benchmark.library = library;
          benchmark.pipeline = pipeline;
          benchmark.outcome = outcome;
          benchmark.setUp();
          assertThat(benchmark.sync()).isEqualTo("ok");
          assertThat(benchmark.async()).isEqualTo("ok");
        }
      }
    }
    OverheadBenchmark bad = new OverheadBenchmark();
    bad.library = "relent";
    bad.pipeline = "retry";
    bad.outcome = "sometimes";
    assertThatThrownBy(bad::setUp).hasMessage("outcome must be success or failOnce: sometimes");
  }

  @Test
  void contentionBenchmarkGetsAPermitFromEveryLibrary() {
    for (String library : Pipelines.LIBRARIES) {
      GuardContentionBenchmark benchmark = new GuardContentionBenchmark();
      benchmark.library = library;
      benchmark.setUp();
      for (int i = 0; i < 1000; i++) {
        assertThat(benchmark.pacerAcquire()).as(library + " acquire").isZero();
        assertThat(benchmark.breakerRecord()).as(library + " record").isZero();
        assertThat(benchmark.breakerRecordNoClock()).as(library + " record").isZero();
      }
    }
  }
}
