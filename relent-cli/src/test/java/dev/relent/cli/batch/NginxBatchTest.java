package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.CliRun;
import dev.relent.cli.Nginx;
import dev.relent.cli.common.ExitCodes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent batch} against a real rate limiter: nginx {@code limit_req} at 10 requests a second
 * with no burst, on loopback, started by the test with its own configuration ({@link Nginx}; {@code
 * scripts/ensure-nginx.sh} installs it, and a machine without it fails here saying so).
 *
 * <p>The bounds are generous on purpose: they catch a batch that does not finish, loses requests or
 * hammers the limiter, not a slow machine. The exact figures, and the command that measures them,
 * are in docs/cli.md ("Against a real rate limiter").
 */
class NginxBatchTest {
  private static final int LIMIT_PER_SECOND = 10;

  @TempDir Path dir;

  private Path input(Nginx nginx, String path, int n) throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      lines.add("{\"id\": \"r-" + i + "\", \"url\": \"" + nginx.uri(path + i) + "\"}");
    }
    Path in = dir.resolve("in-" + path.replace("/", "") + ".jsonl");
    Files.write(in, lines, StandardCharsets.UTF_8);
    return in;
  }

  private static long count(List<Integer> statuses, int status) {
    return statuses.stream().filter(s -> s == status).count();
  }

  @Test
  void withoutRateEveryRequestGetsThroughAStrictLimiterThatGivesNoHint() throws Exception {
    int n = 30;
    try (Nginx nginx = Nginx.start(dir.resolve("nginx"), LIMIT_PER_SECOND)) {
      Path in = input(nginx, "/strict/", n);
      long start = System.nanoTime();

      CliRun run = BatchCommandTest.batch("batch", in.toString(), "--progress", "off");

      double seconds = (System.nanoTime() - start) / 1e9;
      List<Integer> statuses = nginx.statuses();
      assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCodes.OK);
      assertThat(count(statuses, 200)).isEqualTo(n);
      // 3 s at the physical limit; each 429 without a hint is backed off by its own request.
      assertThat(seconds).as(run.out()).isLessThan(25);
      assertThat((double) count(statuses, 429) / statuses.size()).as(run.out()).isLessThan(0.85);
      assertThat(run.out())
          .contains("pacer              adaptive (no --rate)")
          .contains("said nothing and paused nothing");
    }
  }

  @Test
  void aRateBelowTheLimitIsACeilingThatKeepsTheLimiterQuiet() throws Exception {
    int n = 20;
    try (Nginx nginx = Nginx.start(dir.resolve("nginx"), LIMIT_PER_SECOND)) {
      Path in = input(nginx, "/hinted/", n);
      long start = System.nanoTime();

      CliRun run =
          BatchCommandTest.batch("batch", in.toString(), "--rate", "8/s", "--progress", "off");

      double seconds = (System.nanoTime() - start) / 1e9;
      List<Integer> statuses = nginx.statuses();
      assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCodes.OK);
      assertThat(count(statuses, 200)).isEqualTo(n);
      // Burst 0 refuses two starts closer than 100 ms: a worker that wakes late bunches with the
      // next; on a loaded machine some 429s remain, never one per request.
      assertThat(count(statuses, 429)).as(run.out()).isLessThan(n);
      assertThat(seconds).as(run.out()).isBetween(2.0, 15.0);
    }
  }
}
