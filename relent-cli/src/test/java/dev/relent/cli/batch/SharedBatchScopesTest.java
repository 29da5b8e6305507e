package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent batch --shared}: a 429 that pauses an endpoint in one process holds that endpoint
 * in every process of the account, and only that endpoint. Two batches run in this JVM, each with
 * its own connection to the Redis on 127.0.0.1:6379 as another process would; real time, about 6 s
 * (the pause the server asks for), since Redis's clock is the time base.
 */
class SharedBatchScopesTest {
  /**
   * Long enough that the second batch's start (its own Redis connection, picocli, the JSON reader)
   * fits well inside the pause on a loaded machine: CI once took 2.2 s from the 429 to the other
   * endpoint's request, which a 3 s pause (2 s after whole-second rounding) did not leave room for.
   */
  private static final int PAUSE_SECONDS = 6;

  @TempDir Path dir;

  private Path input(String name, String... urls) throws Exception {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < urls.length; i++) {
      lines
          .append("{\"id\": \"")
          .append(name)
          .append('-')
          .append(i + 1)
          .append("\", \"url\": \"")
          .append(urls[i])
          .append("\"}\n");
    }
    Path file = dir.resolve(name + ".jsonl");
    Files.writeString(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  private static CliRun shared(Path in, String account) {
    return BatchCommandTest.batch(
        "batch",
        in.toString(),
        "--rate",
        "50/s",
        "--shared",
        SharedBatchOptionsTest.REDIS,
        "--account",
        account,
        "--progress",
        "off");
  }

  @Test
  void anEndpointPausedByOneProcessWaitsInTheOtherWhileAnotherEndpointGoesOn() throws Exception {
    String account = "shared-scopes-" + UUID.randomUUID();
    Scenario scenario =
        Scenario.parse(
            "{\"routes\": ["
                + "{\"path\": \"/orders/*\", \"steps\": [{\"status\": 429, \"headers\":"
                + " {\"Retry-After\": \""
                + PAUSE_SECONDS
                + "\"}}, {\"status\": 200}]},"
                + "{\"path\": \"/items/*\", \"steps\": [{\"status\": 200}]}]}");
    try (MockServer server = MockServer.start(scenario)) {
      Path first = input("a", server.uri("/orders/1").toString());
      CompletableFuture<CliRun> a = CompletableFuture.supplyAsync(() -> shared(first, account));
      Instant refused = awaitFirst(server, 429);

      // The second process starts after the 429: its order waits for the pause, its item does not.
      Path second =
          input("b", server.uri("/orders/2").toString(), server.uri("/items/1").toString());
      CliRun b = shared(second, account);
      CliRun runA = a.get();

      assertThat(runA.exitCode()).as(runA.err()).isEqualTo(ExitCodes.OK);
      assertThat(b.exitCode()).as(b.err()).isEqualTo(ExitCodes.OK);
      List<JournalEntry> journal = server.journal();
      Instant order2 = arrival(journal, "/orders/2");
      Instant item1 = arrival(journal, "/items/1");
      // Retry-After is whole seconds, so the pause may end up to a second early by the server's
      // count; the other endpoint is not held at all.
      assertThat(Duration.between(refused, order2))
          .as("the paused endpoint waited in the other process")
          .isGreaterThanOrEqualTo(Duration.ofSeconds(PAUSE_SECONDS - 1));
      assertThat(Duration.between(refused, item1))
          .as("another endpoint went on")
          .isLessThan(Duration.ofSeconds(PAUSE_SECONDS - 1));
      assertThat(item1).as("the other endpoint went before the paused one").isBefore(order2);
      assertThat(journal).filteredOn(e -> e.status() == 429).hasSize(1);
    }
  }

  /** Waits (real time, at most 30 s) for the first answer with {@code status}; its arrival. */
  private static Instant awaitFirst(MockServer server, int status) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      for (JournalEntry e : server.journal()) {
        if (e.status() == status) {
          return e.arrivedAt();
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no " + status + " within 30 s: " + server.journal());
  }

  private static Instant arrival(List<JournalEntry> journal, String target) {
    return journal.stream()
        .filter(e -> e.target().equals(target))
        .map(JournalEntry::arrivedAt)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no request to " + target + ": " + journal));
  }
}
