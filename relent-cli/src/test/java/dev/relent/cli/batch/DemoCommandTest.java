package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code relent demo} runs (real time, about seven seconds), exits 0, and every claim it prints is
 * one it checked against the server's records.
 */
class DemoCommandTest {

  @Test
  void theDemoRunsAndEveryClaimHolds() {
    DemoCommand[] demo = new DemoCommand[1];
    CliRun run =
        CliRun.of(
            (CommandLine cli) -> demo[0] = cli.getSubcommands().get("demo").getCommand(),
            "demo",
            "--progress",
            "lines");

    assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCodes.OK);
    List<DemoCommand.Claim> claims = demo[0].claims;
    assertThat(claims).hasSize(9).allMatch(DemoCommand.Claim::holds);
    String out = run.out();
    assertThat(out)
        .startsWith("relent demo: a rate-limited, half-broken payment API, survived end to end.\n")
        .contains("Relent sends 27 requests (20 reads, 1 slow report, 5 payments")
        .contains("What happened to a few of them")
        .contains("  report  GET /reports/daily\n")
        .contains("read timeout")
        .contains("  legacy-pay  POST /legacy/payments  (no Idempotency-Key)\n")
        .contains("-> not re-sent. Relent says, for whoever reconciles it:")
        .contains("HTTP 201, replayed")
        .contains("Summary: 27 requests in ")
        .contains("26 succeeded, 1 failed, 0 not finished")
        .contains("  final failures     1 (not-resent 1)\n")
        .contains("[ ok ] 20 of 20 reads succeeded")
        .contains("[ ok ] 5 keyed payments: 5 succeeded; the server holds 5 payments, 5 keys,")
        .contains(
            "[ ok ] the payment without a key got a 504 and was sent once; the server holds 1")
        .contains("[ ok ] 0 requests were rejected by the API's rate limit of 600/min")
        .contains("All claims hold.")
        .doesNotContain("FAIL");
    // the live progress: plain lines on stderr when there is no terminal
    assertThat(run.err()).contains("progress: ").contains(" done, ").contains(" in flight, ");
  }
}
