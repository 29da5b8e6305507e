package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent batch --retry-budget} and {@code --breaker}: a budget that refuses the retries past
 * its ratio, a breaker that opens on failures and leaves the rest not sent, both shared through
 * Redis with {@code --shared}; bad values are usage errors that send nothing.
 */
class BatchGuardsTest {
  static final String ALWAYS_503 =
      "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 503}]}]}";

  @TempDir Path dir;

  private Path input(MockServer server, int n) throws IOException {
    Path file = dir.resolve("in.jsonl");
    Files.write(file, BatchCommandTest.reads(server, "/items/", n), StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void aRetryBudgetRefusesTheRetriesPastItsRatio() throws IOException {
    try (MockServer server = MockServer.start(Scenario.parse(ALWAYS_503))) {
      Path out = dir.resolve("out.jsonl");
      // 20 requests that each want 10 retries: 200 retries against a budget of 0 per first
      // attempt plus 10 a second over 10 s, at most 100 in the whole run.
      CliRun run =
          BatchCommandTest.batch(
              "batch",
              input(server, 20).toString(),
              "--retry-budget",
              "0%",
              "--max-retries",
              "10",
              "--base",
              "1ms",
              "--cap",
              "1ms",
              "--concurrency",
              "1",
              "--out",
              out.toString(),
              "--progress",
              "off");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.RETRIES_EXHAUSTED);
      List<JsonNode> results = BatchCommandTest.results(out);
      assertThat(results).extracting(r -> r.get("outcome").asText()).contains("retry-budget");
      long attempts = results.stream().mapToLong(r -> r.get("attempts").asLong()).sum();
      assertThat(attempts - 20).as("retries made").isLessThanOrEqualTo(100);
      assertThat(server.journal()).hasSize((int) attempts);
    }
  }

  @Test
  void anOpenBreakerLeavesTheRestNotSent() throws IOException {
    try (MockServer server = MockServer.start(Scenario.parse(ALWAYS_503))) {
      Path out = dir.resolve("out.jsonl");
      CliRun run =
          BatchCommandTest.batch(
              "batch",
              input(server, 40).toString(),
              "--breaker",
              "50%",
              "--max-retries",
              "0",
              "--concurrency",
              "1",
              "--out",
              out.toString(),
              "--progress",
              "off");

      // 20 failures fill the breaker's minimum; it opens, and the 20 others reach no server.
      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(server.journal()).hasSize(20);
      List<JsonNode> results = BatchCommandTest.results(out);
      assertThat(results.subList(20, 40))
          .allSatisfy(
              r -> {
                assertThat(r.get("outcome").asText()).isEqualTo("not-sent");
                assertThat(r.get("final").asBoolean()).isFalse();
                assertThat(r.get("error").asText()).contains("circuit");
              });
    }
  }

  @Test
  void withSharedTheBudgetAndTheBreakerAreTheAccounts() throws IOException {
    String account = "guards-" + UUID.randomUUID();
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200}]}]}"))) {
      CliRun run =
          BatchCommandTest.batch(
              "batch",
              input(server, 3).toString(),
              "--retry-budget",
              "0.2",
              "--breaker",
              "50",
              "--shared",
              SharedBatchOptionsTest.REDIS,
              "--account",
              account,
              "--progress",
              "off");

      assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
    }
    String redis = SharedBatchOptionsTest.REDIS;
    assertThat(SharedBatchOptionsTest.exists(redis, "relent:{account:" + account + "}:budget"))
        .isTrue();
    assertThat(SharedBatchOptionsTest.exists(redis, "relent:{account:" + account + "}:breaker"))
        .isTrue();
  }

  @Test
  void badValuesAreUsageErrorsThatSendNothing() throws IOException {
    try (MockServer server = MockServer.start(Scenario.parse(ALWAYS_503))) {
      String in = input(server, 2).toString();
      for (String[] bad :
          new String[][] {
            {"--retry-budget", "2", "--retry-budget must be retries per first attempt from 0 to 1"},
            {"--retry-budget", "lots", "e.g. 0.2 or 20%: lots"},
            {"--retry-budget", "-5%", "from 0 to 1, or a percentage"},
            {"--breaker", "0", "--breaker must be a failure rate above 0 and at most 100"},
            {"--breaker", "150%", "e.g. 50 or 50%: 150%"},
          }) {
        CliRun run = BatchCommandTest.batch("batch", in, bad[0], bad[1]);
        assertThat(run.exitCode()).as(String.join(" ", bad)).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains(bad[2]);
      }
      assertThat(server.journal()).isEmpty();
    }
  }
}
