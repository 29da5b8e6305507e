package dev.relent.bench;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.Policy;
import dev.relent.Backoff;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.time.Clock;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.internal.RetryImpl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Builds the same pipeline with each library, from one table of settings, so that the benchmarks
 * compare like with like (docs/BENCHMARKS.md lists the mapping):
 *
 * <ul>
 *   <li><b>retry</b>: at most {@value #MAX_RETRIES} retries, every exception retried, zero wait
 *       between attempts;
 *   <li><b>full</b>: retry around circuit breaker ({@value #FAILURE_RATE_PERCENT} % of the last
 *       {@value #WINDOW_CALLS} calls, at least {@value #MINIMUM_CALLS}, open 30 s, {@value
 *       #HALF_OPEN_PROBES} probes) around concurrency limit ({@value #MAX_CONCURRENT} slots, no
 *       waiting) around rate limiter ({@link Integer#MAX_VALUE} per second: never reached) around
 *       the attempt; Relent also has its retry budget (ratio 1.0), which neither peer has.
 * </ul>
 *
 * <p>"Zero wait": Relent's backoff draws its jitter from a source that always returns 0 and waits
 * through a no-op sleeper; Resilience4j gets a zero interval and a no-op sleep function; Failsafe
 * gets a zero delay (it still calls {@code Thread.sleep(0)}, which it offers no way to replace).
 * Asynchronous waits follow {@link Inline}.
 */
final class Pipelines {
  static final int MAX_RETRIES = 3;
  static final int FAILURE_RATE_PERCENT = 90;
  static final int WINDOW_CALLS = 100;
  static final int MINIMUM_CALLS = 20;
  static final Duration OPEN_DURATION = Duration.ofSeconds(30);
  static final int HALF_OPEN_PROBES = 3;
  static final int MAX_CONCURRENT = 100;
  static final int RATE_PERMITS = Integer.MAX_VALUE;
  static final Duration RATE_PERIOD = Duration.ofSeconds(1);

  static final List<String> LIBRARIES = List.of("relent", "resilience4j", "failsafe", "baseline");
  static final List<String> PIPELINES = List.of("retry", "full");

  private Pipelines() {}

  /** One synchronous call through a library's pipeline. */
  @FunctionalInterface
  interface SyncCall {
    String call() throws Throwable;
  }

  /** One asynchronous call through a library's pipeline. */
  @FunctionalInterface
  interface AsyncCall {
    CompletableFuture<String> call();
  }

  /**
   * A library's pipeline, ready to call, and the objects it is made of (for the tests).
   *
   * @param parts the library's policy and guard objects, outermost first
   */
  record Calls(SyncCall sync, AsyncCall async, List<Object> parts) {
    <T> T part(Class<T> type) {
      for (Object part : parts) {
        if (type.isInstance(part)) {
          return type.cast(part);
        }
      }
      throw new IllegalArgumentException("no " + type.getName() + " in " + parts);
    }
  }

  static Calls build(String library, String pipeline, Operation op) {
    if (!PIPELINES.contains(pipeline)) {
      throw new IllegalArgumentException("pipeline must be one of " + PIPELINES + ": " + pipeline);
    }
    boolean full = pipeline.equals("full");
    switch (library) {
      case "relent":
        return relent(full, op);
      case "resilience4j":
        return resilience4j(full, op);
      case "failsafe":
        return failsafe(full, op);
      case "baseline":
        return baseline(op);
      default:
        throw new IllegalArgumentException("library must be one of " + LIBRARIES + ": " + library);
    }
  }

  // ------------------------------------------------------------------------------------ Relent

  static RetryPolicy relentPolicy() {
    return RetryPolicy.builder()
        .withMaxRetries(MAX_RETRIES)
        .withBackoff(Backoff.ofDefaults())
        .build();
  }

  static CircuitBreaker relentBreaker() {
    return CircuitBreaker.builder()
        .withFailureRateThreshold(FAILURE_RATE_PERCENT)
        .withCountWindow(WINDOW_CALLS)
        .withMinimumCalls(MINIMUM_CALLS)
        .withOpenDuration(OPEN_DURATION)
        .withHalfOpenProbes(HALF_OPEN_PROBES)
        .build();
  }

  static Pacer relentPacer() {
    // A burst as large as the rate: the pacer never asks for a wait, however close two starts are.
    return Pacer.builder().withRate(RATE_PERMITS, RATE_PERIOD).withBurst(RATE_PERMITS).build();
  }

  private static Calls relent(boolean full, Operation op) {
    RelentExecutor.Builder<String> builder =
        RelentExecutor.<String>builder(relentPolicy())
            // Full jitter times 0 is a zero backoff: no sleep, and no scheduled task, between
            // attempts.
            .withTime(
                TimeSource.of(
                    Ticker.system(), Clock.system(), nanos -> {}, Inline.RELENT, () -> 0.0));
    List<Object> guards = List.of();
    if (full) {
      CircuitBreaker breaker = relentBreaker();
      RetryBudget budget = RetryBudget.builder().withRatio(1.0).build();
      ConcurrencyLimit limit = ConcurrencyLimit.of(MAX_CONCURRENT);
      Pacer pacer = relentPacer();
      builder
          .withCircuitBreaker(breaker)
          .withRetryBudget(budget)
          .withConcurrencyLimit(limit)
          .withPacer(pacer);
      guards = List.of(breaker, budget, limit, pacer);
    }
    RelentExecutor<String> executor = builder.build();
    List<Object> parts = new ArrayList<>();
    parts.add(executor);
    parts.addAll(guards);
    dev.relent.CheckedSupplier<String> attempt = op::get;
    dev.relent.AsyncSupplier<String> asyncAttempt = context -> op.stage();
    return new Calls(
        () -> executor.get(attempt), () -> executor.getAsync(asyncAttempt), List.copyOf(parts));
  }

  // ------------------------------------------------------------------------------ Resilience4j

  static RetryConfig resilience4jRetryConfig() {
    return RetryConfig.custom()
        .maxAttempts(MAX_RETRIES + 1)
        // IntervalFunction.of refuses less than 1 ms; a function of its own may say 0.
        .intervalFunction(attempt -> 0L)
        .build();
  }

  static io.github.resilience4j.circuitbreaker.CircuitBreaker resilience4jBreaker() {
    return io.github.resilience4j.circuitbreaker.CircuitBreaker.of(
        "bench",
        CircuitBreakerConfig.custom()
            .failureRateThreshold(FAILURE_RATE_PERCENT)
            .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
            .slidingWindowSize(WINDOW_CALLS)
            .minimumNumberOfCalls(MINIMUM_CALLS)
            .waitDurationInOpenState(OPEN_DURATION)
            .permittedNumberOfCallsInHalfOpenState(HALF_OPEN_PROBES)
            .build());
  }

  static RateLimiter resilience4jRateLimiter() {
    return RateLimiter.of(
        "bench",
        RateLimiterConfig.custom()
            .limitForPeriod(RATE_PERMITS)
            .limitRefreshPeriod(RATE_PERIOD)
            .timeoutDuration(Duration.ZERO)
            .build());
  }

  private static Calls resilience4j(boolean full, Operation op) {
    // The counterpart of Relent's no-op sleeper (a static hook of Resilience4j's, for tests).
    RetryImpl.setSleepFunction(millis -> {});
    Retry retry = Retry.of("bench", resilience4jRetryConfig());
    CheckedSupplier<String> sync = op::get;
    Supplier<CompletionStage<String>> async = op::stage;
    List<Object> parts;
    if (full) {
      io.github.resilience4j.circuitbreaker.CircuitBreaker breaker = resilience4jBreaker();
      Bulkhead bulkhead =
          Bulkhead.of(
              "bench",
              BulkheadConfig.custom()
                  .maxConcurrentCalls(MAX_CONCURRENT)
                  .maxWaitDuration(Duration.ZERO)
                  .build());
      RateLimiter rateLimiter = resilience4jRateLimiter();
      sync = RateLimiter.decorateCheckedSupplier(rateLimiter, sync);
      sync = Bulkhead.decorateCheckedSupplier(bulkhead, sync);
      sync =
          io.github.resilience4j.circuitbreaker.CircuitBreaker.decorateCheckedSupplier(
              breaker, sync);
      async = RateLimiter.decorateCompletionStage(rateLimiter, async);
      async = Bulkhead.decorateCompletionStage(bulkhead, async);
      async =
          io.github.resilience4j.circuitbreaker.CircuitBreaker.decorateCompletionStage(
              breaker, async);
      parts = List.of(retry, breaker, bulkhead, rateLimiter);
    } else {
      parts = List.of(retry);
    }
    CheckedSupplier<String> syncCall = Retry.decorateCheckedSupplier(retry, sync);
    Supplier<CompletionStage<String>> asyncCall =
        Retry.decorateCompletionStage(retry, Inline.RESILIENCE4J, async);
    return new Calls(syncCall::get, () -> asyncCall.get().toCompletableFuture(), parts);
  }

  // ---------------------------------------------------------------------------------- Failsafe

  static dev.failsafe.RetryPolicy<String> failsafeRetryPolicy() {
    return dev.failsafe.RetryPolicy.<String>builder()
        .withMaxRetries(MAX_RETRIES)
        .build(); // the default delay is zero (withDelay refuses it)
  }

  static dev.failsafe.CircuitBreaker<String> failsafeBreaker() {
    // Count based: open when 90 of the last 100 executions failed (Failsafe has no separate
    // minimum: 90 failures are the minimum).
    return dev.failsafe.CircuitBreaker.<String>builder()
        .withFailureThreshold(FAILURE_RATE_PERCENT * WINDOW_CALLS / 100, WINDOW_CALLS)
        .withDelay(OPEN_DURATION)
        .withSuccessThreshold(HALF_OPEN_PROBES)
        .build();
  }

  static dev.failsafe.RateLimiter<String> failsafeRateLimiter() {
    return dev.failsafe.RateLimiter.<String>burstyBuilder(RATE_PERMITS, RATE_PERIOD).build();
  }

  private static Calls failsafe(boolean full, Operation op) {
    List<Policy<String>> policies;
    if (full) {
      policies =
          List.of(
              failsafeRetryPolicy(),
              failsafeBreaker(),
              dev.failsafe.Bulkhead.<String>of(MAX_CONCURRENT),
              failsafeRateLimiter());
    } else {
      policies = List.of(failsafeRetryPolicy());
    }
    FailsafeExecutor<String> executor = Failsafe.with(policies).with(Inline.FAILSAFE);
    dev.failsafe.function.CheckedSupplier<String> attempt = op::get;
    dev.failsafe.function.CheckedSupplier<CompletionStage<String>> asyncAttempt = op::stage;
    return new Calls(
        () -> executor.get(attempt),
        () -> executor.getStageAsync(asyncAttempt),
        List.copyOf(policies));
  }

  // ---------------------------------------------------------------------------------- baseline

  private static Calls baseline(Operation op) {
    if (!op.failOnce()) {
      return new Calls(op::get, op::stage, List.of());
    }
    return new Calls(
        () -> {
          try {
            return op.get();
          } catch (Exception e) {
            return op.get();
          }
        },
        () -> {
          CompletableFuture<String> first = op.stage();
          return first.isCompletedExceptionally() ? op.stage() : first;
        },
        List.of());
  }
}
