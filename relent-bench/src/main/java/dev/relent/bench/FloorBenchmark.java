package dev.relent.bench;

import dev.relent.time.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * What the machine itself charges for the steps no design can skip, measured in the same run as the
 * libraries so that their figures can be read against it:
 *
 * <ul>
 *   <li>{@code tickerRead}: one reading of {@link Ticker#system()} ({@code System.nanoTime()}).
 *       Every Relent call reads it once, because every operation has a deadline;
 *   <li>{@code atomicIncrement}: one uncontended atomic read-modify-write, the price of each
 *       counter, slot or reservation a guard records;
 *   <li>{@code clockAndSharedAdd}: two threads each reading the clock and then adding to one shared
 *       word with a single atomic instruction that cannot fail ({@code lock xadd}). No rate limiter
 *       that reads the clock and records each acquire in shared memory can beat this throughput.
 * </ul>
 *
 * <p>Run (bench/run.sh does, with these settings):
 *
 * <pre>
 * java -jar relent-bench/target/benchmarks.jar FloorBenchmark -rf json -rff floor.json
 * </pre>
 */
public class FloorBenchmark extends BenchmarkRuns {
  private static final Ticker TICKER = Ticker.system();

  /** A counter of one thread's own. */
  @State(Scope.Thread)
  public static class Own {
    final AtomicLong counter = new AtomicLong();
  }

  /** One counter shared by every thread. */
  @State(Scope.Benchmark)
  public static class Shared {
    final AtomicLong counter = new AtomicLong();
  }

  /**
   * One reading of the system ticker.
   *
   * @return the reading, consumed by JMH
   */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @Threads(1)
  public long tickerRead() {
    return TICKER.read();
  }

  /**
   * One uncontended atomic increment.
   *
   * @param own this thread's counter
   * @return the new count, consumed by JMH
   */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @Threads(1)
  public long atomicIncrement(Own own) {
    return own.counter.incrementAndGet();
  }

  /**
   * A clock reading and one atomic add to a word shared by two threads.
   *
   * @param shared the shared word
   * @return the sum, consumed by JMH
   */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  @Threads(2)
  public long clockAndSharedAdd(Shared shared) {
    long now = TICKER.read();
    return shared.counter.getAndAdd(1) + now;
  }
}
