package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.time.FakeTime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress of {@code relent batch}: its ETA counts the waits that are known (a paused scope's
 * pause left, the pace of the requests left), not only the rate seen so far; and it shows one on
 * the first line, before three requests have ended.
 */
class BatchProgressTest {
  @TempDir Path dir;

  private static final long SECOND = 1_000_000_000L;

  /** {@code ended} of {@code total} done after {@code elapsed} seconds. */
  private static BatchTimeline.Snapshot after(int total, int ended, double elapsed) {
    return new BatchTimeline.Snapshot(total, ended, 0, 0, 1, 1, ended + 1, (long) (elapsed * 1e9));
  }

  @Test
  void theEtaIsTheLongestOfTheRateSeenThePaceAndTheKnownWait() {
    // 30 of 40 in 1 s: 10 left at 30/s.
    BatchTimeline.Snapshot s = after(40, 30, 1);
    assertThat(BatchDisplay.eta(s, 1, 0)).isEqualTo("333 ms");
    // A scope paused for 60 s: its requests end after the pause, not in 333 ms.
    assertThat(BatchDisplay.eta(s, 1, 60 * SECOND)).isEqualTo("60 s");
    // A pace of one start every 500 ms for the 10 left.
    assertThat(BatchDisplay.eta(s, SECOND / 2, 0)).isEqualTo("5 s");
    assertThat(BatchDisplay.eta(s, SECOND / 2, 60 * SECOND)).isEqualTo("60 s");
    // Nothing left.
    assertThat(BatchDisplay.eta(after(40, 40, 1), SECOND, 60 * SECOND)).isEqualTo("0 s");
  }

  @Test
  void theFirstLineShowsAKnownWaitBeforeThreeRequestsHaveEnded() {
    BatchTimeline.Snapshot first = after(2, 0, 0.1);
    assertThat(BatchDisplay.eta(first, 1, 0)).isEqualTo("unknown");
    assertThat(BatchDisplay.eta(first, 1, 60 * SECOND)).isEqualTo("60 s");
    assertThat(BatchDisplay.eta(first, SECOND / 10, 0)).isEqualTo("200 ms");
    assertThat(BatchDisplay.line(first, 1, 60 * SECOND)).endsWith(", ETA 60 s");
    assertThat(BatchDisplay.bar(first, 1, 60 * SECOND)).endsWith("  ETA 60 s");
  }

  @Test
  void aRunWhoseScopeIsPausedForAMinuteShowsAnEtaOfAMinute() throws Exception {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/a/*\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \"60\"}}, {\"status\": 200}]}]}"))) {
      Path in = dir.resolve("in.jsonl");
      Files.write(
          in,
          List.of(
              "{\"id\": \"a-1\", \"url\": \"" + server.uri("/a/1") + "\"}",
              "{\"id\": \"a-2\", \"url\": \"" + server.uri("/a/2") + "\"}"),
          StandardCharsets.UTF_8);
      // Time stands still: the scope's pause has 60 s left for as long as the run lasts, which
      // the batch deadline (real time, as the waits) ends after a second.
      FakeTime time = new FakeTime(Instant.parse("2026-12-01T09:00:00Z"));

      CliRun run =
          CliRun.of(
              cli -> {
                BatchCommand b = cli.getSubcommands().get("batch").getCommand();
                b.shutdownHook = false;
                b.ticker = time;
                b.clock = time;
                b.lineEvery = Duration.ofMillis(50);
              },
              "batch",
              in.toString(),
              "--concurrency",
              "1",
              "--max-wait",
              "2m",
              "--deadline",
              "5m",
              "--progress",
              "lines",
              "--batch-deadline",
              "1s");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(server.journal()).hasSize(1);
      List<String> progress =
          run.err().lines().filter(l -> l.contains(" done, ")).collect(Collectors.toList());
      // Each line printed while a-1 waits out its scope's pause to retry (a-2 behind it) says so.
      String waiting =
          "relent batch: 0/2 done, 0 in flight, 1 waiting, 0 failed; 0/s; 0 ms elapsed";
      assertThat(progress)
          .contains(waiting + ", ETA 60 s")
          .filteredOn(l -> l.startsWith(waiting))
          .allSatisfy(l -> assertThat(l).isEqualTo(waiting + ", ETA 60 s"));
    }
  }
}
