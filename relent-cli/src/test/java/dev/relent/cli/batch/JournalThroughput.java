package dev.relent.cli.batch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The journal's own ceiling for keyed writes, for bench/memory.sh (not a test): T threads journal N
 * keyed writes as {@code relent batch} does (a {@code key} record before the send, a {@code done}
 * record with a results line after it, each waited for until it is forced to the disk), with a send
 * that takes no time. Prints {@code journal: N keyed writes, T threads, S s = R/s; F records in G
 * forces}.
 *
 * <p>Run: {@code java -cp relent-cli/target/test-classes:relent-cli/target/relent.jar
 * dev.relent.cli.JournalThroughput N T DIR}
 */
final class JournalThroughput {
  private JournalThroughput() {}

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    int threads = Integer.parseInt(args[1]);
    Path file = Path.of(args[2]).resolve("throughput.journal");
    Files.deleteIfExists(file);
    AtomicInteger next = new AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    long start;
    try (BatchJournal journal =
        BatchJournal.open(file, Path.of("payments.jsonl"), "2026-01-01T00:00:00Z")) {
      start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        Thread w =
            new Thread(
                () -> {
                  int i;
                  while ((i = next.getAndIncrement()) < n) {
                    String id = "pay-" + i;
                    try {
                      journal.key(id, "key-" + i, "fingerprint-" + i);
                      Map<String, Object> result = new LinkedHashMap<>();
                      result.put("id", id);
                      result.put("outcome", "success");
                      result.put("status", 201L);
                      result.put("idempotency_key", "key-" + i);
                      journal.outcome(id, true, result);
                    } catch (java.io.IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  }
                });
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
      double s = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "journal: %d keyed writes, %d threads, %.2f s = %.0f/s; %d records in %d forces%n",
          n, threads, s, n / s, 2L * n, journal.forces());
    }
  }
}
