package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.ChildJvm;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.redis.OwnRedis;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent batch --shared} when its Redis dies mid-run: a {@code redis-server} of the test's
 * own is killed with SIGKILL after {@value #KILL_AT} payments and started again, empty, after
 * {@value #RESTART_AT}. The run goes on in memory meanwhile, says so on stderr once each way,
 * completes with every payment made exactly once (keyed POSTs, every third request answered 504
 * after the payment was made, so retried with their keys, up to 10 times: a retry can meet the 504
 * step again), and its guards are back on Redis at the end. Real time: about {@value #PAYMENTS} ÷
 * 10/s = 8 s.
 */
class SharedBatchFallbackTest {
  static final int PAYMENTS = 80;
  static final int KILL_AT = 10;
  static final int RESTART_AT = 25;

  static final String SCENARIO =
      "{\"journal\": {\"capacity\": 100000}, \"resources\": [{\"name\": \"payments\","
          + " \"path\": \"/payments\", \"idPrefix\": \"pay_\", \"cycle\": true, \"steps\": ["
          + "{}, {\"status\": 504}, {}]}]}";

  @TempDir Path dir;

  @Test
  @Timeout(120)
  void aRedisKilledMidRunLeavesTheRunWholeAndTakesTheGuardsBackWhenRestarted() throws Exception {
    try (OwnRedis redis = new OwnRedis();
        MockServer server = MockServer.start(Scenario.parse(SCENARIO))) {
      List<String> lines = new ArrayList<>();
      for (int i = 1; i <= PAYMENTS; i++) {
        lines.add(ChildJvm.payment(server.uri("/payments"), i, i));
      }
      Path in = dir.resolve("payments.jsonl");
      Files.write(in, lines, StandardCharsets.UTF_8);
      Path journal = dir.resolve("payments.journal");

      CompletableFuture<CliRun> running =
          CompletableFuture.supplyAsync(
              () ->
                  BatchCommandTest.batch(
                      "batch",
                      in.toString(),
                      "--rate",
                      "10/s",
                      "--concurrency",
                      "4",
                      // A retry can meet the 504 step again: enough of them that none runs out.
                      "--max-retries",
                      "10",
                      "--journal",
                      journal.toString(),
                      "--shared",
                      redis.uri(),
                      "--account",
                      "fallback-test",
                      "--progress",
                      "off"));
      LongSupplier created = () -> server.stats().resourcesCreated("payments");
      waitFor(created, KILL_AT);
      redis.kill();
      waitFor(created, RESTART_AT);
      redis.start();
      CliRun run = running.get(100, TimeUnit.SECONDS);

      assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(ExitCodes.OK);
      // Every payment made once: the keys kept their promise through the outage.
      Map<String, Long> perKey = server.stats().resourcesCreatedPerKey("payments");
      assertThat(server.stats().resourcesCreated("payments")).isEqualTo(PAYMENTS);
      assertThat(perKey).hasSize(PAYMENTS).allSatisfy((key, n) -> assertThat(n).isEqualTo(1));
      // One line each way, naming where Redis is and what the run does meanwhile.
      assertThat(run.err())
          .containsOnlyOnce("relent: Redis at " + redis.uri() + " is away (")
          .contains("this process goes on alone at its share of the account's rate")
          .containsOnlyOnce(
              "relent: Redis at " + redis.uri() + " answers again; the account is shared again");
      // Back on Redis: the restarted, empty server holds the account's state again (the processes
      // sharing its guards; the pacer's own hash expires a second after its last change).
      assertThat(
              SharedBatchOptionsTest.exists(redis.uri(), "relent:{account:fallback-test}:members"))
          .isTrue();
    }
  }

  private static void waitFor(LongSupplier created, long count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (created.getAsLong() < count) {
      assertThat(System.nanoTime()).as("%d payments made within 60 s", count).isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
