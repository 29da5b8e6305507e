package dev.relent.cli.common;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RetryPolicy;
import dev.relent.RetryPolicyConfig;
import dev.relent.time.RandomSource;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The retry flags shared by {@code relent call} and {@code relent batch} (a picocli mixin): how
 * many retries, the backoff and its jitter, the time limit of each attempt and of each request, the
 * longest server wait accepted, and the jitter's seed. Defaults: relent-core's ({@link
 * RetryPolicyConfig#DEFAULT_MAX_RETRIES}, {@link Backoff#ofDefaults()}, {@link
 * RetryPolicyConfig#DEFAULT_ATTEMPT_TIMEOUT}: 5 retries, base 500 ms, cap 30 s, full jitter, 10 s
 * per attempt), except the deadline ({@link #DEFAULT_DEADLINE}, 60 s); the longest server wait =
 * the deadline; unseeded. A command using them names {@link Defaults} as its default provider.
 *
 * <p>Not thread-safe: picocli fills the fields, then one command reads them.
 */
public final class RetryOptions {
  /**
   * The deadline of each request: 60 s, where the library's is 30 s ({@link
   * RetryPolicyConfig#DEFAULT_DEADLINE}). In a batch, the wait for the shared pacer counts against
   * each request's deadline, and a 429 pauses the pacer for every worker: one {@code Retry-After:
   * 40} (a per-minute limit's reset) under a 30 s deadline fails the request that got it and
   * records every request taken from the queue during the pause as not sent. 60 s waits out a
   * per-minute window. {@code call} and {@code batch} share the retry flags, so one default serves
   * both; docs/cli.md says why.
   */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(60);

  @Option(
      names = "--max-retries",
      paramLabel = "N",
      description = "Most retries after the first attempt. Default ${DEFAULT-VALUE}.")
  public int maxRetries;

  @Option(
      names = "--base",
      paramLabel = "DURATION",
      description =
          "Backoff window of the first retry; it doubles each retry. Default ${DEFAULT-VALUE}.")
  public Duration base;

  @Option(
      names = "--cap",
      paramLabel = "DURATION",
      description = "Longest backoff wait. Default ${DEFAULT-VALUE}.")
  public Duration cap;

  @Option(
      names = "--jitter",
      paramLabel = "full|equal|decorrelated|none",
      description = "How the backoff wait is randomised. Default ${DEFAULT-VALUE}.")
  public Jitter jitter;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      description =
          "Time limit of each attempt (never more than the deadline left). Default"
              + " ${DEFAULT-VALUE}.")
  public Duration timeout;

  @Option(
      names = "--deadline",
      paramLabel = "DURATION",
      description = "Time limit of the whole call, waits included. Default ${DEFAULT-VALUE}.")
  public Duration deadline;

  @Option(
      names = "--max-wait",
      paramLabel = "DURATION",
      description =
          "Longest server-requested wait (Retry-After, rate-limit reset) accepted; a longer one"
              + " fails at once (exit 5). Default: the deadline.")
  public Duration maxWait;

  @Option(names = "--seed", paramLabel = "N", description = "Seed the jitter (repeatable waits).")
  public Long seed;

  /**
   * Checks the values that picocli cannot: positive durations, a cap not below the base, retries
   * not negative.
   *
   * @param cli the command line, for the usage error
   * @throws UsageError naming the flag and the value
   */
  public void validate(CommandLine cli) {
    UsageError.requirePositive(cli, "--base", base);
    UsageError.requirePositive(cli, "--cap", cap);
    UsageError.requirePositive(cli, "--timeout", timeout);
    UsageError.requirePositive(cli, "--deadline", deadline);
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
  public RetryPolicy policy() {
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
  public RandomSource random() {
    return seed == null ? RandomSource.system() : RandomSource.seeded(seed);
  }

  /**
   * The defaults of these flags, as picocli reads them (an annotation can hold only a constant
   * text): relent-core's, written as the flags are ({@code 500ms}), so that the help shows them.
   */
  public static final class Defaults implements CommandLine.IDefaultValueProvider {
    @Override
    public String defaultValue(CommandLine.Model.ArgSpec arg) {
      if (!(arg instanceof CommandLine.Model.OptionSpec)) {
        return null;
      }
      switch (((CommandLine.Model.OptionSpec) arg).longestName()) {
        case "--max-retries":
          return Integer.toString(RetryPolicyConfig.DEFAULT_MAX_RETRIES);
        case "--base":
          return DurationConverter.text(Backoff.ofDefaults().base());
        case "--cap":
          return DurationConverter.text(Backoff.ofDefaults().cap());
        case "--jitter":
          return Format.slug(Backoff.ofDefaults().jitter());
        case "--timeout":
          return DurationConverter.text(RetryPolicyConfig.DEFAULT_ATTEMPT_TIMEOUT);
        case "--deadline":
          return DurationConverter.text(DEFAULT_DEADLINE);
        default:
          return null;
      }
    }
  }

  /** Reads {@code full}, {@code equal}, {@code decorrelated} or {@code none}, in any case. */
  public static final class JitterConverter implements CommandLine.ITypeConverter<Jitter> {
    static final String FORMS = "full, equal, decorrelated or none";

    @Override
    public Jitter convert(String value) {
      for (Jitter j : Jitter.values()) {
        if (j.name().equalsIgnoreCase(value.trim())) {
          return j;
        }
      }
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a jitter kind; use " + FORMS);
    }
  }
}
