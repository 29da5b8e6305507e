package dev.relent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.Harness.Mode;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.time.FakeTime;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The executor's behaviour, every test run in both modes on fake time: nothing here sleeps for
 * real, and sync and async must agree to the nanosecond.
 */
class ExecutorTest {

  /** A stand-in for an HTTP response: a status and what the server said about waiting. */
  record Reply(int status, ServerHint hint) {
    static Reply of(int status) {
      return new Reply(status, null);
    }

    static Reply retryAfter(int status, Duration wait) {
      return new Reply(status, ServerHint.retryAfter(wait, "Retry-After: " + wait.toSeconds()));
    }

    static Reply rateLimited(Duration wait) {
      return new Reply(429, ServerHint.rateLimited(wait, "Retry-After: " + wait.toSeconds()));
    }
  }

  private static final Verdict OK = Verdict.success("2xx");
  private static final Verdict RETRY_5XX = Verdict.retry("http-5xx");
  private static final Verdict RETRY_429 = Verdict.retry("http-429");
  private static final Verdict ABORT_4XX = Verdict.abort("http-4xx");
  private static final Verdict RETRY_IO = Verdict.retry("io");

  private static RetryPolicy.Builder http() {
    return RetryPolicy.builder();
  }

  /** The HTTP-like classification every test here runs under. */
  private static RelentExecutor.Builder<Reply> classified(RelentExecutor.Builder<Reply> b) {
    return b.withClassifier(
            (reply, failure) -> {
              if (failure != null) {
                return failure instanceof IOException ? RETRY_IO : Verdict.ABORT;
              }
              if (reply.status() == 429) {
                return RETRY_429;
              }
              if (reply.status() >= 500) {
                return RETRY_5XX;
              }
              return reply.status() >= 400 ? ABORT_4XX : OK;
            })
        .withHintExtractor((reply, failure) -> reply == null ? null : reply.hint())
        .withOutcomeDescriber(
            (reply, failure) ->
                failure != null ? failure.getClass().getSimpleName() : "HTTP " + reply.status());
  }

  private static Harness<Reply> harness(Mode mode, RetryPolicy policy) {
    return new Harness<>(mode, policy, ExecutorTest::classified);
  }

  private static Harness<Reply> harness(
      Mode mode, RetryPolicy policy, UnaryOperator<RelentExecutor.Builder<Reply>> customize) {
    return new Harness<>(mode, policy, b -> customize.apply(classified(b)));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void succeedsAfterTwo503sWithWaitsInsideTheFullJitterEnvelope(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());

    Reply reply = h.run(Harness.answers(Reply.of(503), Reply.of(503), Reply.of(200)));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(h.attemptTimes).hasSize(3);
    List<Duration> waits = h.retryWaits();
    assertThat(waits).hasSize(2);
    // Full jitter, base 500 ms: retry 1 waits in [0, 0.5 s), retry 2 in [0, 1 s).
    assertThat(waits.get(0)).isBetween(Duration.ZERO, Duration.ofMillis(500));
    assertThat(waits.get(1)).isBetween(Duration.ZERO, Duration.ofSeconds(1));
    assertThat(h.gaps()).isEqualTo(waits);
    assertThat(h.time.elapsed()).isEqualTo(waits.get(0).plus(waits.get(1)));
    assertThat(h.executor.counters().firstAttempts()).isEqualTo(1);
    assertThat(h.executor.counters().retries()).isEqualTo(2);
    assertThat(h.executor.counters().successes()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void syncAndAsyncChooseTheSameWaitsForTheSameSeed(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());
    h.run(Harness.answers(Reply.of(503), Reply.of(502), Reply.of(504), Reply.of(200)));
    // The seeded source (42) gives these draws; both modes must consume them identically.
    Harness<Reply> other = harness(Mode.SYNC, http().build());
    other.run(Harness.answers(Reply.of(503), Reply.of(502), Reply.of(504), Reply.of(200)));
    assertThat(h.retryWaits()).isEqualTo(other.retryWaits());
    assertThat(h.attemptTimes).isEqualTo(other.attemptTimes);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void hostileRetryAfterFailsAtOnceSayingHowLongTheServerAskedFor(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());

    assertThatThrownBy(
            () -> h.run(Harness.answers(Reply.retryAfter(503, Duration.ofSeconds(86400)))))
        .isInstanceOfSatisfying(
            ServerWaitTooLongException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RelentException.Reason.SERVER_WAIT_TOO_LONG);
              assertThat(e.serverWait()).contains(Duration.ofSeconds(86400));
              assertThat(e.allowedWait()).contains(Duration.ofSeconds(30));
              assertThat(e.retryAt())
                  .contains(FakeTime.DEFAULT_START.plus(Duration.ofSeconds(86400)));
              assertThat(e.attempts()).isEqualTo(1);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "gave up after 1 attempt in 0 s (last: HTTP 503, not retried;"
                          + " server asked to wait 86400 s (Retry-After: 86400), more than the"
                          + " 30 s allowed; retry at 2026-01-02T00:00:00Z)");
            });
    // Failed at once: no time passed, nothing slept.
    assertThat(h.time.elapsed()).isZero();
    assertThat(h.sleeper.waits()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void withNoRetryAllowedTheMessageSaysSoAndNamesNoRuleThatSaidRetry(Mode mode) {
    Harness<Reply> h = harness(mode, http().withMaxRetries(0).build());

    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(503))))
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo(
                      "gave up after 1 attempt in 0 s (last: HTTP 503, not retried;"
                          + " no retry allowed (max retries 0))");
              // The rule stays a field for code that reads it.
              assertThat(e.lastRule()).contains("retry: http-5xx");
            });
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void serverWaitAboveMaxServerWaitFailsEvenInsideTheDeadline(Mode mode) {
    Harness<Reply> h = harness(mode, http().withMaxServerWait(Duration.ofSeconds(5)).build());

    assertThatThrownBy(() -> h.run(Harness.answers(Reply.retryAfter(503, Duration.ofSeconds(20)))))
        .isInstanceOfSatisfying(
            ServerWaitTooLongException.class,
            e -> {
              assertThat(e.allowedWait()).contains(Duration.ofSeconds(5));
              assertThat(e.getMessage()).contains("server asked to wait 20 s", "5 s allowed");
            });
    assertThat(h.time.elapsed()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void serverWaitIsAMinimumWithASmallSpreadOnTop(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());

    h.run(Harness.answers(Reply.rateLimited(Duration.ofSeconds(5)), Reply.of(200)));

    Duration wait = h.retryWaits().get(0);
    assertThat(wait).isBetween(Duration.ofSeconds(5), Duration.ofMillis(5500));
    assertThat(h.gaps()).containsExactly(wait);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void pastOrZeroServerWaitStillBacksOff(Mode mode) {
    Backoff fixed =
        Backoff.builder()
            .withBase(Duration.ofMillis(500))
            .withCap(Duration.ofSeconds(30))
            .withJitter(Jitter.NONE)
            .build();
    Harness<Reply> h = harness(mode, http().withBackoff(fixed).build());

    h.run(
        Harness.answers(
            Reply.retryAfter(503, Duration.ZERO),
            Reply.retryAfter(503, Duration.ZERO),
            Reply.of(200)));

    assertThat(h.retryWaits()).containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void retriesExhaustedCarriesTheLastOutcome(Mode mode) {
    Backoff fixed =
        Backoff.builder()
            .withBase(Duration.ofMillis(100))
            .withCap(Duration.ofSeconds(1))
            .withJitter(Jitter.NONE)
            .build();
    Harness<Reply> h = harness(mode, http().withBackoff(fixed).withMaxRetries(3).build());

    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(503))))
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            e -> {
              assertThat(e.attempts()).isEqualTo(4);
              assertThat(e.lastResult()).contains(Reply.of(503));
              assertThat(e.lastOutcome()).contains("HTTP 503");
              assertThat(e.elapsed()).isEqualTo(Duration.ofMillis(700));
              assertThat(e.getMessage())
                  .isEqualTo(
                      "gave up after 4 attempts in 700 ms (last: HTTP 503, rule retry: http-5xx;"
                          + " all 3 retries used)");
            });
    assertThat(h.retryWaits())
        .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
    assertThat(h.executor.counters().failures()).isEqualTo(1);
    assertThat(
            h.executor.counters().failuresByReason().get(RelentException.Reason.RETRIES_EXHAUSTED))
        .isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void nonRetryableResultIsReturnedAfterOneAttempt(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());
    assertThat(h.run(Harness.answers(Reply.of(404), Reply.of(200))).status()).isEqualTo(404);
    assertThat(h.attemptTimes).hasSize(1);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void nonRetryableUncheckedFailureIsRethrownAsItIs(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());
    IllegalStateException boom = new IllegalStateException("boom");
    assertThatThrownBy(
            () ->
                h.run(
                    ctx -> {
                      throw boom;
                    }))
        .isSameAs(boom);
    assertThat(h.attemptTimes).hasSize(1);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void checkedFailuresAreRetriedThenReported(Mode mode) {
    Harness<Reply> h = harness(mode, http().withMaxRetries(2).build());
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                h.run(
                    ctx -> {
                      calls.incrementAndGet();
                      throw new IOException("connection reset");
                    }))
        .isInstanceOfSatisfying(
            RetriesExhaustedException.class,
            e -> {
              assertThat(e.getCause()).isInstanceOf(IOException.class);
              assertThat(e.getMessage()).startsWith("gave up after 3 attempts in ");
              assertThat(e.getMessage()).contains("(last: IOException, rule retry: io;");
            });
    assertThat(calls).hasValue(3);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void nextWaitPastTheDeadlineFailsBeforeSleeping(Mode mode) {
    Backoff fixed =
        Backoff.builder()
            .withBase(Duration.ofSeconds(4))
            .withCap(Duration.ofSeconds(60))
            .withJitter(Jitter.NONE)
            .build();
    Harness<Reply> h =
        harness(
            mode,
            http()
                .withBackoff(fixed)
                .withDeadline(Duration.ofSeconds(10))
                .withMaxRetries(9)
                .build());

    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(503))))
        .isInstanceOfSatisfying(
            DeadlineExceededException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RelentException.Reason.DEADLINE);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "gave up after 2 attempts in 4 s (last: HTTP 503, not retried;"
                          + " the next wait of 8 s would pass the 10 s deadline (6 s left))");
            });
    // Waited 4 s once; the 8 s wait was refused without sleeping.
    assertThat(h.time.elapsed()).isEqualTo(Duration.ofSeconds(4));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void deadlineIsNeverOverrunWhateverTheServerSays(Mode mode) {
    SplittableRandom random = new SplittableRandom(7);
    for (int run = 0; run < 200; run++) {
      Duration deadline = Duration.ofMillis(1000 + random.nextInt(60_000));
      Harness<Reply> h = harness(mode, http().withDeadline(deadline).withMaxRetries(50).build());
      long seed = random.nextLong();
      SplittableRandom script = new SplittableRandom(seed);
      try {
        h.run(
            ctx -> {
              h.time.advance(Duration.ofMillis(script.nextInt(2000)));
              int pick = script.nextInt(10);
              if (pick < 5) {
                return Reply.of(503);
              }
              if (pick < 8) {
                return Reply.retryAfter(503, Duration.ofMillis(script.nextInt(40_000)));
              }
              return pick == 8 ? Reply.rateLimited(Duration.ofSeconds(1)) : Reply.of(500);
            });
      } catch (RelentException expected) {
        assertThat(expected.elapsed()).isLessThanOrEqualTo(h.time.elapsed());
      }
      // The last attempt may itself run long (a sync attempt is bounded by the client's own
      // timeout), but no wait ever starts that would end past the deadline.
      List<Duration> gaps = h.retryWaits();
      Duration waited = gaps.stream().reduce(Duration.ZERO, Duration::plus);
      assertThat(waited).as("seed %d", seed).isLessThan(deadline);
      for (int i = 0; i < h.attemptTimes.size(); i++) {
        assertThat(h.attemptTimes.get(i)).as("seed %d", seed).isLessThan(deadline.toNanos());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void attemptTimeoutIsTheSmallerOfItsOwnAndTheDeadlineLeft(Mode mode) {
    Backoff fixed =
        Backoff.builder()
            .withBase(Duration.ofSeconds(4))
            .withCap(Duration.ofSeconds(4))
            .withJitter(Jitter.NONE)
            .build();
    Harness<Reply> h =
        harness(
            mode,
            http()
                .withBackoff(fixed)
                .withDeadline(Duration.ofSeconds(12))
                .withAttemptTimeout(Duration.ofSeconds(10))
                .build());
    List<Long> timeouts = new java.util.ArrayList<>();
    h.run(
        ctx -> {
          timeouts.add(ctx.timeoutNanos());
          return ctx.attempt() < 3 ? Reply.of(503) : Reply.of(200);
        });
    assertThat(timeouts)
        .containsExactly(
            Duration.ofSeconds(10).toNanos(),
            Duration.ofSeconds(8).toNanos(),
            Duration.ofSeconds(4).toNanos());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void quotaExhaustedStopsAtOnceAndSaysWhenItResets(Mode mode) {
    Instant reset = FakeTime.DEFAULT_START.plus(Duration.ofHours(9));
    ServerHint quota =
        ServerHint.quotaExhausted(Duration.ofHours(9), reset, "X-RateLimit-Reset: 32400");
    Harness<Reply> h = harness(mode, http().build());

    assertThatThrownBy(() -> h.run(Harness.answers(new Reply(429, quota))))
        .isInstanceOfSatisfying(
            QuotaExhaustedException.class,
            e -> {
              assertThat(e.retryAt()).contains(reset);
              assertThat(e.getMessage())
                  .contains("quota exhausted after 1 attempt", "resets in 32400 s");
            });
    assertThat(h.time.elapsed()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void listenersSeeEveryAttemptAndDecisionAndCannotBreakTheCall(Mode mode) {
    Harness<Reply> h =
        harness(
            mode,
            http().build(),
            b ->
                b.onEvent(
                    e -> {
                      throw new IllegalStateException("a broken listener");
                    }));

    assertThat(h.run(Harness.answers(Reply.of(503), Reply.of(200))).status()).isEqualTo(200);

    assertThat(h.events)
        .extracting(RelentEvent::type)
        .containsExactly(
            RelentEvent.Type.ATTEMPT_STARTED,
            RelentEvent.Type.ATTEMPT,
            RelentEvent.Type.RETRY,
            RelentEvent.Type.ATTEMPT_STARTED,
            RelentEvent.Type.ATTEMPT,
            RelentEvent.Type.SUCCESS);
    RelentEvent<Reply> firstEnd = h.events.get(1);
    assertThat(firstEnd.verdict()).contains(RETRY_5XX);
    assertThat(firstEnd.attempt()).isEqualTo(1);
    assertThat(firstEnd.attemptStart()).contains(Duration.ZERO);
    assertThat(firstEnd.attemptDuration()).contains(Duration.ZERO);
    assertThat(h.events.get(0).verdict()).isEmpty();
    assertThat(h.events.get(0).attemptDuration()).isEmpty();
    Duration wait = h.events.get(2).waitTime().orElseThrow();
    RelentEvent<Reply> secondStart = h.events.get(3);
    assertThat(secondStart.attempt()).isEqualTo(2);
    assertThat(secondStart.isRetry()).isTrue();
    assertThat(secondStart.attemptStart()).contains(wait);
    assertThat(secondStart.result()).isEmpty();
    assertThat(h.events.get(4).result().orElseThrow().status()).isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anAttemptsDurationIsTheTimeFromItsStartToItsOutcome(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());
    h.run(
        ctx -> {
          h.time.advance(Duration.ofMillis(250));
          return ctx.attempt() == 1 ? Reply.of(503) : Reply.of(200);
        });
    List<RelentEvent<Reply>> ends =
        h.events.stream().filter(e -> e.type() == RelentEvent.Type.ATTEMPT).toList();
    assertThat(ends).hasSize(2);
    assertThat(ends.get(0).attemptDuration()).contains(Duration.ofMillis(250));
    assertThat(ends.get(1).attemptDuration()).contains(Duration.ofMillis(250));
    assertThat(ends.get(1).attemptStart().orElseThrow())
        .isEqualTo(ends.get(1).elapsed().minusMillis(250));
    // The allocation-free accessors say the same in nanoseconds, -1 where the event has none.
    assertThat(ends.get(0).attemptDurationNanos()).isEqualTo(250_000_000L);
    assertThat(ends.get(1).elapsedNanos()).isEqualTo(ends.get(1).elapsed().toNanos());
    RelentEvent<Reply> retry =
        h.events.stream().filter(e -> e.type() == RelentEvent.Type.RETRY).findFirst().get();
    assertThat(retry.waitNanos()).isEqualTo(retry.waitTime().orElseThrow().toNanos());
    assertThat(retry.attemptDurationNanos()).isEqualTo(-1);
    assertThat(ends.get(0).waitNanos()).isEqualTo(-1);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anExecutorShowsItsOwnGuardsForInspection(Mode mode) {
    CircuitBreaker breaker = CircuitBreaker.ofDefaults();
    RetryBudget budget = RetryBudget.ofDefaults();
    Pacer pacer = Pacer.of(10, Duration.ofSeconds(1));
    ConcurrencyLimit limit = ConcurrencyLimit.of(2);
    Harness<Reply> guarded =
        harness(
            mode,
            http().build(),
            b ->
                b.withCircuitBreaker(breaker)
                    .withRetryBudget(budget)
                    .withPacer(pacer)
                    .withConcurrencyLimit(limit));
    assertThat(guarded.executor.circuitBreaker()).containsSame(breaker);
    assertThat(guarded.executor.retryBudget()).containsSame(budget);
    assertThat(guarded.executor.pacer()).containsSame(pacer);
    assertThat(guarded.executor.concurrencyLimit()).containsSame(limit);
    Harness<Reply> bare = harness(mode, http().build());
    assertThat(bare.executor.circuitBreaker()).isEmpty();
    assertThat(bare.executor.retryBudget()).isEmpty();
    assertThat(bare.executor.pacer()).isEmpty();
    assertThat(bare.executor.concurrencyLimit()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aCallsOwnListenerSeesThatCallAloneAfterTheExecutorWideOnes(Mode mode) {
    Harness<Reply> h = harness(mode, http().build());
    List<String> seen = new java.util.ArrayList<>();
    h.events.clear();
    RelentListener<Reply> first =
        e -> seen.add("first:" + e.type() + "#" + e.attempt() + "/" + h.events.size());
    RelentListener<Reply> second = e -> seen.add("second:" + e.type() + "#" + e.attempt());
    java.util.Iterator<Reply> answers = List.of(Reply.of(503), Reply.of(200)).iterator();
    if (mode == Mode.SYNC) {
      h.executor.get(ctx -> answers.next(), first);
      h.executor.get(ctx -> Reply.of(200), second);
    } else {
      var a = h.executor.getAsync(ctx -> CompletableFuture.completedFuture(answers.next()), first);
      h.scheduler.runUntilIdle();
      a.join();
      var b = h.executor.getAsync(ctx -> CompletableFuture.completedFuture(Reply.of(200)), second);
      h.scheduler.runUntilIdle();
      b.join();
    }
    // The executor-wide listener saw each event before the call's own one did.
    assertThat(seen)
        .containsExactly(
            "first:ATTEMPT_STARTED#1/1",
            "first:ATTEMPT#1/2",
            "first:RETRY#1/3",
            "first:ATTEMPT_STARTED#2/4",
            "first:ATTEMPT#2/5",
            "first:SUCCESS#2/6",
            "second:ATTEMPT_STARTED#1",
            "second:ATTEMPT#1",
            "second:SUCCESS#1");
    assertThatThrownBy(() -> h.executor.get(ctx -> Reply.of(200), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("listener cannot be null");
  }

  // ------------------------------------------------------------------ guards in the pipeline

  @ParameterizedTest
  @EnumSource(Mode.class)
  void openBreakerRefusesWithoutSendingAndIsNotCountedAsAFailure(Mode mode) {
    CircuitBreaker breaker =
        CircuitBreaker.builder()
            .withCountWindow(4)
            .withMinimumCalls(2)
            .withFailureRateThreshold(50)
            .withOpenDuration(Duration.ofSeconds(30))
            .withHalfOpenProbes(1)
            .build();
    Harness<Reply> h =
        harness(mode, http().withMaxRetries(1).build(), b -> b.withCircuitBreaker(breaker));

    // Two calls that gave up: two failures of two calls.
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(503))))
          .isInstanceOf(RetriesExhaustedException.class);
    }
    assertThat(breaker.state(h.time.read())).isEqualTo(CircuitBreaker.State.OPEN);
    long callsBefore = breaker.metrics(h.time.read()).calls();
    int attemptsBefore = h.attemptTimes.size();

    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(200))))
        .isInstanceOfSatisfying(
            CircuitOpenException.class,
            e -> {
              assertThat(e.attempts()).isZero();
              assertThat(e.getMessage()).startsWith("circuit breaker open before any attempt");
              assertThat(e.retryAt()).isPresent();
            });
    assertThat(h.attemptTimes).hasSize(attemptsBefore);
    assertThat(breaker.metrics(h.time.read()).calls()).isEqualTo(callsBefore);
    assertThat(h.executor.counters().breakerRefusals()).isEqualTo(1);
  }

  private static CircuitBreaker breaker(int minimumCalls, int probes) {
    return CircuitBreaker.builder()
        .withCountWindow(10)
        .withMinimumCalls(minimumCalls)
        .withFailureRateThreshold(50)
        .withOpenDuration(Duration.ofSeconds(30))
        .withHalfOpenProbes(probes)
        .build();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theBreakerCountsCallsNotAttempts(Mode mode) {
    CircuitBreaker breaker = breaker(4, 1);
    Harness<Reply> h = harness(mode, http().build(), b -> b.withCircuitBreaker(breaker));

    // Two calls that each succeeded after one 503: two calls, both successes, not four attempts
    // of which half failed (which opened a breaker that wants 4 calls at 50 %).
    h.run(Harness.answers(Reply.of(503), Reply.of(200)));
    h.run(Harness.answers(Reply.of(503), Reply.of(200)));
    assertThat(breaker.metrics(h.time.read()))
        .returns(CircuitBreaker.State.CLOSED, CircuitBreaker.Metrics::state)
        .returns(2L, CircuitBreaker.Metrics::calls)
        .returns(0L, CircuitBreaker.Metrics::failures);

    // A call that gives up after all its retries (six 503s) is one failure.
    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(503))))
        .isInstanceOf(RetriesExhaustedException.class);
    assertThat(h.attemptTimes).hasSize(10);
    assertThat(breaker.metrics(h.time.read()))
        .returns(3L, CircuitBreaker.Metrics::calls)
        .returns(1L, CircuitBreaker.Metrics::failures);
    assertThat(breaker.state(h.time.read())).isEqualTo(CircuitBreaker.State.CLOSED);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anAnswerThatPacesTheCallerIsNoBreakerFailure(Mode mode) {
    CircuitBreaker breaker = breaker(1, 1);
    Harness<Reply> h =
        harness(mode, http().withMaxRetries(1).build(), b -> b.withCircuitBreaker(breaker));

    // A 429 says the caller goes too fast, not that the server fails: a call that retried it and
    // then succeeded is a success, one that gave up on it counts neither way.
    h.run(Harness.answers(Reply.rateLimited(Duration.ofSeconds(1)), Reply.of(200)));
    assertThatThrownBy(() -> h.run(Harness.answers(Reply.rateLimited(Duration.ofSeconds(1)))))
        .isInstanceOf(RetriesExhaustedException.class);
    assertThat(breaker.metrics(h.time.read()))
        .returns(CircuitBreaker.State.CLOSED, CircuitBreaker.Metrics::state)
        .returns(1L, CircuitBreaker.Metrics::calls)
        .returns(0L, CircuitBreaker.Metrics::failures);

    // A 503 with Retry-After is the server failing, which says when to come back: it counts.
    assertThatThrownBy(() -> h.run(Harness.answers(Reply.retryAfter(503, Duration.ofSeconds(1)))))
        .isInstanceOf(RetriesExhaustedException.class);
    assertThat(breaker.metrics(h.time.read()))
        .returns(2L, CircuitBreaker.Metrics::calls)
        .returns(1L, CircuitBreaker.Metrics::failures)
        .returns(CircuitBreaker.State.OPEN, CircuitBreaker.Metrics::state);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aProbeIsACallWhoseRetriesBelongToIt(Mode mode) {
    CircuitBreaker breaker = breaker(1, 1);
    Harness<Reply> h = harness(mode, http().build(), b -> b.withCircuitBreaker(breaker));
    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(503))))
        .isInstanceOf(RetriesExhaustedException.class);
    assertThat(breaker.state(h.time.read())).isEqualTo(CircuitBreaker.State.OPEN);
    h.time.advance(Duration.ofSeconds(30));

    // The probe's first attempt fails and is retried; its call succeeds: the breaker closes.
    Reply reply = h.run(Harness.answers(Reply.of(503), Reply.of(200)));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(breaker.metrics(h.time.read()))
        .returns(CircuitBreaker.State.CLOSED, CircuitBreaker.Metrics::state)
        .returns(0, CircuitBreaker.Metrics::probesInFlight);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void spentRetryBudgetReturnsTheFailureAtOnce(Mode mode) {
    RetryBudget budget =
        RetryBudget.builder()
            .withRatio(0.1)
            .withWindow(Duration.ofSeconds(10))
            .withMinRetriesPerSecond(0)
            .build();
    Harness<Reply> h = harness(mode, http().build(), b -> b.withRetryBudget(budget));

    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(503))))
        .isInstanceOfSatisfying(
            RetryBudgetExhaustedException.class,
            e -> {
              assertThat(e.attempts()).isEqualTo(1);
              assertThat(e.budgetLimit()).isZero();
              assertThat(e.getMessage()).contains("retry budget 0 of 0");
            });
    assertThat(h.time.elapsed()).isZero();
    assertThat(h.executor.counters().budgetRefusals()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void pacerSpacesStartsOfFirstAttemptsAndRetriesAlike(Mode mode) {
    Pacer pacer = Pacer.of(90, Duration.ofMinutes(1));
    Backoff fixed =
        Backoff.builder()
            .withBase(Duration.ofMillis(100))
            .withCap(Duration.ofMillis(100))
            .withJitter(Jitter.NONE)
            .build();
    Harness<Reply> h = harness(mode, http().withBackoff(fixed).build(), b -> b.withPacer(pacer));

    h.run(Harness.answers(Reply.of(503), Reply.of(503), Reply.of(200)));

    // Backoff asks for 100 ms, but the pacer allows one start every 666.67 ms.
    long interval = pacer.interval().toNanos();
    assertThat(h.attemptTimes).containsExactly(0L, interval, 2 * interval);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void pacerWaitPastTheDeadlineFailsWithoutWaiting(Mode mode) {
    Pacer pacer = Pacer.of(1, Duration.ofMinutes(1));
    Harness<Reply> h =
        harness(mode, http().withDeadline(Duration.ofSeconds(30)).build(), b -> b.withPacer(pacer));
    h.run(Harness.answers(Reply.of(200)));

    assertThatThrownBy(() -> h.run(Harness.answers(Reply.of(200))))
        .isInstanceOfSatisfying(
            DeadlineExceededException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RelentException.Reason.RATE_LIMIT_WAIT);
              assertThat(e.getMessage()).contains("the pacer's next start is in 60 s");
            });
    assertThat(h.time.elapsed()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void rateLimitHintPausesEveryCallerSharingThePacer(Mode mode) {
    // Inspected with a time source of its own that stays at the start the executor's began at.
    FakeTime start = new FakeTime();
    Pacer pacer = Pacer.builder().withRate(600, Duration.ofMinutes(1)).withTime(start).build();
    Harness<Reply> h = harness(mode, http().build(), b -> b.withPacer(pacer));

    h.run(Harness.answers(Reply.rateLimited(Duration.ofSeconds(5)), Reply.of(200)));

    assertThat(pacer.pauseRemaining()).isEqualTo(Duration.ofSeconds(5));
    assertThat(pacer.pausedUntil()).contains(FakeTime.DEFAULT_START.plusSeconds(5));
    assertThat(h.attemptTimes.get(1)).isGreaterThanOrEqualTo(Duration.ofSeconds(5).toNanos());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void concurrencySlotIsHeldOnlyDuringTheAttempt(Mode mode) {
    ConcurrencyLimit limit = ConcurrencyLimit.of(1);
    Harness<Reply> h = harness(mode, http().build(), b -> b.withConcurrencyLimit(limit));
    List<Integer> seen = new java.util.ArrayList<>();

    h.run(
        ctx -> {
          seen.add(limit.available());
          return ctx.attempt() < 3 ? Reply.of(503) : Reply.of(200);
        });

    assertThat(seen).containsExactly(0, 0, 0);
    assertThat(limit.available()).isEqualTo(1);
  }
}
