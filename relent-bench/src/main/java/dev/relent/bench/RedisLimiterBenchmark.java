package dev.relent.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A rate limit on one hot Redis key, Relent's pacer over {@code RedisPacerState} (one {@code
 * EVALSHA} per decision) against Bucket4j 8.14's compare-and-swap proxy manager on Lettuce ({@code
 * GET}, then a compare-and-swap {@code EVAL}, again while another writer won), configured to the
 * same limit ({@link RedisLimiters}). One connection per library, shared by the threads, as one
 * process would use it. Needs a Redis at {@code uri} ({@code scripts/services.sh} starts one on
 * 127.0.0.1:6379); run by {@code bench/redis-vs-bucket4j.sh}, not by {@code bench/run.sh}.
 *
 * <ul>
 *   <li>{@code throughput1}, {@code throughput8}: decisions per second, 1 and 8 threads;
 *   <li>{@code latency1}, {@code latency8}: each decision's time (JMH's sample mode, for p50 and
 *       p99), 1 and 8 threads.
 * </ul>
 *
 * <p>{@code limit}: {@code open} (a billion a second: nothing refused) or {@code refusing} (1 000 a
 * second, burst 100: most decisions are refusals, each returning the wait).
 */
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
public class RedisLimiterBenchmark {

  /** One limiter on a key of its own for the whole trial, shared by every thread. */
  @State(Scope.Benchmark)
  public static class Limiter {
    /** {@code relent} or {@code bucket4j}. */
    @Param({"relent", "bucket4j"})
    public String library;

    /** {@code open} or {@code refusing}. */
    @Param({"open", "refusing"})
    public String limit;

    /** Where Redis is. */
    @Param("redis://127.0.0.1:6379")
    public String uri;

    RedisLimiters.Limiter limiter;

    /** Connects. */
    @Setup(Level.Trial)
    public void connect() {
      limiter = RedisLimiters.connect(library, RedisLimiters.Limit.of(limit), uri);
    }

    /** Deletes the key and disconnects. */
    @TearDown(Level.Trial)
    public void close() {
      limiter.close();
    }
  }

  /**
   * Decisions per second, one thread.
   *
   * @param l the limiter
   * @return the decision, consumed by JMH
   */
  @Benchmark
  @Threads(1)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long throughput1(Limiter l) {
    return l.limiter.decide();
  }

  /**
   * Decisions per second, eight threads on the one key and connection.
   *
   * @param l the limiter
   * @return the decision, consumed by JMH
   */
  @Benchmark
  @Threads(8)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long throughput8(Limiter l) {
    return l.limiter.decide();
  }

  /**
   * The time of one decision, one thread, sampled.
   *
   * @param l the limiter
   * @return the decision, consumed by JMH
   */
  @Benchmark
  @Threads(1)
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public long latency1(Limiter l) {
    return l.limiter.decide();
  }

  /**
   * The time of one decision, eight threads, sampled.
   *
   * @param l the limiter
   * @return the decision, consumed by JMH
   */
  @Benchmark
  @Threads(8)
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public long latency8(Limiter l) {
    return l.limiter.decide();
  }
}
