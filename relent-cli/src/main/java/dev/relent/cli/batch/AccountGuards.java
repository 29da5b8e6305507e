package dev.relent.cli.batch;

import dev.relent.cli.common.Rate;
import dev.relent.cli.common.UsageError;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.http.HttpScopes;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.redis.RelentRedis;
import dev.relent.time.TimeSource;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;

/**
 * The pacing and guard options of {@code relent batch} for another command that sends requests
 * under the same rules ({@code relent proxy}): {@code --scope-by} and {@code --route}, {@code
 * --rate}, {@code --concurrency}, {@code --retry-budget}, {@code --breaker}, and {@code --shared
 * redis://… --account NAME}. The checks, the messages and the guards are the batch's own (every
 * scope learns its own rate with an adaptive pacer, under {@code --rate}; with {@code --shared}
 * their schedules, pauses and the budget and breaker live in Redis for the whole account), so that
 * both commands behave, and fail, the same way.
 */
public final class AccountGuards {
  private AccountGuards() {}

  /** The accepted form of {@code --shared}, for help. */
  public static final String SHARED_FORM = BatchSharing.FORM;

  /** The accepted values of {@code --scope-by}, for help. */
  public static final String SCOPE_FORMS = BatchScopes.FORMS;

  /**
   * Reads {@code --scope-by} and {@code --route}.
   *
   * @throws UsageError saying what was wrong and what is accepted
   */
  public static HttpScopes scopes(CommandLine cli, String scopeBy, List<String> routes) {
    try {
      return BatchScopes.parse(scopeBy, routes);
    } catch (IllegalArgumentException e) {
      throw new UsageError(cli, e.getMessage());
    }
  }

  /**
   * Reads {@code --retry-budget} (a ratio 0 to 1 or a percentage; {@code percent} false) or {@code
   * --breaker} (a failure rate in percent; {@code percent} true).
   *
   * @throws UsageError saying what is accepted
   */
  public static double ratio(CommandLine cli, String option, String given, boolean percent) {
    return BatchCommand.ratio(cli, option, given, percent);
  }

  /**
   * Checks {@code --shared} and {@code --account} and connects to Redis; null without {@code
   * --shared}.
   *
   * @param fallbackAccount the account when {@code --account} is not given (a host), or null
   * @throws UsageError if a value is malformed, the account cannot be named or Redis cannot be
   *     reached, saying what to do
   */
  public static Fleet share(
      CommandLine cli, String shared, String account, String fallbackAccount, PrintWriter err) {
    if (shared == null) {
      if (account != null) {
        throw new UsageError(
            cli,
            "--account names whose schedule --shared shares: give --shared "
                + BatchSharing.FORM
                + " too, or leave out --account");
      }
      return null;
    }
    BatchSharing.Target target = BatchSharing.target(cli, shared);
    String name = account;
    if (name != null) {
      BatchSharing.checkAccount(cli, name);
    } else {
      name = BatchSharing.accountOf(fallbackAccount);
      if (name == null) {
        throw new UsageError(cli, "--shared needs --account NAME: no upstream host names one");
      }
    }
    RelentRedis redis = BatchSharing.connect(cli, target, err);
    return new Fleet(new BatchSettings.Shared(redis, name));
  }

  /**
   * Puts the guards on an adapter's builder: every scope's adaptive pacer (its rate learned from
   * the answers of that scope, under {@code rate}), the ceiling {@code rate} for all, the
   * concurrency limit, the retry budget and the breaker, each shared through {@code fleet} when
   * given.
   *
   * @param builder the adapter's builder
   * @param rate the ceiling, or null
   * @param concurrency the most attempts in flight, or null for no limit
   * @param retryRatio the retry budget's ratio, or null for none
   * @param breakerPercent the breaker's failure rate, or null for none
   * @param scopes how requests get their scopes
   * @param fleet where the state is shared, or null
   * @param time the time source the adapter uses
   * @return the builder
   */
  public static <R, B extends HttpAdapterBuilder<R, B>> B apply(
      B builder,
      Rate rate,
      Integer concurrency,
      Double retryRatio,
      Double breakerPercent,
      HttpScopes scopes,
      Fleet fleet,
      TimeSource time) {
    BatchSettings.Shared shared = fleet == null ? null : fleet.shared;
    GuardRegistry registry = BatchRun.registry(rate, shared, time);
    Pacer ceiling = BatchRun.ceiling(rate, shared, time);
    BatchSettings.Guards guards = new BatchSettings.Guards(retryRatio, breakerPercent);
    return builder
        .withScopes(scopes, registry)
        .withExecutor(
            x -> {
              if (ceiling != null) {
                x.withPacer(ceiling);
              }
              if (concurrency != null) {
                x.withConcurrencyLimit(BatchRun.concurrencyLimit(concurrency, shared));
              }
              BatchRun.guarded(x, guards, shared, time);
            });
  }

  /** State shared through Redis by every process of one account: the caller closes it. */
  public static final class Fleet implements AutoCloseable {
    private final BatchSettings.Shared shared;

    Fleet(BatchSettings.Shared shared) {
      this.shared = shared;
    }

    /** {@code shared through redis://host:port as account NAME}. */
    public String describe() {
      return shared.describe();
    }

    @Override
    public void close() {
      shared.redis().close();
    }
  }
}
