package dev.relent.cli.batch;

import dev.relent.RetryPolicy;
import dev.relent.cli.common.Rate;
import dev.relent.guard.Scope;
import dev.relent.http.HttpScopes;
import dev.relent.redis.RedisPacerState;
import dev.relent.redis.RelentRedis;
import dev.relent.time.RandomSource;
import java.time.Duration;

/**
 * The settings of a batch run.
 *
 * @param rate the most starts per unit of time for the whole queue (a ceiling), or null for none
 * @param concurrency the concurrency limit and the number of workers
 * @param policy retries and times of each request
 * @param random the jitter's randomness
 * @param attemptTimeout each attempt's time limit (also the connect timeout)
 * @param batchDeadline the whole run's time limit, or null
 * @param scopes how each request's scopes are derived, and which one a 429 pauses
 * @param shared where the pacers' schedules are shared with other processes, or null for this
 *     process alone
 * @param guards the retry budget and circuit breaker asked for, if any
 */
record BatchSettings(
    Rate rate,
    int concurrency,
    RetryPolicy policy,
    RandomSource random,
    Duration attemptTimeout,
    Duration batchDeadline,
    HttpScopes scopes,
    Shared shared,
    Guards guards) {

  /** The settings of a run that paces alone, with no retry budget and no circuit breaker. */
  BatchSettings(
      Rate rate,
      int concurrency,
      RetryPolicy policy,
      RandomSource random,
      Duration attemptTimeout,
      Duration batchDeadline,
      HttpScopes scopes) {
    this(
        rate,
        concurrency,
        policy,
        random,
        attemptTimeout,
        batchDeadline,
        scopes,
        null,
        Guards.NONE);
  }

  /**
   * The optional guards of a run ({@code --retry-budget}, {@code --breaker}), shared through Redis
   * with the account's other processes when the run is shared.
   *
   * @param retryRatio retries allowed per first attempt over a sliding 10 s, plus 10 a second, or
   *     null for no budget
   * @param breakerPercent the failure rate, in percent of the last 100 attempts (at least 20), at
   *     which the breaker opens for 30 s, or null for no breaker
   */
  record Guards(Double retryRatio, Double breakerPercent) {
    static final Guards NONE = new Guards(null, null);
  }

  /**
   * A pacer schedule shared through Redis by every process that names the same account ({@code
   * --shared}, {@code --account}). The connection is the caller's to close, after the run.
   *
   * @param redis the connection
   * @param account the account's name; the schedule is Redis's {@code relent:{account:NAME}:pacer}
   */
  record Shared(RelentRedis redis, String account) {
    /** The name of the shared ceiling, concurrency, budget and breaker states. */
    String pacerName() {
      return "account:" + account;
    }

    /** The name of a scope's shared pacer state: the account's name and the scope's. */
    String scopeName(Scope scope) {
      return pacerName() + ":" + RedisPacerState.nameOf(scope);
    }

    /** For the summary: {@code shared through redis://host:port as account NAME}. */
    String describe() {
      return "shared through " + redis.uri() + " as account " + account;
    }
  }
}
