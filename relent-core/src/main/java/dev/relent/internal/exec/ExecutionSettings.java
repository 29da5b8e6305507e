package dev.relent.internal.exec;

import dev.relent.Backoff;
import dev.relent.HintExtractor;
import dev.relent.OutcomeClassifier;
import dev.relent.OutcomeDescriber;
import dev.relent.PauseTarget;
import dev.relent.RetryPolicyConfig;
import dev.relent.ServerHint;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.internal.Nanos;
import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Scheduler;
import dev.relent.time.Sleeper;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;

/**
 * What every call of one executor decides by, apart from its guards ({@link
 * dev.relent.internal.chain.GuardChain}): the policy's limits in ticker nanoseconds, how outcomes
 * are judged, described and read for hints, and the time sources. An absent hint extractor or pause
 * target is one that finds nothing, so that an execution never checks for null; and the access to
 * what {@code dev.relent} keeps package-private ({@link ApiAccess}).
 *
 * <p>Immutable and thread-safe; made once per executor.
 */
public final class ExecutionSettings<R> {
  private static final HintExtractor<Object> NO_HINTS = (result, failure) -> null;
  private static final PauseTarget<Object> NO_TARGET = (result, failure, hint) -> null;

  final long deadlineNanos;
  final long attemptTimeoutNanos;

  /** The longest server wait allowed; the deadline when the policy sets none. */
  final long maxServerWaitNanos;

  final int maxRetries;
  final Backoff backoff;
  final double serverWaitSpread;

  final OutcomeClassifier<R> classifier;
  final OutcomeDescriber<R> describer;
  final HintExtractor<R> hints;
  final PauseTarget<R> pauseTarget;

  /** The registry a call's scopes are taken from; null when the executor has none. */
  final GuardRegistry registry;

  final Ticker ticker;
  final Clock clock;
  final Sleeper sleeper;
  final Scheduler scheduler;
  final RandomSource random;

  /** How the executor makes the API's exceptions and events and reads a hint's numbers. */
  final ApiAccess api;

  /**
   * Creates the settings of one executor.
   *
   * @param config the policy's settings
   * @param classifier judges each outcome
   * @param describer describes outcomes for messages and events
   * @param hints reads server hints, or null for none
   * @param pauseTarget says which scope an answer pauses, or null for none
   * @param registry the guards of scopes, or null when the executor has none
   * @param time the sources of time and chance
   * @param api the access to what {@code dev.relent} does not publish
   */
  @SuppressWarnings("unchecked")
  public ExecutionSettings(
      RetryPolicyConfig config,
      OutcomeClassifier<R> classifier,
      OutcomeDescriber<R> describer,
      HintExtractor<R> hints,
      PauseTarget<R> pauseTarget,
      GuardRegistry registry,
      TimeSource time,
      ApiAccess api) {
    deadlineNanos = Nanos.saturatedNanos(config.deadline());
    attemptTimeoutNanos = Nanos.saturatedNanos(config.attemptTimeout());
    maxServerWaitNanos = config.maxServerWait().map(Nanos::saturatedNanos).orElse(deadlineNanos);
    maxRetries = config.maxRetries();
    backoff = config.backoff();
    serverWaitSpread = config.serverWaitSpread();
    this.classifier = classifier;
    this.describer = describer;
    this.hints = hints != null ? hints : (HintExtractor<R>) (HintExtractor<?>) NO_HINTS;
    this.pauseTarget =
        pauseTarget != null ? pauseTarget : (PauseTarget<R>) (PauseTarget<?>) NO_TARGET;
    this.registry = registry;
    ticker = time.ticker();
    clock = time.clock();
    sleeper = time.sleeper();
    scheduler = time.scheduler();
    random = time.random();
    this.api = api;
  }

  /** Whether {@code hint} tells a pacer of the server's quota: what is left, or its policy. */
  boolean reportsQuota(ServerHint hint) {
    return hint.hasQuota() || api.policyQuota(hint) > 0;
  }

  /** Tells {@code pacer} the server's quota as {@code hint} reports it; allocates nothing. */
  void observeQuota(Pacer pacer, long attemptStart, ServerHint hint) {
    pacer.observeQuota(
        attemptStart,
        api.quotaRemaining(hint),
        api.quotaResetNanos(hint),
        api.policyQuota(hint),
        api.policyWindowNanos(hint));
  }
}
