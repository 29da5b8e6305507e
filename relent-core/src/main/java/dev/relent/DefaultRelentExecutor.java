package dev.relent;

import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.internal.Nanos;
import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Scheduler;
import dev.relent.time.Sleeper;
import dev.relent.time.Ticker;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The one {@link RelentExecutor}. Holds the shared, immutable wiring and the counters; the per-call
 * state lives in {@link Execution} (sync) and {@link AsyncExecution} (async), which share every
 * decision so that the two modes cannot drift apart.
 */
final class DefaultRelentExecutor<R> implements RelentExecutor<R> {
  final RetryPolicy<R> policy;
  final RetryPolicyConfig<R> config;
  final CircuitBreaker breaker;
  final RetryBudget budget;
  final Pacer pacer;
  final ConcurrencyLimit limit;
  final Ticker ticker;
  final Clock clock;
  final Sleeper sleeper;
  final Scheduler scheduler;
  final RandomSource random;
  final HintExtractor<R> hints;
  final List<RelentListener<R>> listeners;
  final long deadlineNanos;
  final long attemptTimeoutNanos;
  final long maxServerWaitNanos;

  /**
   * One synchronous execution per thread, reused so that a call that succeeds allocates nothing. It
   * holds no reference to the caller's objects between calls ({@link Execution#clear()}).
   */
  private final ThreadLocal<Execution<R>> perThread = new ThreadLocal<>();

  final LongAdder firstAttempts = new LongAdder();
  final LongAdder retries = new LongAdder();
  final LongAdder successes = new LongAdder();
  final LongAdder[] failures = new LongAdder[RelentException.Reason.values().length + 1];

  DefaultRelentExecutor(RelentExecutor.Builder<R> b) {
    policy = b.policy;
    config = b.policy.config();
    breaker = b.breaker;
    budget = b.budget;
    pacer = b.pacer;
    limit = b.limit;
    ticker = b.ticker;
    clock = b.clock;
    sleeper = b.sleeper;
    scheduler = b.scheduler;
    random = b.random;
    hints = config.hintExtractor().orElse(null);
    listeners = List.copyOf(b.listeners);
    deadlineNanos = Nanos.saturatedNanos(config.deadline());
    attemptTimeoutNanos = Nanos.saturatedNanos(config.attemptTimeout());
    maxServerWaitNanos = config.maxServerWait().map(Nanos::saturatedNanos).orElse(deadlineNanos);
    for (int i = 0; i < failures.length; i++) {
      failures[i] = new LongAdder();
    }
  }

  @Override
  public R get(CheckedSupplier<? extends R> attempt) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    return runSync(attempt, null);
  }

  @Override
  public R get(ContextualSupplier<? extends R> attempt) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    return runSync(null, attempt);
  }

  private R runSync(
      CheckedSupplier<? extends R> plain, ContextualSupplier<? extends R> contextual) {
    long now = ticker.read();
    Execution<R> execution = perThread.get();
    if (execution == null) {
      execution = new Execution<>(this, now);
      perThread.set(execution);
    } else if (execution.busy) {
      execution = new Execution<>(this, now); // a nested call on this thread
    }
    execution.reuse(now);
    try {
      return execution.run(plain, contextual);
    } finally {
      execution.clear();
    }
  }

  @Override
  public CompletableFuture<R> getAsync(AsyncSupplier<? extends R> attempt) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    return new AsyncExecution<>(this, ticker.read(), attempt).start();
  }

  @Override
  public RetryPolicy<R> policy() {
    return policy;
  }

  @Override
  public RelentCounters counters() {
    EnumMap<RelentException.Reason, Long> byReason = new EnumMap<>(RelentException.Reason.class);
    long total = 0;
    for (RelentException.Reason reason : RelentException.Reason.values()) {
      long n = failures[reason.ordinal()].sum();
      byReason.put(reason, n);
      total += n;
    }
    // Failures the policy does not retry and that are returned or rethrown as they are.
    total += failures[failures.length - 1].sum();
    return new RelentCounters(firstAttempts.sum(), retries.sum(), successes.sum(), total, byReason);
  }

  /** Counts a final failure that is not a RelentException (an unchecked failure, rethrown). */
  void countPlainFailure() {
    failures[failures.length - 1].increment();
  }

  void emit(RelentEvent<R> event) {
    for (int i = 0; i < listeners.size(); i++) {
      try {
        listeners.get(i).onEvent(event);
      } catch (RuntimeException ignored) {
        // Observing must never change the outcome of an operation (see RelentListener).
      }
    }
  }

  boolean observed() {
    return !listeners.isEmpty();
  }
}
