package dev.relent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.time.FakeTime;
import dev.relent.time.ManualScheduler;
import dev.relent.time.RecordingSleeper;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What only one mode can show: cancelling an asynchronous operation frees every permit it held, an
 * attempt that never answers is timed out, a sync wait can be interrupted. After each test no guard
 * may be left holding anything.
 */
class CancellationTest {
  private final FakeTime time = new FakeTime();
  private final ManualScheduler scheduler = time.scheduler();
  private final RecordingSleeper sleeper = time.sleeper();
  private final ConcurrencyLimit limit = ConcurrencyLimit.of(2);
  private final CircuitBreaker breaker =
      CircuitBreaker.builder()
          .withCountWindow(10)
          .withMinimumCalls(1)
          .withFailureRateThreshold(100)
          .withOpenDuration(Duration.ofSeconds(1))
          .withHalfOpenProbes(1)
          .build();

  private RelentExecutor<String> executor(RetryPolicy policy, Pacer pacer) {
    RelentExecutor.Builder<String> b =
        RelentExecutor.<String>builder(policy)
            .withTime(time.withSeed(1))
            .retryIf(s -> s.equals("busy"))
            .withConcurrencyLimit(limit)
            .withCircuitBreaker(breaker);
    return (pacer == null ? b : b.withPacer(pacer)).build();
  }

  @AfterEach
  void nothingIsLeftHeld() {
    assertThat(limit.available()).as("concurrency slots").isEqualTo(limit.maxConcurrent());
    assertThat(limit.waiting()).as("slot waiters").isZero();
    assertThat(breaker.metrics(time.read()).probesInFlight()).as("half-open probes").isZero();
  }

  @Test
  void cancellingDuringABackoffWaitStopsFurtherAttempts() {
    AtomicInteger calls = new AtomicInteger();
    RelentExecutor<String> executor = executor(RetryPolicy.ofDefaults(), null);

    CompletableFuture<String> future =
        executor.getAsync(
            ctx -> {
              calls.incrementAndGet();
              return CompletableFuture.completedFuture("busy");
            });
    assertThat(scheduler.pending()).isEqualTo(1); // the backoff wait
    assertThat(future.cancel(true)).isTrue();

    assertThat(scheduler.pending()).isZero();
    scheduler.runUntilIdle();
    assertThat(calls).hasValue(1);
  }

  @Test
  void cancellingDuringAnAttemptCancelsItAndFreesItsSlotAndProbe() {
    time.advance(Duration.ofSeconds(0));
    CompletableFuture<String> inFlight = new CompletableFuture<>();
    RelentExecutor<String> executor = executor(RetryPolicy.ofDefaults(), null);

    CompletableFuture<String> future = executor.getAsync(ctx -> inFlight);
    assertThat(limit.available()).isEqualTo(1);

    future.cancel(true);
    assertThat(inFlight).isCancelled();
    assertThat(limit.available()).isEqualTo(2);
  }

  @Test
  void cancellingWhileWaitingForASlotLeavesNoWaiterBehind() {
    ConcurrencyLimit.Permit first = limit.tryAcquire().orElseThrow();
    ConcurrencyLimit.Permit second = limit.tryAcquire().orElseThrow();
    RelentExecutor<String> executor = executor(RetryPolicy.ofDefaults(), null);

    CompletableFuture<String> future =
        executor.getAsync(ctx -> CompletableFuture.completedFuture("ok"));
    assertThat(limit.waiting()).isEqualTo(1);
    future.cancel(true);
    assertThat(limit.waiting()).isZero();

    first.release();
    second.release();
    assertThat(limit.available()).isEqualTo(2);
  }

  @Test
  void aSlotThatComesFreeIsTakenAndReleasedAfterTheAttempt() {
    ConcurrencyLimit.Permit first = limit.tryAcquire().orElseThrow();
    ConcurrencyLimit.Permit second = limit.tryAcquire().orElseThrow();
    RelentExecutor<String> executor = executor(RetryPolicy.ofDefaults(), null);

    CompletableFuture<String> future =
        executor.getAsync(ctx -> CompletableFuture.completedFuture("ok"));
    assertThat(future).isNotDone();
    first.release();

    assertThat(future.join()).isEqualTo("ok");
    assertThat(limit.available()).isEqualTo(1); // the executor released the permit it was given
    second.release();
  }

  @Test
  void noSlotBeforeTheDeadlineFailsWithTheReason() {
    ConcurrencyLimit.Permit first = limit.tryAcquire().orElseThrow();
    ConcurrencyLimit.Permit second = limit.tryAcquire().orElseThrow();
    RelentExecutor<String> executor =
        executor(RetryPolicy.builder().withDeadline(Duration.ofSeconds(5)).build(), null);

    CompletableFuture<String> future =
        executor.getAsync(ctx -> CompletableFuture.completedFuture("ok"));
    scheduler.advance(Duration.ofSeconds(5));

    assertThatThrownBy(future::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            DeadlineExceededException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RelentException.Reason.CONCURRENCY_LIMIT);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "gave up before any attempt, 5 s in (no concurrency slot of 2 came free"
                          + " within the 5 s deadline)");
            });
    assertThat(limit.waiting()).isZero();
    first.release();
    second.release();
  }

  @Test
  void cancellingWhileWaitingForThePacerRefundsTheStart() {
    Pacer pacer = Pacer.of(1, Duration.ofSeconds(10));
    RelentExecutor<String> executor =
        executor(RetryPolicy.builder().withDeadline(Duration.ofSeconds(60)).build(), pacer);
    executor.getAsync(ctx -> CompletableFuture.completedFuture("first")).join();

    CompletableFuture<String> second =
        executor.getAsync(ctx -> CompletableFuture.completedFuture("second"));
    assertThat(second).isNotDone(); // waiting 10 s for its start
    second.cancel(true);

    // The refunded start is free again: a third caller starts at 10 s, not 20 s.
    assertThat(pacer.tryAcquire(time.read(), Long.MAX_VALUE))
        .isEqualTo(Duration.ofSeconds(10).toNanos());
  }

  @Test
  void anAttemptThatNeverAnswersTimesOutAndIsRetried() {
    AtomicInteger calls = new AtomicInteger();
    RelentExecutor<String> executor =
        executor(
            RetryPolicy.builder()
                .withAttemptTimeout(Duration.ofSeconds(10))
                .withDeadline(Duration.ofSeconds(30))
                .build(),
            null);

    CompletableFuture<String> future =
        executor.getAsync(
            ctx ->
                calls.incrementAndGet() == 1
                    ? new CompletableFuture<>()
                    : CompletableFuture.completedFuture("late but fine"));
    scheduler.runUntilIdle();

    assertThat(future.join()).isEqualTo("late but fine");
    assertThat(calls).hasValue(2);
    assertThat(time.elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void timeoutsAreRetriedAndReportedAsTheCause() {
    RelentExecutor<String> executor =
        executor(
            RetryPolicy.builder()
                .withMaxRetries(1)
                .withAttemptTimeout(Duration.ofSeconds(1))
                .build(),
            null);

    CompletableFuture<String> future = executor.getAsync(ctx -> new CompletableFuture<>());
    scheduler.runUntilIdle();

    assertThatThrownBy(future::join)
        .cause()
        .isInstanceOf(RelentException.class)
        .hasMessageContaining("gave up after 2 attempts")
        .cause()
        .isInstanceOf(TimeoutException.class)
        .hasMessage("attempt 2 timed out after 1 s");
  }

  @Test
  void interruptingASyncWaitStopsAndKeepsTheInterruptFlag() {
    RelentExecutor<String> executor = executor(RetryPolicy.ofDefaults(), null);
    try {
      assertThatThrownBy(
              () ->
                  executor.get(
                      () -> {
                        Thread.currentThread().interrupt();
                        return "busy";
                      }))
          .isInstanceOfSatisfying(
              RelentException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(RelentException.Reason.INTERRUPTED);
                assertThat(e.attempts()).isEqualTo(1);
              });
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aCancelledFutureReportsCancellation() {
    RelentExecutor<String> executor = executor(RetryPolicy.ofDefaults(), null);
    CompletableFuture<String> future = executor.getAsync(ctx -> new CompletableFuture<>());
    future.cancel(false);
    assertThatThrownBy(future::join).isInstanceOf(CancellationException.class);
  }
}
