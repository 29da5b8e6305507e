package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.Backoff;
import dev.relent.RetryPolicyConfig;
import dev.relent.cli.common.DurationConverter;
import dev.relent.cli.common.RetryOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The retry flags take their defaults from relent-core, and the help shows them as flags. */
class RetryOptionsTest {

  static RetryOptions parsed(String command, String... args) {
    CommandLine cli = RelentCli.commandLine();
    String[] all = new String[args.length + 1];
    all[0] = command;
    System.arraycopy(args, 0, all, 1, args.length);
    cli.parseArgs(all);
    return (RetryOptions) cli.getSubcommands().get(command).getMixins().get("retry");
  }

  @Test
  void callAndBatchDefaultToCoresRetriesBackoffAndAttemptTimeoutAndTheCliDeadline() {
    Backoff core = Backoff.ofDefaults();
    for (RetryOptions r :
        List.of(
            parsed("call", "https://example.com/"), parsed("batch", "in.jsonl", "--rate", "1/s"))) {
      assertThat(r.maxRetries).isEqualTo(RetryPolicyConfig.DEFAULT_MAX_RETRIES);
      assertThat(r.base).isEqualTo(core.base());
      assertThat(r.cap).isEqualTo(core.cap());
      assertThat(r.jitter).isEqualTo(core.jitter());
      assertThat(r.timeout).isEqualTo(RetryPolicyConfig.DEFAULT_ATTEMPT_TIMEOUT);
      assertThat(r.deadline).isEqualTo(RetryOptions.DEFAULT_DEADLINE).hasSeconds(60);
      assertThat(r.maxWait).isNull();
      assertThat(r.seed).isNull();
    }
  }

  @Test
  void aFlagStillOverridesItsDefault() {
    RetryOptions r = parsed("call", "--base", "2s", "--deadline", "5m", "https://example.com/");

    assertThat(r.base).isEqualTo(Duration.ofSeconds(2));
    assertThat(r.deadline).isEqualTo(Duration.ofMinutes(5));
    assertThat(r.cap).isEqualTo(Backoff.ofDefaults().cap());
  }

  @Test
  void aDefaultIsWrittenAsAFlagTakesItAndReadsBackTheSame() {
    assertThat(DurationConverter.text(Duration.ofMillis(500))).isEqualTo("500ms");
    assertThat(DurationConverter.text(Duration.ofSeconds(30))).isEqualTo("30s");
    assertThat(DurationConverter.text(Duration.ofSeconds(60))).isEqualTo("60s");
    assertThat(DurationConverter.text(Duration.ofMillis(1500))).isEqualTo("1500ms");
    for (long ms : new long[] {1, 250, 999, 1000, 1001, 59_999, 60_000, 86_400_000}) {
      Duration d = Duration.ofMillis(ms);
      assertThat(DurationConverter.parse(DurationConverter.text(d))).isEqualTo(d);
    }
  }
}
