package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.common.ExitCodes;
import org.junit.jupiter.api.Test;

class PlanCommandTest {

  @Test
  void theWorkedExampleComesOutExactly() {
    CliRun run =
        CliRun.of(
            "plan",
            "--limit",
            "120/min",
            "--target",
            "90/min",
            "--requests",
            "600",
            "--latency",
            "2s");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .isEqualTo(
            String.join(
                System.lineSeparator(),
                "Plan for 600 requests at 90/min (provider limit 120/min)",
                "  start rate            1.5 requests/s",
                "  start interval        one start every 667 ms",
                "  minimum duration      400 s (6 min 40 s); 300 s (5 min) at the limit",
                "  average concurrency   3 (1.5/s x 2 s, Little's law)",
                "  headroom              25 % below the provider's limit",
                "Pace the starts; sending everything at once and then waiting is still a spike.",
                ""));
  }

  @Test
  void jsonGivesTheSameFiguresForScripts() {
    CliRun run =
        CliRun.of(
            "plan",
            "--limit",
            "120/min",
            "--target",
            "90/min",
            "--requests",
            "600",
            "--latency",
            "2s",
            "--json");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().trim())
        .isEqualTo(
            "{\"limit_per_second\":2,\"target_per_second\":1.5,\"start_interval_ms\":666.67,"
                + "\"minimum_duration_s\":400,\"duration_at_limit_s\":300,"
                + "\"average_concurrency\":3,\"headroom_percent\":25,\"warnings\":[]}");
  }

  @Test
  void aTargetAboveTheLimitIsWarnedAbout() {
    CliRun run =
        CliRun.of(
            "plan",
            "--limit",
            "120/min",
            "--target",
            "150/min",
            "--requests",
            "10",
            "--latency",
            "1s");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains(
            "warning: the target 150/min exceeds the provider's limit 120/min: expect 429s;"
                + " run below the limit")
        .contains("headroom              -25 % below the provider's limit");
  }

  @Test
  void theTargetDefaultsToThreeQuartersOfTheLimit() {
    CliRun run = CliRun.of("plan", "--limit", "120/min", "--requests", "600", "--latency", "2s");
    assertThat(run.out()).startsWith("Plan for 600 requests at 90/min (provider limit 120/min)");
  }

  @Test
  void concurrencyAndDailyQuotaAreCheckedAgainstThePlan() {
    CliRun run =
        CliRun.of(
            "plan",
            "--limit",
            "120/min",
            "--target",
            "90/min",
            "--requests",
            "600",
            "--latency",
            "2s",
            "--concurrency",
            "2",
            "--daily-quota",
            "500");
    assertThat(run.out())
        .contains(
            "warning: a concurrency of 2 at 2 s per response allows at most 1/s, less than the"
                + " target 1.5/s")
        .contains("warning: the queue of 600 exceeds the daily quota of 500");
  }

  @Test
  void aWrongRateSaysWhatWasWrongAndTheAcceptedForms() {
    CliRun run =
        CliRun.of("plan", "--limit", "120 per minute", "--requests", "1", "--latency", "2s");
    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .contains("'120 per minute' is not a rate; use N/s, N/min, N/h or N/day, e.g. 90/min");
  }

  @Test
  void aBareNumberIsNotADuration() {
    CliRun run = CliRun.of("plan", "--limit", "120/min", "--requests", "1", "--latency", "12");
    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("'12' is not a duration; use 250ms, 2s");
  }

  @Test
  void aMissingOptionIsAUsageError() {
    CliRun run = CliRun.of("plan", "--limit", "120/min");
    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("Missing required options");
  }

  @Test
  void anUnknownFlagIsAUsageError() {
    CliRun run =
        CliRun.of(
            "plan", "--limit", "120/min", "--requests", "1", "--latency", "2s", "--limt", "1");
    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .contains("Unknown options: '--limt', '1'")
        .contains("Possible solutions: --limit");
  }
}
