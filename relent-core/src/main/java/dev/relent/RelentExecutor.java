package dev.relent;

import dev.relent.guard.AdaptiveThrottle;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.internal.exec.ApiAccess;
import dev.relent.internal.exec.ExecutionSettings;
import dev.relent.internal.exec.GiveUp;
import dev.relent.internal.exec.RelentExecutorImpl;
import dev.relent.internal.exec.RuleClassifier;
import dev.relent.time.TimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

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
 * <p>Which outcomes are retried is the executor's classification: {@code retryOn} / {@code abortOn}
 * rules on exceptions and {@code retryIf} / {@code abortIf} rules on results, or one {@link
 * OutcomeClassifier} (an HTTP adapter's decision table). By default every exception but
 * interruption and cancellation is retried and every result is a success.
 *
 * <p>Synchronous calls wait through the time source's {@link dev.relent.time.Sleeper}; asynchronous
 * ones through its {@link dev.relent.time.Scheduler}, with no thread blocked while waiting.
 * Cancelling an asynchronous call's future stops further attempts, cancels the attempt in flight
 * and frees every permit it held.
 *
 * <p>Every attempt and decision is a {@link RelentEvent}: executor-wide listeners ({@link
 * Builder#onEvent}) see every call's, and a listener passed to {@link #get(ContextualSupplier,
 * RelentListener)} or {@link #getAsync(AsyncSupplier, RelentListener)} sees that call's alone, so
 * nobody has to work out which call an event belongs to.
 *
 * <p>An executor is immutable and thread-safe: build one per downstream and share it. With no
 * listener registered, a call that succeeds at once allocates nothing of its own.
 *
 * @param <R> the result type
 */
public interface RelentExecutor<R> {

  /**
   * Returns a builder for an executor running under the given policy, with no guards, the system
   * time, the default classification and no listener. In a chain, name the result type: {@code
   * RelentExecutor.<Quote>builder(policy).retryOn(IOException.class).build()}.
   *
   * @param policy the retry policy
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if {@code policy} is null
   */
  static <R> Builder<R> builder(RetryPolicy policy) {
    return new Builder<>(policy);
  }

  /**
   * Returns an executor running under the given policy with no guards and the default
   * classification.
   *
   * @param policy the retry policy
   * @param <R> the result type
   * @return a new executor
   * @throws NullPointerException if {@code policy} is null
   */
  static <R> RelentExecutor<R> of(RetryPolicy policy) {
    return RelentExecutor.<R>builder(policy).build();
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
   * Runs an operation synchronously and tells {@code listener} about this call's events alone,
   * after the executor-wide listeners.
   *
   * @param attempt makes one attempt
   * @param listener observes this call: each attempt's start and end, waits, the final outcome
   * @return the accepted result
   * @throws RelentException if the operation gave up; see its subclasses
   * @throws RuntimeException an unchecked failure the policy does not retry, as thrown
   */
  R get(ContextualSupplier<? extends R> attempt, RelentListener<R> listener);

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
   * Runs an operation asynchronously and tells {@code listener} about this call's events alone,
   * after the executor-wide listeners.
   *
   * @param attempt starts one attempt and returns its stage; it must not block
   * @param listener observes this call; called on whichever thread made the decision
   * @return a future as {@link #getAsync(AsyncSupplier)} returns
   */
  CompletableFuture<R> getAsync(AsyncSupplier<? extends R> attempt, RelentListener<R> listener);

  /**
   * Runs an operation synchronously under the guards of its scopes, as well as the executor's own:
   * it waits out every scope's pause, takes a start from every scope's pacer, a permit of every
   * scope's circuit breaker and draws retries from every scope's budget; a rate-limit or quota
   * answer pauses the scope it belongs to ({@link Builder#withPauseTarget}), not the executor's
   * pacer. The executor must be built {@link Builder#withScopes withScopes(registry)}.
   *
   * @param scopes the request's scopes, broadest first (account, key, endpoint); empty: as {@link
   *     #get(ContextualSupplier, RelentListener)}
   * @param attempt makes one attempt
   * @param listener observes this call alone, or null
   * @return the accepted result
   * @throws NullPointerException if {@code scopes} or {@code attempt} is null
   * @throws IllegalStateException if scopes are given and the executor has no registry
   * @throws RelentException if the operation gave up; a scope's pause past the deadline names the
   *     scope, the request and the answer that paused it, and when the pause ends
   * @throws RuntimeException an unchecked failure the policy does not retry, as thrown
   */
  R get(List<Scope> scopes, ContextualSupplier<? extends R> attempt, RelentListener<R> listener);

  /**
   * Runs an operation asynchronously under the guards of its scopes; see {@link #get(List,
   * ContextualSupplier, RelentListener)}.
   *
   * @param scopes the request's scopes, broadest first; empty: none
   * @param attempt starts one attempt and returns its stage; it must not block
   * @param listener observes this call alone, or null
   * @return a future as {@link #getAsync(AsyncSupplier)} returns
   * @throws NullPointerException if {@code scopes} or {@code attempt} is null
   * @throws IllegalStateException if scopes are given and the executor has no registry
   */
  CompletableFuture<R> getAsync(
      List<Scope> scopes, AsyncSupplier<? extends R> attempt, RelentListener<R> listener);

  /**
   * Returns the registry that holds the guards and pauses of the scopes calls name.
   *
   * @return the registry, empty unless built {@link Builder#withScopes withScopes}
   */
  Optional<GuardRegistry> registry();

  /**
   * Returns the executor's own circuit breaker, for inspection (metrics, health checks); the
   * breakers of scopes are in {@link #registry()}. Reads nothing and has no side effect.
   *
   * @return the breaker, empty unless built {@link Builder#withCircuitBreaker withCircuitBreaker}
   */
  Optional<CircuitBreaker> circuitBreaker();

  /**
   * Returns the executor's own retry budget, for inspection; see {@link #circuitBreaker()}.
   *
   * @return the budget, empty unless built {@link Builder#withRetryBudget withRetryBudget}
   */
  Optional<RetryBudget> retryBudget();

  /**
   * Returns the executor's own pacer, for inspection; see {@link #circuitBreaker()}.
   *
   * @return the pacer, empty unless built {@link Builder#withPacer withPacer}
   */
  Optional<Pacer> pacer();

  /**
   * Returns the executor's own concurrency limit, for inspection; see {@link #circuitBreaker()}.
   *
   * @return the limit, empty unless built {@link Builder#withConcurrencyLimit withConcurrencyLimit}
   */
  Optional<ConcurrencyLimit> concurrencyLimit();

  /**
   * Returns the executor's policy.
   *
   * @return the policy
   */
  RetryPolicy policy();

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
    private final RetryPolicy policy;
    private CircuitBreaker breaker;
    private RetryBudget budget;
    private Pacer pacer;
    private AdaptiveThrottle throttle;
    private ConcurrencyLimit limit;
    private GuardRegistry registry;
    private PauseTarget<R> pauseTarget;
    private TimeSource time = TimeSource.system();
    private OutcomeClassifier<R> classifier;
    private HintExtractor<R> hintExtractor;
    private OutcomeDescriber<R> outcomeDescriber = Builder::describeType;
    private final List<Class<? extends Throwable>> retryOn = new ArrayList<>();
    private final List<Class<? extends Throwable>> abortOn = new ArrayList<>();
    private final List<Predicate<? super Throwable>> retryOnFailure = new ArrayList<>();
    private final List<Predicate<? super Throwable>> abortOnFailure = new ArrayList<>();
    private final List<Predicate<? super R>> retryIf = new ArrayList<>();
    private final List<Predicate<? super R>> abortIf = new ArrayList<>();
    private final List<RelentListener<R>> listeners = new ArrayList<>();

    Builder(RetryPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy cannot be null");
    }

    private static String describeType(Object result, Throwable failure) {
      if (failure != null) {
        return failure.getClass().getSimpleName();
      }
      return result == null ? "null result" : result.getClass().getSimpleName() + " result";
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
     * Refuses attempts here, before anything is sent, while the downstream rejects too many of them
     * (client-side adaptive throttling); a refusal ends the operation with reason {@link
     * RelentException.Reason#THROTTLED}. First attempts and retries alike count as requests; an
     * outcome that is not a downstream failure counts as accepted.
     *
     * @param throttle the throttle, usually one per downstream, shared by its executors
     * @return this builder
     * @throws NullPointerException if {@code throttle} is null
     */
    public Builder<R> withThrottle(AdaptiveThrottle throttle) {
      this.throttle = Objects.requireNonNull(throttle, "throttle cannot be null");
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
     * Governs calls that name scopes ({@link RelentExecutor#get(List, ContextualSupplier,
     * RelentListener)}) by the registry's guards of those scopes, and pauses a scope, not the
     * executor's pacer, when an answer says to slow down. The executor's own guards still govern
     * every call. Give the registry the executor's time source. Default: none.
     *
     * @param registry the registry
     * @return this builder
     * @throws NullPointerException if {@code registry} is null
     */
    public Builder<R> withScopes(GuardRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry cannot be null");
      return this;
    }

    /**
     * Says which of a request's scopes a rate-limit or quota answer pauses. Default: the narrowest
     * scope of the request (its endpoint); the HTTP adapters read the response instead.
     *
     * @param pauseTarget a thread-safe rule
     * @return this builder
     * @throws NullPointerException if {@code pauseTarget} is null
     */
    public Builder<R> withPauseTarget(PauseTarget<R> pauseTarget) {
      this.pauseTarget = Objects.requireNonNull(pauseTarget, "pauseTarget cannot be null");
      return this;
    }

    /**
     * Sets every source of time and chance at once: the ticker for deadlines and guards, the wall
     * clock for saying when a retry may be made, the sleeper and scheduler synchronous and
     * asynchronous calls wait with, and the randomness for jitter. Default {@link
     * TimeSource#system()}; tests pass relent-testing's {@code FakeTime}.
     *
     * @param time the time source
     * @return this builder
     * @throws NullPointerException if {@code time} is null
     */
    public Builder<R> withTime(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time cannot be null");
      return this;
    }

    /**
     * Retries failures of these types (and their subtypes). Once any is given, other exceptions are
     * no longer retried. Default: every exception but interruption and cancellation.
     *
     * @param types exception types
     * @return this builder
     * @throws NullPointerException if {@code types} or an element is null
     */
    @SafeVarargs
    public final Builder<R> retryOn(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> type : types) {
        retryOn.add(Objects.requireNonNull(type, "type cannot be null"));
      }
      return this;
    }

    /**
     * Retries failures that match the predicate. Once any retry condition on failures is given,
     * other exceptions are no longer retried.
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> retryOn(Predicate<? super Throwable> predicate) {
      retryOnFailure.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Never retries failures of these types; they win over every retry condition.
     *
     * @param types exception types
     * @return this builder
     * @throws NullPointerException if {@code types} or an element is null
     */
    @SafeVarargs
    public final Builder<R> abortOn(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> type : types) {
        abortOn.add(Objects.requireNonNull(type, "type cannot be null"));
      }
      return this;
    }

    /**
     * Never retries failures that match the predicate.
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> abortOn(Predicate<? super Throwable> predicate) {
      abortOnFailure.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Retries results that match the predicate (for example an HTTP 503 response).
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> retryIf(Predicate<? super R> predicate) {
      retryIf.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Stops at results that match the predicate and returns them; wins over {@link
     * #retryIf(Predicate)}.
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> abortIf(Predicate<? super R> predicate) {
      abortIf.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Replaces every retry and abort rule with one classifier that names its rules (the HTTP
     * module's decision table is one). It cannot be combined with {@code retryOn}, {@code abortOn},
     * {@code retryIf} or {@code abortIf}.
     *
     * @param classifier a thread-safe classifier
     * @return this builder
     * @throws NullPointerException if {@code classifier} is null
     */
    public Builder<R> withClassifier(OutcomeClassifier<R> classifier) {
      this.classifier = Objects.requireNonNull(classifier, "classifier cannot be null");
      return this;
    }

    /**
     * Reads server hints ({@code Retry-After}, rate-limit headers, quotas) from outcomes. Default:
     * none.
     *
     * @param hintExtractor a thread-safe extractor
     * @return this builder
     * @throws NullPointerException if {@code hintExtractor} is null
     */
    public Builder<R> withHintExtractor(HintExtractor<R> hintExtractor) {
      this.hintExtractor = Objects.requireNonNull(hintExtractor, "hintExtractor cannot be null");
      return this;
    }

    /**
     * Sets how outcomes are described in exception messages and events. It must not reveal secrets.
     * Default: the type of the result or of the exception.
     *
     * @param outcomeDescriber a thread-safe describer
     * @return this builder
     * @throws NullPointerException if {@code outcomeDescriber} is null
     */
    public Builder<R> withOutcomeDescriber(OutcomeDescriber<R> outcomeDescriber) {
      this.outcomeDescriber =
          Objects.requireNonNull(outcomeDescriber, "outcomeDescriber cannot be null");
      return this;
    }

    /**
     * Adds a listener for every call's attempts and decisions.
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
     * @throws IllegalStateException if a classifier is combined with retryOn, abortOn, retryIf or
     *     abortIf rules
     */
    public RelentExecutor<R> build() {
      RuleClassifier<R> rules =
          new RuleClassifier<>(retryOn, abortOn, retryOnFailure, abortOnFailure, retryIf, abortIf);
      if (classifier != null && rules.hasRules()) {
        throw new IllegalStateException(
            "classifier and retryOn/abortOn/retryIf/abortIf cannot be combined: the classifier"
                + " decides alone; fold the conditions into it");
      }
      ExecutionSettings<R> settings =
          new ExecutionSettings<>(
              policy.config(),
              classifier != null ? classifier : rules,
              outcomeDescriber,
              hintExtractor,
              pauseTarget,
              registry,
              time,
              Access.INSTANCE);
      return new RelentExecutorImpl<>(
          policy, breaker, budget, pacer, throttle, limit, listeners, settings);
    }

    /**
     * The executor's way to what this package keeps package-private: the constructors of its
     * exceptions and events, and a server hint's numbers without allocating. Handed to every
     * executor built here, and to nothing else.
     */
    private static final class Access implements ApiAccess {
      static final Access INSTANCE = new Access();

      @Override
      public RelentException exception(GiveUp giveUp) {
        return RelentException.of(giveUp);
      }

      @Override
      public <T> RelentEvent<T> event(
          RelentEvent.Type type,
          int attempt,
          long elapsedNanos,
          long attemptStartNanos,
          long attemptDurationNanos,
          T result,
          Throwable failure,
          Verdict verdict,
          long waitNanos,
          ServerHint hint,
          RelentException exception,
          String outcomeClass,
          boolean serverWait) {
        return new RelentEvent<>(
            type,
            attempt,
            elapsedNanos,
            attemptStartNanos,
            attemptDurationNanos,
            result,
            failure,
            verdict,
            waitNanos,
            hint,
            exception,
            outcomeClass,
            serverWait);
      }

      @Override
      public long quotaRemaining(ServerHint hint) {
        return hint.remainingOrNegative();
      }

      @Override
      public long quotaResetNanos(ServerHint hint) {
        return hint.resetNanosOrNegative();
      }

      @Override
      public long policyQuota(ServerHint hint) {
        return hint.policyQuotaOrNegative();
      }

      @Override
      public long policyWindowNanos(ServerHint hint) {
        return hint.policyWindowNanosOrNegative();
      }
    }
  }
}
