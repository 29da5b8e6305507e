package dev.relent.internal.exec;

import dev.relent.AsyncSupplier;
import dev.relent.CheckedSupplier;
import dev.relent.ContextualSupplier;
import dev.relent.RelentCounters;
import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import dev.relent.RelentListener;
import dev.relent.RetryPolicy;
import dev.relent.guard.AdaptiveThrottle;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.internal.chain.GuardChain;
import java.util.EnumMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The one {@link RelentExecutor}. Holds the shared, immutable wiring and the counters; the per-call
 * state lives in {@link Execution} (sync) and {@link AsyncExecution} (async), which share every
 * decision so that the two modes cannot drift apart.
 */
public final class RelentExecutorImpl<R> implements RelentExecutor<R> {
  private final RetryPolicy policy;
  private final CircuitBreaker breaker;
  private final RetryBudget budget;
  private final Pacer pacer;
  private final AdaptiveThrottle throttle;
  private final ConcurrencyLimit limit;
  private final List<RelentListener<R>> listeners;

  /** The guards every call passes, absent ones as no-ops. */
  final GuardChain guards;

  /** The limits, judges and time sources every call decides by. */
  final ExecutionSettings<R> settings;

  /**
   * One synchronous execution per thread, reused so that a call that succeeds allocates nothing. It
   * holds no reference to the caller's objects, nor to this executor, between calls ({@link
   * Execution#clear()}): an executor no longer used is collected even while the threads that called
   * it live on.
   */
  private final ThreadLocal<Execution<R>> perThread = new ThreadLocal<>();

  private final LongAdder firstAttempts = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder successes = new LongAdder();
  private final LongAdder[] failures = new LongAdder[RelentException.Reason.values().length + 1];

  /**
   * Creates the executor {@link RelentExecutor.Builder#build()} describes.
   *
   * @param policy the retry policy
   * @param breaker the circuit breaker, or null
   * @param budget the retry budget, or null
   * @param pacer the pacer, or null
   * @param throttle the adaptive throttle, or null
   * @param limit the concurrency limit, or null
   * @param listeners the executor-wide listeners, copied
   * @param settings the limits, judges and time sources every call decides by
   */
  public RelentExecutorImpl(
      RetryPolicy policy,
      CircuitBreaker breaker,
      RetryBudget budget,
      Pacer pacer,
      AdaptiveThrottle throttle,
      ConcurrencyLimit limit,
      List<RelentListener<R>> listeners,
      ExecutionSettings<R> settings) {
    this.policy = policy;
    this.breaker = breaker;
    this.budget = budget;
    this.pacer = pacer;
    this.throttle = throttle;
    this.limit = limit;
    this.listeners = List.copyOf(listeners);
    this.guards = new GuardChain(breaker, throttle, limit, pacer, budget);
    this.settings = settings;
    for (int i = 0; i < failures.length; i++) {
      failures[i] = new LongAdder();
    }
  }

  @Override
  public R get(CheckedSupplier<? extends R> attempt) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    return runSync(attempt, null, null, null);
  }

  @Override
  public R get(ContextualSupplier<? extends R> attempt) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    return runSync(null, attempt, null, null);
  }

  @Override
  public R get(ContextualSupplier<? extends R> attempt, RelentListener<R> listener) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    Objects.requireNonNull(listener, "listener cannot be null");
    return runSync(null, attempt, listener, null);
  }

  @Override
  public R get(
      List<Scope> scopes, ContextualSupplier<? extends R> attempt, RelentListener<R> listener) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    return runSync(null, attempt, listener, checkScopes(scopes));
  }

  /** The scopes of a call, copied; null when the call names none. */
  private List<Scope> checkScopes(List<Scope> scopes) {
    Objects.requireNonNull(scopes, "scopes cannot be null");
    if (scopes.isEmpty()) {
      return null;
    }
    if (settings.registry == null) {
      throw new IllegalStateException(
          "the call names scopes "
              + scopes
              + " but the executor has no guard registry: build it withScopes(registry)");
    }
    return List.copyOf(scopes);
  }

  private R runSync(
      CheckedSupplier<? extends R> plain,
      ContextualSupplier<? extends R> contextual,
      RelentListener<R> listener,
      List<Scope> scopes) {
    long now = settings.ticker.read();
    Execution<R> execution = perThread.get();
    if (execution == null) {
      execution = new Execution<>(this, now);
      perThread.set(execution);
    } else if (execution.busy) {
      execution = new Execution<>(this, now); // a nested call on this thread
    }
    execution.reuse(this, now, listener, scopes);
    try {
      return execution.run(plain, contextual);
    } finally {
      execution.clear();
    }
  }

  @Override
  public CompletableFuture<R> getAsync(AsyncSupplier<? extends R> attempt) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    return new AsyncExecution<>(this, settings.ticker.read(), attempt, null, null).start();
  }

  @Override
  public CompletableFuture<R> getAsync(
      AsyncSupplier<? extends R> attempt, RelentListener<R> listener) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    Objects.requireNonNull(listener, "listener cannot be null");
    return new AsyncExecution<>(this, settings.ticker.read(), attempt, listener, null).start();
  }

  @Override
  public CompletableFuture<R> getAsync(
      List<Scope> scopes, AsyncSupplier<? extends R> attempt, RelentListener<R> listener) {
    Objects.requireNonNull(attempt, "attempt cannot be null");
    List<Scope> checked = checkScopes(scopes);
    return new AsyncExecution<>(this, settings.ticker.read(), attempt, listener, checked).start();
  }

  @Override
  public Optional<GuardRegistry> registry() {
    return Optional.ofNullable(settings.registry);
  }

  @Override
  public Optional<CircuitBreaker> circuitBreaker() {
    return Optional.ofNullable(breaker);
  }

  @Override
  public Optional<RetryBudget> retryBudget() {
    return Optional.ofNullable(budget);
  }

  @Override
  public Optional<Pacer> pacer() {
    return Optional.ofNullable(pacer);
  }

  @Override
  public Optional<ConcurrencyLimit> concurrencyLimit() {
    return Optional.ofNullable(limit);
  }

  @Override
  public RetryPolicy policy() {
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

  /** Counts a call's first attempt. */
  void countFirstAttempt() {
    firstAttempts.increment();
  }

  /** Counts an attempt after the first. */
  void countRetry() {
    retries.increment();
  }

  /** Counts a call that returned a result. */
  void countSuccess() {
    successes.increment();
  }

  /** Counts a call that gave up for {@code reason}. */
  void countGiveUp(RelentException.Reason reason) {
    failures[reason.ordinal()].increment();
  }

  /** Counts a final failure that is not a RelentException (an unchecked failure, rethrown). */
  void countPlainFailure() {
    failures[failures.length - 1].increment();
  }

  /** Tells the executor-wide listeners, then the call's own one, if any. */
  void emit(RelentEvent<R> event, RelentListener<R> callListener) {
    for (int i = 0; i < listeners.size(); i++) {
      notify(listeners.get(i), event);
    }
    if (callListener != null) {
      notify(callListener, event);
    }
  }

  private static <R> void notify(RelentListener<R> listener, RelentEvent<R> event) {
    try {
      listener.onEvent(event);
    } catch (RuntimeException ignored) {
      // Observing must never change the outcome of an operation (see RelentListener).
    }
  }

  /** Whether any executor-wide listener is registered. */
  boolean observed() {
    return !listeners.isEmpty();
  }

  @Override
  public String toString() {
    return "RelentExecutor[policy="
        + policy
        + ", breaker="
        + breaker
        + ", budget="
        + budget
        + ", pacer="
        + pacer
        + ", throttle="
        + throttle
        + ", limit="
        + limit
        + (settings.registry == null ? "" : ", scopes=" + settings.registry)
        + "]";
  }
}
