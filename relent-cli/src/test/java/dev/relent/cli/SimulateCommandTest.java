package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {
  @TempDir Path dir;

  @Test
  void queueWritesTheTableTheCsvAndTheReport() throws Exception {
    Path csv = dir.resolve("queue.csv");
    Path html = dir.resolve("queue.html");
    CliRun run =
        CliRun.of(
            "simulate",
            "queue",
            "--seed",
            "7",
            "--trials",
            "1",
            "--csv",
            csv.toString(),
            "--html",
            html.toString());

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .startsWith("Paced queue: 600 requests, account limit 120/min")
        .contains("mean of 1 trial, seed 7")
        .contains("wrote " + csv)
        .contains("wrote " + html);
    assertThat(Files.readString(csv, StandardCharsets.UTF_8))
        .startsWith(
            "strategy,scenario,time_s,limit_s,throttled,peak_concurrency,attempts,failed,"
                + "other_throttled,other_requests\nburst,alone,");
    assertThat(Files.readString(html, StandardCharsets.UTF_8))
        .startsWith("<!DOCTYPE html>")
        .contains("<svg")
        .contains("relent simulate queue --seed 7 --trials 1");
  }

  @Test
  void contentionCsvHasTheStudysColumnsAndIsTheSameForTheSameSeed() throws Exception {
    Path first = dir.resolve("a.csv");
    Path second = dir.resolve("b.csv");
    assertThat(
            CliRun.of("simulate", "contention", "--trials", "1", "--csv", first.toString())
                .exitCode())
        .isZero();
    CliRun run = CliRun.of("simulate", "contention", "--trials", "1", "--csv", second.toString());
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("at N = 100, relative to exponential backoff without jitter:");
    byte[] a = Files.readAllBytes(first);
    assertThat(a).isEqualTo(Files.readAllBytes(second));
    String text = new String(a, StandardCharsets.UTF_8);
    assertThat(text).startsWith("strategy,clients,calls,time_ms\nnone,10,");
    assertThat(text.split("\n")).hasSize(1 + 8 * 19);
  }

  @Test
  void stormRunsWithItsDefaults() {
    CliRun run = CliRun.of("simulate", "storm", "--trials", "1", "--seed", "3");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .startsWith("Retry storm: 1000 requests/s, capacity 1500/s")
        .contains("full+budget+breaker");
  }

  @Test
  void anUnknownModelIsAUsageErrorThatListsTheModels() {
    CliRun run = CliRun.of("simulate", "jitter");
    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .startsWith(
            "relent: unknown model 'jitter': expected one of contention, storm, queue"
                + System.lineSeparator())
        .contains("relent simulate --help");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void aMissingModelIsAUsageError() {
    CliRun run = CliRun.of("simulate");
    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("Missing required parameter: 'MODEL'");
  }

  @Test
  void badTrialsSeedsAndFlagsAreUsageErrors() {
    CliRun zero = CliRun.of("simulate", "queue", "--trials", "0");
    assertThat(zero.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(zero.err()).startsWith("relent: --trials must be between 1 and 100000: 0");

    CliRun seed = CliRun.of("simulate", "queue", "--seed", "abc");
    assertThat(seed.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(seed.err()).contains("--seed").contains("'abc' is not a long");

    CliRun flag = CliRun.of("simulate", "queue", "--speed", "2");
    assertThat(flag.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(flag.err()).startsWith("relent: Unknown options: '--speed', '2'");
  }

  @Test
  void aFileThatCannotBeWrittenIsAnErrorNamingTheFileAndTheReason() {
    Path missing = dir.resolve("no-such-dir").resolve("out.csv");
    CliRun run = CliRun.of("simulate", "queue", "--trials", "1", "--csv", missing.toString());
    assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(run.err())
        .isEqualTo(
            "relent: cannot write "
                + missing
                + ": the directory does not exist"
                + System.lineSeparator());

    CliRun directory = CliRun.of("simulate", "queue", "--trials", "1", "--html", dir.toString());
    assertThat(directory.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(directory.err()).startsWith("relent: cannot write " + dir + ": ");
  }

  @Test
  void helpListsTheModels() {
    CliRun run = CliRun.of("simulate", "--help");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("contention")
        .contains("storm")
        .contains("queue")
        .contains("--csv");
  }
}
