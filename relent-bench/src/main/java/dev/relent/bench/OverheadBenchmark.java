package dev.relent.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Per-call overhead of one call through a library's pipeline, synchronous and asynchronous: the
 * retry alone, or the full pipeline (retry, circuit breaker, budget where there is one, concurrency
 * limit, rate limiter with no limit reached; see {@link Pipelines}). The operation answers at once
 * ({@code success}), or fails its first attempt and then answers ({@code failOnce}, with zero wait
 * between the attempts). The {@code baseline} calls the operation directly; a library's overhead is
 * its time minus the baseline's.
 *
 * <p>Run (bench/run.sh does, with these settings):
 *
 * <pre>
 * ./mvnw -B -q -pl relent-bench -am package -DskipTests
 * java -jar relent-bench/target/benchmarks.jar OverheadBenchmark -prof gc -rf json -rff overhead.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class OverheadBenchmark extends BenchmarkRuns {

  /** The library under test. */
  @Param({"relent", "resilience4j", "failsafe", "baseline"})
  public String library;

  /** {@code retry} alone, or the {@code full} pipeline. */
  @Param({"retry", "full"})
  public String pipeline;

  /** {@code success} at once, or {@code failOnce} then success. */
  @Param({"success", "failOnce"})
  public String outcome;

  private Pipelines.SyncCall sync;
  private Pipelines.AsyncCall async;

  /** Builds the pipeline once, outside the measurement. */
  @Setup
  public void setUp() {
    if (!outcome.equals("success") && !outcome.equals("failOnce")) {
      throw new IllegalArgumentException("outcome must be success or failOnce: " + outcome);
    }
    Pipelines.Calls calls =
        Pipelines.build(library, pipeline, new Operation(outcome.equals("failOnce")));
    sync = calls.sync();
    async = calls.async();
  }

  /**
   * One synchronous call.
   *
   * @return the result, consumed by JMH
   * @throws Throwable never in practice: every call succeeds
   */
  @Benchmark
  public String sync() throws Throwable {
    return sync.call();
  }

  /**
   * One asynchronous call, whose attempts complete at once.
   *
   * @return the result, consumed by JMH
   */
  @Benchmark
  public String async() {
    return async.call().join();
  }
}
