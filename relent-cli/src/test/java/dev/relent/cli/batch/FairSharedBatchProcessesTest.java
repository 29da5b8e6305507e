package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fairness of {@code relent batch --shared}: {@value #PROCESSES} processes (JVMs of their own,
 * started together) share {@code --concurrency 2} through the Redis on 127.0.0.1:6379, on answers
 * slow enough (100 ms) that both slots are taken all the time. The shared limit serves its waiters
 * first come, first served across the processes and wakes them through Redis, so every process
 * starts soon after the first request of the run, and while all compete each gets its share;
 * before, the process that got the slots first handed them to its own workers until it was done,
 * and the others polled in vain (first requests 11 to 64 s late).
 *
 * <p>Real time, about 15 s. The bounds are generous, for a shared 2-core machine starting four
 * JVMs: each process's first request within {@value #FIRST_WITHIN_SECONDS} s of the run's first,
 * and, between the last process's first request and the first process's last, each process's
 * requests at least {@value #MIN_SHARE_PERCENT} % of a fair share (a quarter of them). When each
 * finishes is not asserted: it follows when each JVM started, which the machine decides. The
 * figures of each run are printed; {@code bench/limiters.sh} measures the fleet against nginx.
 */
class FairSharedBatchProcessesTest {
  static final int PROCESSES = 4;
  static final int REQUESTS = 25;
  static final int FIRST_WITHIN_SECONDS = 5;
  static final int MIN_SHARE_PERCENT = 40;

  static final String SCENARIO =
      "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200, \"delay\":"
          + " \"100ms\"}]}]}";

  @TempDir Path dir;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void fourProcessesSharingTwoSlotsAllStartEarlyAndShareFairly() throws Exception {
    String account = "fair-" + UUID.randomUUID();
    try (MockServer server = MockServer.builder(Scenario.parse(SCENARIO)).withThreads(8).start()) {
      List<Process> processes = new ArrayList<>();
      for (int p = 1; p <= PROCESSES; p++) {
        List<String> args =
            List.of(
                "batch",
                SharedBatchProcessesTest.input(dir, server, p, REQUESTS).toString(),
                "--concurrency=2",
                "--out",
                dir.resolve("fair-" + p + ".out.jsonl").toString(),
                "--progress=off",
                "--shared",
                "redis://127.0.0.1:6379",
                "--account",
                account);
        processes.add(SharedBatchProcessesTest.startBatch(dir, "fair-" + p, args));
      }
      for (int p = 1; p <= PROCESSES; p++) {
        Process process = processes.get(p - 1);
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("process %d ended", p).isTrue();
        String summary = Files.readString(dir.resolve("fair-" + p + ".stdout"));
        assertThat(process.exitValue())
            .as(summary + Files.readString(dir.resolve("fair-" + p + ".stderr")))
            .isEqualTo(ExitCodes.OK);
        assertThat(summary).contains(REQUESTS + " succeeded, 0 failed, 0 not finished");
      }

      List<JournalEntry> journal = server.journal();
      long runFirst = Long.MAX_VALUE;
      long runLast = Long.MIN_VALUE;
      long[] first = new long[PROCESSES];
      long[] last = new long[PROCESSES];
      List<List<Long>> arrivalsOf = new ArrayList<>();
      for (int p = 0; p < PROCESSES; p++) {
        String prefix = "/items/p" + (p + 1) + "-";
        List<Long> arrivals =
            journal.stream()
                .filter(e -> e.target().startsWith(prefix))
                .map(e -> e.arrivedAt().toEpochMilli())
                .toList();
        assertThat(arrivals).hasSize(REQUESTS);
        arrivalsOf.add(arrivals);
        first[p] = arrivals.stream().mapToLong(Long::longValue).min().orElseThrow();
        last[p] = arrivals.stream().mapToLong(Long::longValue).max().orElseThrow();
        runFirst = Math.min(runFirst, first[p]);
        runLast = Math.max(runLast, last[p]);
      }
      long span = runLast - runFirst;
      StringBuilder figures = new StringBuilder("fair: span " + span + " ms;");
      for (int p = 0; p < PROCESSES; p++) {
        figures.append(
            String.format(
                Locale.ROOT,
                " p%d first %.2f s last %.2f s;",
                p + 1,
                (first[p] - runFirst) / 1000.0,
                (last[p] - runFirst) / 1000.0));
      }
      for (int p = 0; p < PROCESSES; p++) {
        assertThat(first[p] - runFirst)
            .as("process %d starts soon after the run's first request: %s", p + 1, figures)
            .isLessThanOrEqualTo(TimeUnit.SECONDS.toMillis(FIRST_WITHIN_SECONDS));
      }
      // Fair while they compete: from the last process's first request to the first process's last,
      // each process gets a fair share of the arrivals. A process whose JVM started late has less
      // time in all, so when each finishes says more about start-up than about the queue.
      long competeFrom = Arrays.stream(first).max().orElseThrow();
      long competeTo = Arrays.stream(last).min().orElseThrow();
      long[] competing = new long[PROCESSES];
      for (int p = 0; p < PROCESSES; p++) {
        competing[p] =
            arrivalsOf.get(p).stream().filter(at -> at >= competeFrom && at <= competeTo).count();
      }
      long all = Arrays.stream(competing).sum();
      figures.append(" while competing: ").append(Arrays.toString(competing));
      System.out.println(figures);
      for (int p = 0; p < PROCESSES; p++) {
        assertThat(competing[p] * PROCESSES * 100)
            .as("process %d's share of the requests while all compete: %s", p + 1, figures)
            .isGreaterThanOrEqualTo(all * MIN_SHARE_PERCENT);
      }
    }
  }
}
