package dev.relent.bench;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The scale check: {@code N} (default 100 000) asynchronous operations waiting in backoff at once.
 * Each operation's first attempt fails at once; its retry is due in 30 s, so every operation sits
 * in the scheduler's queue together. The check then reads how many platform threads the JVM has
 * more than before, and the heap the waiting operations hold after a full collection; then it
 * cancels them all, which frees their timers (the queue removes cancelled tasks at once).
 *
 * <p>Run (bench/run.sh does; the heap cap makes a leak fail loudly):
 *
 * <pre>
 * ./mvnw -B -q -pl relent-bench -am package -DskipTests
 * java -Xmx256m -cp relent-bench/target/benchmarks.jar dev.relent.bench.ScaleCheck 100000
 * </pre>
 *
 * <p>Prints one line of {@code key=value} pairs (read by {@link BenchReport}).
 */
public final class ScaleCheck {
  private ScaleCheck() {}

  /**
   * Runs the check.
   *
   * @param args the number of operations (optional)
   * @throws Exception never in practice
   */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    System.out.println(run(n).line());
  }

  /**
   * The figures of one run.
   *
   * @param operations operations started
   * @param waiting operations still waiting when measured
   * @param threadsBefore live threads before the first operation
   * @param threadsWaiting live threads while all wait
   * @param addedThreads the names of the threads that appeared, comma-separated
   * @param heapBefore heap used before, after a full collection, in bytes
   * @param heapWaiting heap used while all wait, after a full collection, in bytes
   * @param startMillis time to start every operation
   */
  record Result(
      int operations,
      int waiting,
      int threadsBefore,
      int threadsWaiting,
      String addedThreads,
      long heapBefore,
      long heapWaiting,
      long startMillis) {

    int threadsAdded() {
      return threadsWaiting - threadsBefore;
    }

    long heapAdded() {
      return heapWaiting - heapBefore;
    }

    String line() {
      return "scale operations="
          + operations
          + " waiting="
          + waiting
          + " threadsBefore="
          + threadsBefore
          + " threadsWaiting="
          + threadsWaiting
          + " threadsAdded="
          + threadsAdded()
          + " addedThreads="
          + (addedThreads.isEmpty() ? "-" : addedThreads.replace(' ', '_'))
          + " heapBeforeBytes="
          + heapBefore
          + " heapWaitingBytes="
          + heapWaiting
          + " heapAddedBytes="
          + heapAdded()
          + " bytesPerOperation="
          + (operations == 0 ? 0 : heapAdded() / operations)
          + " startMillis="
          + startMillis;
    }
  }

  static Result run(int n) throws InterruptedException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(
                RetryPolicy.builder()
                    .withMaxRetries(1)
                    .withDeadline(Duration.ofMinutes(5))
                    .withBackoff(
                        Backoff.builder()
                            .withBase(Duration.ofSeconds(30))
                            .withCap(Duration.ofSeconds(30))
                            .withJitter(Jitter.NONE)
                            .build())
                    .build())
            .build();
    dev.relent.AsyncSupplier<String> failing = context -> Operation.FAILED_STAGE;
    long heapBefore = usedAfterGc(memory);
    int threadsBefore = threads.getThreadCount();
    Set<String> namesBefore = threadNames();

    List<CompletableFuture<String>> futures = new ArrayList<>(n);
    long started = System.nanoTime();
    for (int i = 0; i < n; i++) {
      futures.add(executor.getAsync(failing));
    }
    long startMillis = (System.nanoTime() - started) / 1_000_000;

    int waiting = 0;
    for (CompletableFuture<String> future : futures) {
      if (!future.isDone()) {
        waiting++;
      }
    }
    int threadsWaiting = threads.getThreadCount();
    Set<String> added = threadNames();
    added.removeAll(namesBefore);
    long heapWaiting = usedAfterGc(memory);
    for (CompletableFuture<String> future : futures) {
      future.cancel(false);
    }
    return new Result(
        n,
        waiting,
        threadsBefore,
        threadsWaiting,
        String.join(",", new TreeSet<>(added)),
        heapBefore,
        heapWaiting,
        startMillis);
  }

  private static Set<String> threadNames() {
    Set<String> names = new HashSet<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      names.add(thread.getName());
    }
    return names;
  }

  private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
