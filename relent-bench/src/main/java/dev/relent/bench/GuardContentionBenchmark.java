package dev.relent.bench;

import dev.relent.CircuitBreaker;
import dev.relent.Pacer;
import dev.relent.spi.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of two threads hammering one shared guard: a rate limiter's acquire (limit never
 * reached) and a circuit breaker's permission plus success record, configured as in {@link
 * Pipelines}. Relent's guards take {@code now} from the executor, so its calls include one ticker
 * read each; Resilience4j's and Failsafe's read their clocks themselves (the breaker calls here
 * give them no clock read at all, which favours them).
 *
 * <p>Run (bench/run.sh does, with these settings):
 *
 * <pre>
 * ./mvnw -B -q -pl relent-bench -am package -DskipTests
 * java -jar relent-bench/target/benchmarks.jar GuardContentionBenchmark -rf csv -rff contention.csv
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
@State(Scope.Benchmark)
public class GuardContentionBenchmark {

  /** The library under test. */
  @Param({"relent", "resilience4j", "failsafe", "baseline"})
  public String library;

  private LongSupplier acquire;
  private LongSupplier record;

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
          break;
        }
      case "baseline":
        acquire = () -> 0;
        record = () -> 0;
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
   * One breaker permission and success record.
   *
   * @return 0 when permitted, consumed by JMH
   */
  @Benchmark
  public long breakerRecord() {
    return record.getAsLong();
  }
}
