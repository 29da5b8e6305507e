package dev.relent;

import dev.relent.guard.GuardRegistry;
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
 * target is one that finds nothing, so that an execution never checks for null.
 *
 * <p>Immutable and thread-safe; made once per executor.
 */
final class ExecutionSettings<R> {
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

  @SuppressWarnings("unchecked")
  ExecutionSettings(
      RetryPolicyConfig config,
      OutcomeClassifier<R> classifier,
      OutcomeDescriber<R> describer,
      HintExtractor<R> hints,
      PauseTarget<R> pauseTarget,
      GuardRegistry registry,
      TimeSource time) {
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
  }
}
