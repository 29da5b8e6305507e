package dev.relent.bench;

import dev.relent.redis.RedisCircuitBreakerState;
import dev.relent.redis.RedisPacerState;
import dev.relent.redis.RedisRetryBudgetState;
import dev.relent.redis.RelentRedis;
import dev.relent.spi.CircuitBreakerState;
import dev.relent.spi.PacerState;
import dev.relent.spi.RetryBudgetState;
import dev.relent.time.Ticker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
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
 * What a guard decision costs when its state lives in Redis (relent-redis): one {@code EVALSHA}
 * round trip each, against the in-memory state's few nanoseconds. Needs a Redis at {@code uri}
 * ({@code scripts/services.sh} starts one on 127.0.0.1:6379); bench/run.sh does not run it.
 *
 * <ul>
 *   <li>{@code pacerReserve}, one thread and eight sharing one schedule: {@link
 *       RedisPacerState#reserve} with an interval of 1 ns, so that no one is ever refused;
 *   <li>{@code budgetTryAcquire}: {@link RedisRetryBudgetState#tryAcquireRetry} over ten 1 s
 *       buckets;
 *   <li>{@code breakerPermission}: {@link RedisCircuitBreakerState#tryAcquirePermission} while
 *       closed, the call every guarded attempt makes;
 *   <li>{@code inMemoryPacerReserve}: the same reservation in memory, for scale.
 * </ul>
 *
 * <pre>
 * java -jar relent-bench/target/benchmarks.jar RedisStateBenchmark -rf json -rff redis.json
 * </pre>
 */
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RedisStateBenchmark {
  private static final Ticker TICKER = Ticker.system();
  private static final RetryBudgetState.Config BUDGET =
      new RetryBudgetState.Config(1_000_000_000L, 10, 100_000, 1_000_000_000L);
  private static final CircuitBreakerState.Config BREAKER =
      new CircuitBreakerState.Config(100, 0, 0, 10, 50.0, 1_000_000_000L, 1);

  /** One connection and one state of each kind, under a name of this run's own. */
  @State(Scope.Benchmark)
  public static class Redis {
    /** Where Redis is. */
    @Param("redis://127.0.0.1:6379")
    public String uri;

    RelentRedis redis;
    RedisPacerState pacer;
    RedisRetryBudgetState budget;
    RedisCircuitBreakerState breaker;
    final PacerState memory = PacerState.inMemory();
    String name;

    /** Connects; a benchmark machine may be busy, so the timeout is generous. */
    @Setup(Level.Trial)
    public void connect() {
      redis = RelentRedis.builder(uri).withCommandTimeout(Duration.ofSeconds(2)).build();
      name = "bench-" + ProcessHandle.current().pid();
      pacer = redis.pacerState(name);
      budget = redis.retryBudgetState(name);
      breaker = redis.circuitBreakerState(name);
    }

    /** Deletes this run's keys and disconnects. */
    @TearDown(Level.Trial)
    public void close() {
      redis.close();
      RedisClient client = RedisClient.create(uri);
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        connection
            .sync()
            .del(
                RedisPacerState.keyOf(name),
                RedisRetryBudgetState.keyOf(name),
                RedisCircuitBreakerState.keyOf(name));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  /**
   * One pacer reservation in Redis, one thread.
   *
   * @param r the states
   * @return the wait, consumed by JMH
   */
  @Benchmark
  @Threads(1)
  public long pacerReserve(Redis r) {
    return r.pacer.reserve(TICKER.read(), 1, 0, Long.MAX_VALUE);
  }

  /**
   * One pacer reservation in Redis, eight threads on one schedule and one connection.
   *
   * @param r the states
   * @return the wait, consumed by JMH
   */
  @Benchmark
  @Threads(8)
  public long pacerReserve8Threads(Redis r) {
    return r.pacer.reserve(TICKER.read(), 1, 0, Long.MAX_VALUE);
  }

  /**
   * One retry budget withdrawal in Redis.
   *
   * @param r the states
   * @return whether it was allowed, consumed by JMH
   */
  @Benchmark
  @Threads(1)
  public boolean budgetTryAcquire(Redis r) {
    return r.budget.tryAcquireRetry(TICKER.read(), BUDGET);
  }

  /**
   * One circuit breaker permission in Redis, closed.
   *
   * @param r the states
   * @return the answer, consumed by JMH
   */
  @Benchmark
  @Threads(1)
  public long breakerPermission(Redis r) {
    return r.breaker.tryAcquirePermission(TICKER.read(), BREAKER);
  }

  /**
   * The same reservation in memory.
   *
   * @param r the states
   * @return the wait, consumed by JMH
   */
  @Benchmark
  @Threads(1)
  public long inMemoryPacerReserve(Redis r) {
    return r.memory.reserve(TICKER.read(), 1, 0, Long.MAX_VALUE);
  }
}
