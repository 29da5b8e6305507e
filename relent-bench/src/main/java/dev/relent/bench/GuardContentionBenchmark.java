package dev.relent.bench;

import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.Pacer;
import dev.relent.time.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Throughput of two threads hammering one shared guard, configured as in {@link Pipelines}: a rate
 * limiter's acquire (limit never reached), and a circuit breaker's permission plus success record.
 *
 * <ul>
 *   <li>{@code pacerAcquire}: one clock read each. Relent's pacer takes {@code now} from its
 *       executor's ticker; Resilience4j's and Failsafe's rate limiters read their clocks
 *       themselves.
 *   <li>{@code breakerRecord}: the calls each library's own executor makes around one attempt.
 *       Relent's executor reads its ticker once per attempt and hands {@code now} to every guard
 *       (counted here in full); Resilience4j's decorator reads its clock before and after the
 *       attempt to time it ({@code getCurrentTimestamp()}, twice) and reports the duration;
 *       Failsafe's breaker reads no clock.
 *   <li>{@code breakerRecordNoClock}: the guard alone, no clock read for anyone (Relent gets a
 *       fixed {@code now}).
 * </ul>
 *
 * <p>Run (bench/run.sh does, with these settings):
 *
 * <pre>
 * ./mvnw -B -q -pl relent-bench -am package -DskipTests
 * java -jar relent-bench/target/benchmarks.jar GuardContentionBenchmark -rf json -rff contention.json
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(2)
@State(Scope.Benchmark)
public class GuardContentionBenchmark extends BenchmarkRuns {

  /** The library under test. */
  @Param({"relent", "resilience4j", "failsafe", "baseline"})
  public String library;

  private LongSupplier acquire;
  private LongSupplier record;
  private LongSupplier recordNoClock;

  /** Builds one shared rate limiter and one shared breaker, outside the measurement. */
  @Setup
  public void setUp() {
    switch (library) {
      case "relent":
        {
          Ticker ticker = Ticker.system();
          Pacer pacer = Pipelines.relentPacer();
          CircuitBreaker breaker = Pipelines.relentBreaker();
          acquire = () -> pacer.tryAcquire(ticker.read(), Long.MAX_VALUE);
          record =
              () -> {
                long now = ticker.read();
                long refusal = breaker.tryAcquirePermission(now);
                if (refusal == 0) {
                  breaker.onSuccess(now);
                }
                return refusal;
              };
          long fixedNow = ticker.read();
          recordNoClock =
              () -> {
                long refusal = breaker.tryAcquirePermission(fixedNow);
                if (refusal == 0) {
                  breaker.onSuccess(fixedNow);
                }
                return refusal;
              };
          break;
        }
      case "resilience4j":
        {
          io.github.resilience4j.ratelimiter.RateLimiter limiter =
              Pipelines.resilience4jRateLimiter();
          io.github.resilience4j.circuitbreaker.CircuitBreaker breaker =
              Pipelines.resilience4jBreaker();
          acquire = () -> limiter.acquirePermission() ? 0 : 1;
          record =
              () -> {
                if (breaker.tryAcquirePermission()) {
                  long start = breaker.getCurrentTimestamp();
                  breaker.onSuccess(
                      breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit());
                  return 0;
                }
                return 1;
              };
          recordNoClock =
              () -> {
                if (breaker.tryAcquirePermission()) {
                  breaker.onSuccess(0, TimeUnit.NANOSECONDS);
                  return 0;
                }
                return 1;
              };
          break;
        }
      case "failsafe":
        {
          dev.failsafe.RateLimiter<String> limiter = Pipelines.failsafeRateLimiter();
          dev.failsafe.CircuitBreaker<String> breaker = Pipelines.failsafeBreaker();
          acquire = () -> limiter.tryAcquirePermit() ? 0 : 1;
          record =
              () -> {
                if (breaker.tryAcquirePermit()) {
                  breaker.recordSuccess();
                  return 0;
                }
                return 1;
              };
          recordNoClock = record;
          break;
        }
      case "baseline":
        acquire = () -> 0;
        record = () -> 0;
        recordNoClock = record;
        break;
      default:
        throw new IllegalArgumentException(
            "library must be one of " + Pipelines.LIBRARIES + ": " + library);
    }
  }

  /**
   * One rate-limiter acquire.
   *
   * @return 0 when permitted, consumed by JMH
   */
  @Benchmark
  public long pacerAcquire() {
    return acquire.getAsLong();
  }

  /**
   * One breaker permission and success record, as the library's executor makes them.
   *
   * @return 0 when permitted, consumed by JMH
   */
  @Benchmark
  public long breakerRecord() {
    return record.getAsLong();
  }

  /**
   * One breaker permission and success record, without any clock read.
   *
   * @return 0 when permitted, consumed by JMH
   */
  @Benchmark
  public long breakerRecordNoClock() {
    return recordNoClock.getAsLong();
  }
}
