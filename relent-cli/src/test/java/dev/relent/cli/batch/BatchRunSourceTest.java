package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.http.Redactor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch's input as workers take it: lines handed out in turn under the run's lock, parsed by
 * the worker that took each, outside it. The question whether an id finished in an earlier run goes
 * to the journal's table of ids, which is not thread-safe: it must be asked by one worker at a time
 * (asked at once, its shared digest mixed ids up, and finished payments were sent again under new
 * keys).
 */
class BatchRunSourceTest {
  @TempDir Path dir;

  @Test
  void everyLineIsTakenOnceAndTheSkipQuestionIsNeverAskedTwiceAtOnce() throws Exception {
    int n = 3000;
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      lines.add("{\"id\": \"r-" + i + "\", \"url\": \"http://127.0.0.1:9/items/" + i + "\"}");
    }
    Path in = Files.write(dir.resolve("in.jsonl"), lines, StandardCharsets.UTF_8);
    Redactor redactor = Redactor.ofDefaults();
    BatchInput.Scan scan = BatchInput.scan(in, redactor, p -> {});
    AtomicInteger asking = new AtomicInteger();
    AtomicBoolean overlapped = new AtomicBoolean();
    Set<String> taken = ConcurrentHashMap.newKeySet();
    AtomicInteger skipped = new AtomicInteger();
    try (BatchInput.Requests requests = BatchInput.requests(in, redactor, scan)) {
      BatchRun.Source source =
          BatchRun.Source.of(
              requests,
              id -> {
                if (asking.incrementAndGet() > 1) {
                  overlapped.set(true);
                }
                Thread.yield();
                asking.decrementAndGet();
                return id.endsWith("7");
              });
      Object lock = new Object();
      List<Thread> workers = new ArrayList<>();
      for (int w = 0; w < 8; w++) {
        Thread t =
            new Thread(
                () -> {
                  while (true) {
                    BatchRun.Pending pending;
                    synchronized (lock) {
                      try {
                        pending = source.next();
                      } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                      }
                    }
                    if (pending == null) {
                      return;
                    }
                    BatchInput.Request r = pending.request();
                    if (r == null) {
                      skipped.incrementAndGet();
                    } else {
                      assertThat(taken.add(r.id())).as(r.id()).isTrue();
                    }
                  }
                });
        workers.add(t);
        t.start();
      }
      for (Thread t : workers) {
        t.join();
      }
    }
    assertThat(overlapped).isFalse();
    assertThat(skipped.get()).isEqualTo(n / 10);
    assertThat(taken).hasSize(n - n / 10).doesNotContain("r-7", "r-17").contains("r-1", "r-3000");
  }
}
