package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.common.ExitCodes;
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
            "relent: unknown model 'jitter': expected one of contention, storm, queue, limiters"
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
        .contains("limiters")
        .contains("--compare")
        .contains("--csv");
  }

  @Test
  void limitersPredictsTheCasesAskedForAndSetsTheBenchsRunsBesideThem() throws Exception {
    Path tsv = dir.resolve("results.tsv");
    Files.writeString(
        tsv,
        "case\trun\tseconds\tminimum\tratio\tn_200\tn_429\tshare\texit\n"
            + "nginx-burst20\t1\t15.00\t12.9\t1.163\t150\t10\t0.062500\t0\n"
            + "nginx-burst20\t2\t17.00\t12.9\t1.318\t150\t12\t0.074074\t0\n"
            + "window-fixed\t1\t24.82\t20.0\t1.241\t250\t0\t0.000000\t0\n",
        StandardCharsets.UTF_8);
    CliRun run =
        CliRun.of(
            "simulate",
            "limiters",
            "--case",
            "nginx-burst20",
            "--trials",
            "2",
            "--compare",
            tsv.toString());

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .startsWith("Real limiters (bench/limiters.sh), predicted")
        .contains("medians of 2 trials, seed 1")
        .contains("Real (the medians of the bench's results.tsv) vs predicted")
        .doesNotContain("window-fixed");
    // The median of the two runs, 16.0 s, beside the prediction.
    assertThat(run.out().lines().filter(l -> l.startsWith("nginx-burst20")).toList())
        .hasSize(2)
        .last()
        .asString()
        .contains(" 2 ")
        .contains("16.0");
  }

  @Test
  void limitersFlagsAreCheckedAndBelongToItAlone() {
    CliRun unknown = CliRun.of("simulate", "limiters", "--case", "nginx-burst5");
    assertThat(unknown.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(unknown.err())
        .startsWith("relent: --case: no case named 'nginx-burst5': expected one of nginx-burst0,");

    CliRun range = CliRun.of("simulate", "limiters", "--fleet-start", "8s");
    assertThat(range.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(range.err()).startsWith("relent: --fleet-start must be two durations LOW..HIGH");

    CliRun other = CliRun.of("simulate", "queue", "--case", "nginx-burst0");
    assertThat(other.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(other.err()).startsWith("relent: --case, --compare and --fleet-start are for");

    Path missing = dir.resolve("none.tsv");
    CliRun compare =
        CliRun.of(
            "simulate", "limiters", "--case", "window-fixed", "--compare", missing.toString());
    assertThat(compare.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(compare.err()).startsWith("relent: cannot read " + missing + ": ");
  }
}
