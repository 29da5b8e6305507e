package dev.relent;

import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Scheduler;
import dev.relent.time.Sleeper;
import dev.relent.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Runs operations under a {@link RetryPolicy} and the guards that protect the downstream: a {@link
 * CircuitBreaker}, a {@link RetryBudget}, a {@link ConcurrencyLimit} and a {@link Pacer}, each
 * optional. Every attempt passes them in this order: breaker (open: fail now, nothing sent),
 * concurrency limit (a slot, waiting counts against the deadline), pacer (a start permit; a wait
 * past the deadline fails now), then the attempt with timeout {@code min(attempt timeout, deadline
 * left)}. After a retryable outcome the wait is {@code max(backoff, server hint + spread)}; a hint
 * longer than allowed, or a wait past the deadline, fails at once without waiting; a retry draws
 * from the budget before waiting.
 *
 * <p>Synchronous calls wait through the {@link Sleeper}; asynchronous ones through the {@link
 * Scheduler}, with no thread blocked while waiting. Cancelling an asynchronous call's future stops
 * further attempts, cancels the attempt in flight and frees every permit it held.
 *
 * <p>An executor is immutable and thread-safe: build one per downstream and share it. With no
 * listener registered, a call that succeeds at once allocates nothing of its own.
 *
 * @param <R> the result type
 */
public interface RelentExecutor<R> {

  /**
   * Returns a builder for an executor running under the given policy, with no guards, the system
   * time sources and no listener.
   *
   * @param policy the retry policy
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if {@code policy} is null
   */
  static <R> Builder<R> builder(RetryPolicy<R> policy) {
    return new Builder<>(policy);
  }

  /**
   * Returns an executor running under the given policy with no guards.
   *
   * @param policy the retry policy
   * @param <R> the result type
   * @return a new executor
   * @throws NullPointerException if {@code policy} is null
   */
  static <R> RelentExecutor<R> of(RetryPolicy<R> policy) {
    return builder(policy).build();
  }

  /**
   * Runs an operation synchronously, retrying under the policy.
   *
   * @param attempt makes one attempt
   * @return the accepted result
   * @throws RelentException if the operation gave up; see its subclasses
   * @throws RuntimeException an unchecked failure the policy does not retry, as thrown
   */
  R get(CheckedSupplier<? extends R> attempt);

  /**
   * Runs an operation synchronously; each attempt learns its number and time limit.
   *
   * @param attempt makes one attempt
   * @return the accepted result
   * @throws RelentException if the operation gave up; see its subclasses
   * @throws RuntimeException an unchecked failure the policy does not retry, as thrown
   */
  R get(ContextualSupplier<? extends R> attempt);

  /**
   * Runs an operation asynchronously. No thread is blocked while waiting between attempts.
   *
   * @param attempt starts one attempt and returns its stage; it must not block
   * @return a future completing with the accepted result, or exceptionally with a {@link
   *     RelentException} or the failure the policy does not retry; cancelling it stops the
   *     operation and frees its permits
   */
  CompletableFuture<R> getAsync(AsyncSupplier<? extends R> attempt);

  /**
   * Returns the executor's policy.
   *
   * @return the policy
   */
  RetryPolicy<R> policy();

  /**
   * Returns a snapshot of the counters: first attempts, retries, successes, final failures by
   * reason.
   *
   * @return a new snapshot
   */
  RelentCounters counters();

  /**
   * Builds a {@link RelentExecutor}. Mutable and not thread-safe.
   *
   * @param <R> the result type
   */
  final class Builder<R> {
    final RetryPolicy<R> policy;
    CircuitBreaker breaker;
    RetryBudget budget;
    Pacer pacer;
    ConcurrencyLimit limit;
    Ticker ticker = Ticker.system();
    Clock clock = Clock.system();
    Sleeper sleeper = Sleeper.system();
    Scheduler scheduler = Scheduler.system();
    RandomSource random = RandomSource.system();
    final List<RelentListener<R>> listeners = new ArrayList<>();

    Builder(RetryPolicy<R> policy) {
      this.policy = Objects.requireNonNull(policy, "policy cannot be null");
    }

    /**
     * Guards calls with a circuit breaker, usually one per downstream, shared by its executors.
     *
     * @param breaker the breaker
     * @return this builder
     * @throws NullPointerException if {@code breaker} is null
     */
    public Builder<R> withCircuitBreaker(CircuitBreaker breaker) {
      this.breaker = Objects.requireNonNull(breaker, "breaker cannot be null");
      return this;
    }

    /**
     * Bounds the extra load retries add. Only retries draw from it.
     *
     * @param budget the budget
     * @return this builder
     * @throws NullPointerException if {@code budget} is null
     */
    public Builder<R> withRetryBudget(RetryBudget budget) {
      this.budget = Objects.requireNonNull(budget, "budget cannot be null");
      return this;
    }

    /**
     * Limits the rate of starts, first attempts and retries alike.
     *
     * @param pacer the pacer
     * @return this builder
     * @throws NullPointerException if {@code pacer} is null
     */
    public Builder<R> withPacer(Pacer pacer) {
      this.pacer = Objects.requireNonNull(pacer, "pacer cannot be null");
      return this;
    }

    /**
     * Limits the number of attempts in flight at once.
     *
     * @param limit the limit
     * @return this builder
     * @throws NullPointerException if {@code limit} is null
     */
    public Builder<R> withConcurrencyLimit(ConcurrencyLimit limit) {
      this.limit = Objects.requireNonNull(limit, "limit cannot be null");
      return this;
    }

    /**
     * Sets the monotonic time source. Default {@link Ticker#system()}.
     *
     * @param ticker the ticker
     * @return this builder
     * @throws NullPointerException if {@code ticker} is null
     */
    public Builder<R> withTicker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker cannot be null");
      return this;
    }

    /**
     * Sets the wall clock, used to say when a retry may be made. Default {@link Clock#system()}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder<R> withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock cannot be null");
      return this;
    }

    /**
     * Sets how synchronous calls wait. Default {@link Sleeper#system()}.
     *
     * @param sleeper the sleeper
     * @return this builder
     * @throws NullPointerException if {@code sleeper} is null
     */
    public Builder<R> withSleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper cannot be null");
      return this;
    }

    /**
     * Sets how asynchronous calls wait. Attempts after a wait start on the scheduler's thread.
     * Default {@link Scheduler#system()}.
     *
     * @param scheduler the scheduler
     * @return this builder
     * @throws NullPointerException if {@code scheduler} is null
     */
    public Builder<R> withScheduler(Scheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler cannot be null");
      return this;
    }

    /**
     * Sets the randomness for jitter and the spread on server waits; seed it in tests. Default
     * {@link RandomSource#system()}.
     *
     * @param random the source
     * @return this builder
     * @throws NullPointerException if {@code random} is null
     */
    public Builder<R> withRandom(RandomSource random) {
      this.random = Objects.requireNonNull(random, "random cannot be null");
      return this;
    }

    /**
     * Adds a listener for every attempt and decision.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder<R> onEvent(RelentListener<R> listener) {
      listeners.add(Objects.requireNonNull(listener, "listener cannot be null"));
      return this;
    }

    /**
     * Builds the executor.
     *
     * @return a new executor
     */
    public RelentExecutor<R> build() {
      return new DefaultRelentExecutor<>(this);
    }
  }
}
