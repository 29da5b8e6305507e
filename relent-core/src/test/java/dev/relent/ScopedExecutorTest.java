package dev.relent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.Harness.Mode;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calls that name their scopes: a rate-limit answer pauses the scope it belongs to, not the
 * executor; every scope's pacer, breaker and pause govern the call. Both modes, on fake time.
 */
class ScopedExecutorTest {
  record Reply(int status, ServerHint hint, String endpoint) {}

  private static final Scope ACCOUNT = Scope.account("api.example.com");
  private static final Scope ITEMS = Scope.endpoint("GET api.example.com/v1/items/{id}");
  private static final Scope USERS = Scope.endpoint("GET api.example.com/v1/users/{id}");
  private static final List<Scope> ON_ITEMS = List.of(ACCOUNT, ITEMS);
  private static final List<Scope> ON_USERS = List.of(ACCOUNT, USERS);

  private static Reply ok(String endpoint) {
    return new Reply(200, null, endpoint);
  }

  private static Reply tooMany(String endpoint, Duration wait) {
    return new Reply(
        429,
        ServerHint.rateLimited(
            wait, wait.isZero() ? "HTTP 429" : "Retry-After: " + wait.toSeconds()),
        endpoint);
  }

  private static Reply quota(String endpoint, Duration wait) {
    return new Reply(
        429, ServerHint.quotaExhausted(wait, null, "Retry-After: " + wait.toSeconds()), endpoint);
  }

  private static Harness<Reply> harness(
      Mode mode,
      FakeTime time,
      GuardRegistry registry,
      UnaryOperator<RelentExecutor.Builder<Reply>> more) {
    return harness(mode, time, registry, 0, more);
  }

  private static Harness<Reply> harness(
      Mode mode,
      FakeTime time,
      GuardRegistry registry,
      int maxRetries,
      UnaryOperator<RelentExecutor.Builder<Reply>> more) {
    return new Harness<>(
        mode,
        RetryPolicy.builder()
            .withMaxRetries(maxRetries)
            .withDeadline(Duration.ofSeconds(30))
            .build(),
        time,
        b ->
            more.apply(
                b.withClassifier(
                        (reply, failure) ->
                            failure != null || reply.status() >= 500
                                ? Verdict.RETRY
                                : reply.status() == 429 ? Verdict.RETRY : Verdict.SUCCESS)
                    .withHintExtractor((reply, failure) -> reply == null ? null : reply.hint())
                    .withOutcomeDescriber(
                        (reply, failure) ->
                            reply == null
                                ? "failure"
                                : "HTTP " + reply.status() + " from GET " + reply.endpoint())
                    .withScopes(registry)));
  }

  private static GuardRegistry registry(FakeTime time) {
    return GuardRegistry.builder().withTime(time).build();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aLongRetryAfterOnOneEndpointPausesThatEndpointAloneAndSaysSo(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry = registry(time);
    Harness<Reply> x = harness(mode, time, registry, b -> b);

    assertThatThrownBy(
            () ->
                x.run(ON_ITEMS, Harness.answers(quota("https://h/v1/items/7", Duration.ofDays(1)))))
        .isInstanceOf(RelentException.class)
        .hasMessageContaining("paused endpoint GET api.example.com/v1/items/{id} for 86400 s)");

    // A healthy endpoint of the same account is not held up.
    Reply users = x.run(ON_USERS, Harness.answers(ok("https://h/v1/users/1")));
    assertThat(users.status()).isEqualTo(200);

    // The paused one fails at once, naming the scope, the request and the answer, and the end.
    long before = time.read();
    assertThatThrownBy(() -> x.run(ON_ITEMS, Harness.answers(ok("https://h/v1/items/8"))))
        .isInstanceOf(DeadlineExceededException.class)
        .satisfies(
            e ->
                assertThat(((RelentException) e).reason())
                    .isEqualTo(RelentException.Reason.RATE_LIMIT_WAIT))
        .hasMessage(
            "gave up before any attempt, 0 s in (endpoint GET api.example.com/v1/items/{id} is"
                + " paused for 86400 s more (until 2026-01-02T00:00:00Z), past the deadline (30 s"
                + " left), by HTTP 429 from GET https://h/v1/items/7 (Retry-After: 86400);"
                + " GuardRegistry.resume(scope) ends it; retry at 2026-01-02T00:00:00Z)");
    assertThat(time.read()).isEqualTo(before);
    assertThat(x.attemptTimes).hasSize(2);

    ScopeGuards items = registry.find(ITEMS).orElseThrow();
    assertThat(items.pausedUntil()).contains(Instant.parse("2026-01-02T00:00:00Z"));
    assertThat(registry.find(ACCOUNT).orElseThrow().isPaused()).isFalse();

    // Resumed from the API, it goes again.
    assertThat(registry.resume(ITEMS)).isTrue();
    assertThat(x.run(ON_ITEMS, Harness.answers(ok("https://h/v1/items/8"))).status())
        .isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRateLimitPauseIsCappedAtTheLongestWaitAllowed(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry = registry(time);
    Harness<Reply> x = harness(mode, time, registry, b -> b);

    assertThatThrownBy(
            () ->
                x.run(
                    ON_ITEMS,
                    Harness.answers(tooMany("https://h/v1/items/7", Duration.ofMinutes(10)))))
        .hasMessageContaining("paused endpoint GET api.example.com/v1/items/{id} for 30 s)");
    assertThatThrownBy(() -> x.run(ON_ITEMS, Harness.answers(ok("https://h/v1/items/8"))))
        .hasMessageContaining(
            "is paused for 30 s more (until 2026-01-01T00:00:30Z), past the deadline (30 s left),"
                + " by HTTP 429 from GET https://h/v1/items/7 (Retry-After: 600); the server asked"
                + " for 600 s, the pause is capped at the 30 s allowed;");
    assertThat(registry.find(ITEMS).orElseThrow().pauseAsked()).isEqualTo(Duration.ofMinutes(10));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aPauseShorterThanTheDeadlineIsWaitedOutByTheScopesCallsOnly(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry = registry(time);
    Harness<Reply> x = harness(mode, time, registry, b -> b);

    assertThatThrownBy(
            () ->
                x.run(
                    ON_ITEMS,
                    Harness.answers(tooMany("https://h/v1/items/7", Duration.ofSeconds(2)))))
        .isInstanceOf(RelentException.class); // no retries left
    x.run(ON_USERS, Harness.answers(ok("u")));
    x.run(ON_ITEMS, Harness.answers(ok("i")));

    assertThat(x.attemptTimes).containsExactly(0L, 0L, Duration.ofSeconds(2).toNanos());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void a429WithoutAWaitPausesNothing(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry = registry(time);
    Harness<Reply> x = harness(mode, time, registry, b -> b);

    assertThatThrownBy(() -> x.run(ON_ITEMS, Harness.answers(tooMany("i", Duration.ZERO))))
        .isInstanceOf(RelentException.class)
        .hasMessageNotContaining("paused");

    assertThat(registry.paused()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aPauseTargetNamingTheAccountPausesEveryEndpointOfIt(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry = registry(time);
    Harness<Reply> x =
        harness(
            mode,
            time,
            registry,
            b ->
                b.withPauseTarget(
                    (reply, failure, hint) ->
                        reply.endpoint().contains("account-wide") ? Scope.Kind.ACCOUNT : null));

    assertThatThrownBy(
            () -> x.run(ON_ITEMS, Harness.answers(tooMany("account-wide", Duration.ofSeconds(3)))))
        .isInstanceOf(RelentException.class);
    assertThat(registry.find(ACCOUNT).orElseThrow().pauseCause())
        .contains("HTTP 429 from GET account-wide (Retry-After: 3)");
    assertThat(registry.find(ITEMS).orElseThrow().isPaused()).isFalse();
    x.run(ON_USERS, Harness.answers(ok("u")));

    assertThat(x.attemptTimes).containsExactly(0L, Duration.ofSeconds(3).toNanos());
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void everyPacerOfTheRequestGovernsItsStartAndTheSlowestWins(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withPacer(Scope.Kind.ENDPOINT, s -> Pacer.of(1, Duration.ofSeconds(1)))
            .withTime(time)
            .build();
    Harness<Reply> x =
        harness(
            mode,
            time,
            registry,
            b -> b.withPacer(Pacer.of(2, Duration.ofSeconds(1)))); // account-wide

    x.run(ON_ITEMS, Harness.answers(ok("i")));
    x.run(ON_ITEMS, Harness.answers(ok("i"))); // the endpoint's pacer: 1 s
    x.run(ON_USERS, Harness.answers(ok("u"))); // the executor's pacer: 0.5 s after that

    assertThat(x.attemptTimes)
        .containsExactly(0L, Duration.ofSeconds(1).toNanos(), Duration.ofMillis(1500).toNanos());
  }

  @Test
  void aCancelledAsyncCallGivesBackItsStartToEveryPacer() {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withPacer(Scope.Kind.ENDPOINT, s -> Pacer.of(1, Duration.ofSeconds(1)))
            .withTime(time)
            .build();
    Harness<Reply> x = harness(Mode.ASYNC, time, registry, b -> b);

    x.run(ON_ITEMS, Harness.answers(ok("i")));
    CompletableFuture<Reply> waiting = x.start(ON_ITEMS, Harness.answers(ok("i")));
    waiting.cancel(true);
    x.run(ON_ITEMS, Harness.answers(ok("i")));

    assertThat(x.attemptTimes).containsExactly(0L, Duration.ofSeconds(1).toNanos());
  }

  @Test
  void aPauseThatBeginsWhileACallWaitsForItsPacerIsWaitedOutToo() {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withPacer(Scope.Kind.ENDPOINT, s -> Pacer.of(1, Duration.ofSeconds(1)))
            .withTime(time)
            .build();
    Harness<Reply> x = harness(Mode.ASYNC, time, registry, b -> b);
    CompletableFuture<Reply> answer = new CompletableFuture<>();
    List<Long> starts = new java.util.ArrayList<>();

    x.executor.getAsync(
        ON_ITEMS,
        ctx -> {
          starts.add(time.read());
          return answer;
        },
        null);
    CompletableFuture<Reply> second =
        x.executor.getAsync(
            ON_ITEMS,
            ctx -> {
              starts.add(time.read());
              return CompletableFuture.completedFuture(ok("i"));
            },
            null);
    x.scheduler.advance(Duration.ofMillis(500));
    // The answer at 500 ms pauses the endpoint for 5 s after it is received (RFC 9110's
    // Retry-After counts from the response, not from the request).
    answer.complete(tooMany("i", Duration.ofSeconds(5)));
    x.scheduler.runUntilIdle();

    assertThat(second.join().status()).isEqualTo(200);
    assertThat(starts).containsExactly(0L, Duration.ofMillis(5500).toNanos());
  }

  @Test
  void theCallsAPauseHeldStartSpreadAtThePacersRateWhenItEndsNotTogether() {
    FakeTime time = new FakeTime();
    GuardRegistry registry = registry(time);
    Harness<Reply> x =
        harness(Mode.ASYNC, time, registry, b -> b.withPacer(Pacer.of(10, Duration.ofSeconds(1))));
    CompletableFuture<Reply> answer = new CompletableFuture<>();
    List<Long> starts = new java.util.ArrayList<>();
    x.executor.getAsync(ON_ITEMS, ctx -> answer, null);
    List<CompletableFuture<Reply>> held = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(
          x.executor.getAsync(
              ON_ITEMS,
              ctx -> {
                starts.add(time.read());
                return CompletableFuture.completedFuture(ok("i"));
              },
              null));
    }
    // Starts reserved at 100, 200 and 300 ms; the answer at 50 ms pauses the endpoint for 5 s
    // after it, until 5.05 s.
    x.scheduler.advance(Duration.ofMillis(50));
    answer.complete(tooMany("i", Duration.ofSeconds(5)));
    x.scheduler.runUntilIdle();

    for (CompletableFuture<Reply> call : held) {
      assertThat(call.join().status()).isEqualTo(200);
    }
    assertThat(starts)
        .containsExactly(
            Duration.ofMillis(5050).toNanos(),
            Duration.ofMillis(5150).toNanos(),
            Duration.ofMillis(5250).toNanos());
  }

  /** Starts a call that records its start as {@code name at N ms}; the scheduler drives it. */
  private static CompletableFuture<Reply> startNamed(
      Harness<Reply> x, List<Scope> scopes, String name, List<String> starts) {
    return x.executor.getAsync(
        scopes,
        ctx -> {
          starts.add(name + " at " + x.time.read() / 1_000_000 + " ms");
          return CompletableFuture.completedFuture(ok(name));
        },
        null);
  }

  @Test
  void aCallWaitingForItsScopesPacerHoldsNoStartOfTheExecutorsPacerMeanwhile() {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withPacer(Scope.Kind.ENDPOINT, s -> Pacer.of(1, Duration.ofSeconds(1)))
            .withTime(time)
            .build();
    // The executor's pacer is the ceiling of every scope together.
    Harness<Reply> x =
        harness(Mode.ASYNC, time, registry, b -> b.withPacer(Pacer.of(10, Duration.ofSeconds(1))));
    List<String> starts = new java.util.ArrayList<>();

    startNamed(x, ON_ITEMS, "items 1", starts);
    startNamed(x, ON_ITEMS, "items 2", starts); // its endpoint's next start is in 1 s
    startNamed(x, ON_USERS, "users", starts);
    x.scheduler.runUntilIdle();

    // Had the second call reserved the ceiling's start at 1 s while it waited for its endpoint,
    // the other endpoint would have queued behind it, at 1.1 s.
    assertThat(starts).containsExactly("items 1 at 0 ms", "users at 100 ms", "items 2 at 1000 ms");
  }

  @Test
  void aCallHeldByItsScopesPauseHoldsNoStartOfTheExecutorsPacer() {
    FakeTime time = new FakeTime();
    GuardRegistry registry = registry(time);
    Harness<Reply> x =
        harness(Mode.ASYNC, time, registry, b -> b.withPacer(Pacer.of(10, Duration.ofSeconds(1))));
    registry.guards(ITEMS, time.read()).pause(Duration.ofSeconds(5), "an operator");
    List<String> starts = new java.util.ArrayList<>();

    startNamed(x, ON_ITEMS, "items", starts);
    startNamed(x, ON_USERS, "users 1", starts);
    startNamed(x, ON_USERS, "users 2", starts);
    x.scheduler.runUntilIdle();

    assertThat(starts).containsExactly("users 1 at 0 ms", "users 2 at 100 ms", "items at 5000 ms");
  }

  private static GuardRegistry adaptivePerScope(FakeTime time) {
    return GuardRegistry.builder()
        .withPacer(Scope.Kind.ACCOUNT, s -> Pacer.builder().adaptive().withTime(time).build())
        .withPacer(Scope.Kind.ENDPOINT, s -> Pacer.builder().adaptive().withTime(time).build())
        .withTime(time)
        .build();
  }

  private static Duration interval(GuardRegistry registry, Scope scope) {
    return registry.find(scope).orElseThrow().pacer().orElseThrow().interval();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anAdaptivePacerOfAScopeLearnsFromThatScopesAnswersAlone(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry = adaptivePerScope(time);
    Harness<Reply> x = harness(mode, time, registry, b -> b);

    x.run(ON_USERS, Harness.answers(ok("u")));
    assertThatThrownBy(() -> x.run(ON_ITEMS, Harness.answers(tooMany("i", Duration.ofSeconds(1)))))
        .isInstanceOf(RelentException.class);

    assertThat(interval(registry, ITEMS)).isGreaterThan(Duration.ofNanos(1));
    assertThat(interval(registry, USERS)).isEqualTo(Duration.ofNanos(1));
    assertThat(interval(registry, ACCOUNT)).isEqualTo(Duration.ofNanos(1));
    // The other endpoint starts at once, twice in a row: nothing it shares learned a rate (a
    // pacer that does not pace yet spaces its starts by its 1 ns).
    long now = time.read();
    x.run(ON_USERS, Harness.answers(ok("u")));
    x.run(ON_USERS, Harness.answers(ok("u")));
    assertThat(x.attemptTimes.subList(2, 4)).allSatisfy(t -> assertThat(t - now).isLessThan(10));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void anAnswerThatBelongsToTheAccountTeachesTheAccountsPacer(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry = adaptivePerScope(time);
    Harness<Reply> x =
        harness(
            mode,
            time,
            registry,
            b ->
                b.withPauseTarget(
                    (reply, failure, hint) ->
                        reply.endpoint().contains("account-wide") ? Scope.Kind.ACCOUNT : null));

    assertThatThrownBy(
            () -> x.run(ON_ITEMS, Harness.answers(tooMany("account-wide", Duration.ofSeconds(1)))))
        .isInstanceOf(RelentException.class);

    assertThat(interval(registry, ACCOUNT)).isGreaterThan(Duration.ofNanos(1));
    assertThat(interval(registry, ITEMS)).isEqualTo(Duration.ofNanos(1));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aScopesConcurrencyLimitHoldsASlotForEachAttemptAndGivesItBack(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withConcurrencyLimit(Scope.Kind.ENDPOINT, s -> ConcurrencyLimit.of(2))
            .withTime(time)
            .build();
    Harness<Reply> x = harness(mode, time, registry, b -> b);
    List<Integer> freeDuring = new java.util.ArrayList<>();

    Reply reply =
        x.run(
            ON_ITEMS,
            ctx -> {
              freeDuring.add(
                  registry.find(ITEMS).orElseThrow().concurrencyLimit().get().available());
              return ok("i");
            });

    assertThat(reply.status()).isEqualTo(200);
    assertThat(freeDuring).containsExactly(1);
    assertThat(registry.find(ITEMS).orElseThrow().concurrencyLimit().get().available())
        .isEqualTo(2);
  }

  @Test
  void aSynchronousCallBlocksForItsScopesSlotUntilOneIsGivenBack() throws Exception {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withConcurrencyLimit(Scope.Kind.ENDPOINT, s -> ConcurrencyLimit.of(1))
            .withTime(time)
            .build();
    Harness<Reply> x = harness(Mode.SYNC, time, registry, b -> b);
    ConcurrencyLimit items = registry.guards(ITEMS, time.read()).concurrencyLimit().orElseThrow();
    ConcurrencyLimit.Permit taken = items.tryAcquire().orElseThrow();
    CompletableFuture<Reply> call =
        CompletableFuture.supplyAsync(() -> x.run(ON_ITEMS, ctx -> ok("i")));
    while (items.waiting() == 0) {
      Thread.onSpinWait(); // the call is blocked on the endpoint's slot
    }
    assertThat(call).isNotDone();
    taken.release();
    assertThat(call.get(10, java.util.concurrent.TimeUnit.SECONDS).status()).isEqualTo(200);
    assertThat(items.available()).isEqualTo(1);
  }

  @Test
  void aCallWaitsForItsScopesSlotWithoutHoldingUpOtherScopesAndGivesUpAtTheDeadline() {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withConcurrencyLimit(Scope.Kind.ENDPOINT, s -> ConcurrencyLimit.of(1))
            .withTime(time)
            .build();
    Harness<Reply> x = harness(Mode.ASYNC, time, registry, b -> b);
    CompletableFuture<Reply> answer = new CompletableFuture<>();
    List<String> started = new java.util.ArrayList<>();
    CompletableFuture<Reply> first =
        x.executor.getAsync(
            ON_ITEMS,
            ctx -> {
              started.add("items 1");
              return answer;
            },
            null);
    CompletableFuture<Reply> second =
        x.executor.getAsync(
            ON_ITEMS,
            ctx -> {
              started.add("items 2");
              return CompletableFuture.completedFuture(ok("i"));
            },
            null);
    CompletableFuture<Reply> users =
        x.executor.getAsync(
            ON_USERS,
            ctx -> {
              started.add("users");
              return CompletableFuture.completedFuture(ok("u"));
            },
            null);
    // The endpoint's one slot is held by the first call; the other endpoint goes at once.
    assertThat(started).containsExactly("items 1", "users");
    assertThat(users.join().status()).isEqualTo(200);
    answer.complete(ok("i"));
    assertThat(first.join().status()).isEqualTo(200);
    assertThat(second.join().status()).isEqualTo(200);
    assertThat(started).containsExactly("items 1", "users", "items 2");

    // A slot that never comes free: the call gives up at its deadline, naming the scope.
    ConcurrencyLimit.Permit taken =
        registry.find(ITEMS).orElseThrow().concurrencyLimit().get().tryAcquire().orElseThrow();
    CompletableFuture<Reply> stuck =
        x.executor.getAsync(ON_ITEMS, ctx -> CompletableFuture.completedFuture(ok("i")), null);
    x.scheduler.advance(Duration.ofSeconds(31));
    assertThat(stuck)
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .havingCause()
        .isInstanceOf(RelentException.class)
        .withMessageContaining(
            "no concurrency slot of endpoint GET api.example.com/v1/items/{id} (1 at once) came"
                + " free within the 30 s deadline");
    taken.release();
    assertThat(registry.find(ITEMS).orElseThrow().concurrencyLimit().get().available())
        .isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aScopesOpenBreakerRefusesOnlyItsCalls(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry registry =
        GuardRegistry.builder()
            .withCircuitBreaker(
                Scope.Kind.ENDPOINT,
                s ->
                    CircuitBreaker.builder()
                        .withFailureRateThreshold(50)
                        .withMinimumCalls(2)
                        .withCountWindow(2)
                        .withTime(time)
                        .build())
            .withTime(time)
            .build();
    Harness<Reply> x = harness(mode, time, registry, b -> b);
    Reply broken = new Reply(503, null, "i");

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> x.run(ON_ITEMS, Harness.answers(broken)))
          .isInstanceOf(RelentException.class);
    }
    assertThatThrownBy(() -> x.run(ON_ITEMS, Harness.answers(ok("i"))))
        .hasMessageContaining(
            "the circuit breaker of endpoint GET api.example.com/v1/items/{id} is open: nothing"
                + " sent");
    assertThat(x.run(ON_USERS, Harness.answers(ok("u"))).status()).isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aScopesBreakerCountsCallsAndNotTheServersPacing(Mode mode) {
    FakeTime time = new FakeTime();
    CircuitBreaker[] made = new CircuitBreaker[1];
    GuardRegistry registry =
        GuardRegistry.builder()
            .withCircuitBreaker(
                Scope.Kind.ENDPOINT,
                s ->
                    made[0] =
                        CircuitBreaker.builder()
                            .withFailureRateThreshold(50)
                            .withMinimumCalls(2)
                            .withCountWindow(10)
                            .withTime(time)
                            .build())
            .withTime(time)
            .build();
    Harness<Reply> x = harness(mode, time, registry, 2, b -> b);
    Reply broken = new Reply(503, null, "i");
    Reply paced = new Reply(429, ServerHint.rateLimited(Duration.ofSeconds(1), "HTTP 429"), "i");

    // Each call succeeds after a 503 and a 429: two successes, no failure, the breaker closed.
    for (int i = 0; i < 2; i++) {
      assertThat(x.run(ON_ITEMS, Harness.answers(broken, paced, ok("i"))).status()).isEqualTo(200);
    }
    assertThat(made[0].metrics())
        .returns(CircuitBreaker.State.CLOSED, CircuitBreaker.Metrics::state)
        .returns(2L, CircuitBreaker.Metrics::calls)
        .returns(0L, CircuitBreaker.Metrics::failures);
  }

  @Test
  void scopesNeedARegistry() {
    RelentExecutor<Reply> plain = RelentExecutor.of(RetryPolicy.ofDefaults());
    assertThatThrownBy(() -> plain.get(ON_ITEMS, ctx -> ok("i"), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the call names scopes [account api.example.com, endpoint GET"
                + " api.example.com/v1/items/{id}] but the executor has no guard registry: build"
                + " it withScopes(registry)");
    assertThat(plain.registry()).isEmpty();
    assertThat(plain.get(List.of(), ctx -> ok("i"), null).status()).isEqualTo(200);
  }

  /** A 200 with one left of a window that resets in 1 s (X-RateLimit-*). */
  private static Reply oneLeft(String endpoint) {
    return new Reply(
        200, ServerHint.quota(1, Duration.ofSeconds(1), "X-RateLimit-Remaining: 1"), endpoint);
  }

  /** A 200 that says none of the same window is left. */
  private static Reply lastOfTheWindow(String endpoint) {
    return new Reply(
        200,
        ServerHint.rateLimited(Duration.ofSeconds(1), "X-RateLimit-Remaining: 0")
            .withQuota(0, Duration.ofSeconds(1)),
        endpoint);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aSuccessWithNoneLeftPausesNoScopeWhoseBracketPacerHoldsTheWindowItself(Mode mode) {
    FakeTime time = new FakeTime();
    GuardRegistry bracket =
        GuardRegistry.builder()
            .withTime(time)
            .withPacer(
                Scope.Kind.ENDPOINT,
                s -> Pacer.builder().adaptive(Pacer.Congestion.BRACKET).withTime(time).build())
            .build();
    Harness<Reply> x = harness(mode, time, bracket, b -> b);
    // One answer with none left is not known to be a window's: the scope pauses as for any.
    x.run(ON_ITEMS, Harness.answers(lastOfTheWindow("i")));
    assertThat(bracket.find(ITEMS).orElseThrow().isPaused()).isTrue();
    time.advance(Duration.ofSeconds(2));
    // Two readings naming one reset are a window's: the pacer holds to it, the scope is not paused.
    x.run(ON_ITEMS, Harness.answers(oneLeft("i")));
    x.run(ON_ITEMS, Harness.answers(lastOfTheWindow("i")));
    ScopeGuards items = bracket.find(ITEMS).orElseThrow();
    // No pause: the pacer holds its own starts until the window lets the next go (WindowLength).
    assertThat(items.isPaused()).isFalse();
    assertThat(items.pacer().orElseThrow().pausedUntilNanos()).isPositive();

    // A fixed-rate pacer reads no quota: the scope pauses for the stated reset.
    GuardRegistry fixed =
        GuardRegistry.builder()
            .withTime(time)
            .withPacer(Scope.Kind.ENDPOINT, s -> Pacer.of(100, Duration.ofSeconds(1)))
            .build();
    harness(mode, time, fixed, b -> b).run(ON_ITEMS, Harness.answers(lastOfTheWindow("i")));
    assertThat(fixed.find(ITEMS).orElseThrow().isPaused()).isTrue();
  }
}
