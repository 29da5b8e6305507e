package dev.relent.cli;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RetryPolicy;
import dev.relent.time.RandomSource;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The retry flags shared by {@code relent call} and {@code relent batch} (a picocli mixin): how
 * many retries, the backoff and its jitter, the time limit of each attempt and of each request, the
 * longest server wait accepted, and the jitter's seed. Defaults: 5 retries, base 500 ms, cap 30 s,
 * full jitter, 10 s per attempt, 60 s per request, the longest server wait = the deadline,
 * unseeded.
 *
 * <p>Not thread-safe: picocli fills the fields, then one command reads them.
 */
final class RetryOptions {
  @Option(
      names = "--max-retries",
      paramLabel = "N",
      defaultValue = "5",
      description = "Most retries after the first attempt. Default ${DEFAULT-VALUE}.")
  int maxRetries;

  @Option(
      names = "--base",
      paramLabel = "DURATION",
      defaultValue = "500ms",
      converter = DurationConverter.class,
      description = "Backoff window of the first retry; it doubles each retry. Default 500ms.")
  Duration base;

  @Option(
      names = "--cap",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description = "Longest backoff wait. Default 30s.")
  Duration cap;

  @Option(
      names = "--jitter",
      paramLabel = "full|equal|decorrelated|none",
      defaultValue = "full",
      converter = CallCommand.JitterConverter.class,
      description = "How the backoff wait is randomised. Default full.")
  Jitter jitter;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Time limit of each attempt (never more than the deadline left). Default 10s.")
  Duration timeout;

  @Option(
      names = "--deadline",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description = "Time limit of the whole call, waits included. Default 60s.")
  Duration deadline;

  @Option(
      names = "--max-wait",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "Longest server-requested wait (Retry-After, rate-limit reset) accepted; a longer one"
              + " fails at once (exit 5). Default: the deadline.")
  Duration maxWait;

  @Option(names = "--seed", paramLabel = "N", description = "Seed the jitter (repeatable waits).")
  Long seed;

  /**
   * Checks the values that picocli cannot: positive durations, a cap not below the base, retries
   * not negative.
   *
   * @param cli the command line, for the usage error
   * @throws UsageError naming the flag and the value
   */
  void validate(CommandLine cli) {
    checkPositive(cli, "--base", base);
    checkPositive(cli, "--cap", cap);
    checkPositive(cli, "--timeout", timeout);
    checkPositive(cli, "--deadline", deadline);
    if (maxRetries < 0) {
      throw new UsageError(cli, "--max-retries must be 0 or more: " + maxRetries);
    }
    if (cap.compareTo(base) < 0) {
      throw new UsageError(
          cli,
          "--cap "
              + Format.duration(cap)
              + " is less than --base "
              + Format.duration(base)
              + "; the cap must be at least the base");
    }
  }

  /** The policy these flags describe: counts and times only (the decision table classifies). */
  RetryPolicy policy() {
    RetryPolicy.Builder b =
        RetryPolicy.builder()
            .withMaxRetries(maxRetries)
            .withBackoff(Backoff.builder().withBase(base).withCap(cap).withJitter(jitter).build())
            .withAttemptTimeout(timeout)
            .withDeadline(deadline);
    if (maxWait != null) {
      b.withMaxServerWait(maxWait);
    }
    return b.build();
  }

  /** The jitter's randomness: seeded with {@code --seed}, else the system's. */
  RandomSource random() {
    return seed == null ? RandomSource.system() : RandomSource.seeded(seed);
  }

  private static void checkPositive(CommandLine cli, String flag, Duration d) {
    if (d.isZero() || d.isNegative()) {
      throw new UsageError(cli, flag + " must be more than 0: " + Format.duration(d));
    }
  }
}
