package dev.relent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.guard.AdaptiveThrottle;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The executor feeds an adaptive pacer and a throttle what every attempt said. */
class AdaptiveExecutorTest {

  /** An executor on fake time that retries 429s, with the pacer and the hints given. */
  private static RelentExecutor<Integer> paced(
      FakeTime time, Pacer pacer, HintExtractor<Integer> hints) {
    return RelentExecutor.<Integer>builder(RetryPolicy.ofDefaults())
        .withTime(time)
        .withPacer(pacer)
        .retryIf(status -> status == 429)
        .withHintExtractor(hints)
        .build();
  }

  @Test
  void aQuotaOnASuccessSetsTheRateAndA429PausesIt() {
    FakeTime time = new FakeTime();
    Pacer pacer = Pacer.builder().adaptive().withTime(time).build();
    AtomicInteger calls = new AtomicInteger();
    RelentExecutor<Integer> executor =
        paced(
            time,
            pacer,
            (status, failure) ->
                status == 429
                    ? ServerHint.rateLimited(Duration.ofSeconds(1), "Retry-After: 1")
                    : ServerHint.quota(10, Duration.ofSeconds(5), "RateLimit"));
    assertThat(executor.get(() -> 200)).isEqualTo(200);
    // 10 in the 5 s after the attempt: 500 ms apart.
    assertThat(pacer.interval()).isEqualTo(Duration.ofMillis(500));
    // A 429 and then a success: the retry waited for the pause. The 429 refused a start the
    // quota still allowed (10 left, one start since): someone else spends the account, so the
    // pacer leaves a quarter of the quota's rate unused. The retry's answer, 10 before the reset
    // 5 s after it, is 11 in 5 s: 455 ms a start, 606 ms with the headroom, slower than the
    // quota's own spacing (487.5 ms) and the controller's.
    assertThat(executor.get(() -> calls.getAndIncrement() == 0 ? 429 : 200)).isEqualTo(200);
    assertThat(time.sleeper().total()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(pacer.interval()).isEqualTo(Duration.ofNanos(606_060_605));
  }

  @Test
  void aThrottleWithoutAQuotaLowersTheRateBelowTheCeiling() {
    FakeTime time = new FakeTime();
    Pacer pacer =
        Pacer.builder().adaptive().withRate(10, Duration.ofSeconds(1)).withTime(time).build();
    AtomicInteger calls = new AtomicInteger();
    RelentExecutor<Integer> executor =
        paced(
            time,
            pacer,
            (status, failure) ->
                status == 429 ? ServerHint.rateLimited(Duration.ZERO, "HTTP 429") : null);
    for (int i = 0; i < 5; i++) {
      executor.get(() -> 200);
    }
    assertThat(pacer.interval()).isEqualTo(Duration.ofMillis(100));
    assertThat(executor.get(() -> calls.getAndIncrement() == 0 ? 429 : 200)).isEqualTo(200);
    assertThat(pacer.interval()).isGreaterThan(Duration.ofMillis(100));
  }

  @Test
  void theThrottleRefusesLocallyOnceTheDownstreamRejectsMost() {
    FakeTime time = new FakeTime();
    RelentExecutor<Integer> executor =
        RelentExecutor.<Integer>builder(RetryPolicy.builder().withMaxRetries(0).build())
            .withTime(time.withRandom(() -> 0.0))
            .withThrottle(AdaptiveThrottle.ofDefaults())
            .retryIf(status -> status == 503)
            .build();
    int refused = 0;
    for (int i = 0; i < 50; i++) {
      try {
        executor.get(() -> 503);
      } catch (RelentException e) {
        if (e.reason() == RelentException.Reason.THROTTLED) {
          refused++;
          assertThat(e.attempts()).isZero();
          assertThat(e.getMessage()).startsWith("throttled before any attempt").contains("K 2");
        }
      }
    }
    // The first request finds p = 0; from the second on, every request is refused here.
    assertThat(refused).isEqualTo(49);
    assertThat(executor.counters().failuresByReason().get(RelentException.Reason.THROTTLED))
        .isEqualTo(49);
  }

  @Test
  void aQuotaHintWithNothingLeftPausesEveryone() {
    ServerHint hint = ServerHint.quota(0, Duration.ofSeconds(3), "RateLimit: remaining=0");
    assertThat(hint.pausesAll()).isTrue();
    assertThat(hint.waitTime()).isEqualTo(Duration.ofSeconds(3));
    assertThat(hint.quotaRemaining()).hasValue(0);
    ServerHint room = ServerHint.quota(4, Duration.ofSeconds(3), "RateLimit");
    assertThat(room.pausesAll()).isFalse();
    assertThat(room.waitNanos()).isZero();
    assertThat(ServerHint.retryAfter(Duration.ZERO, "x").hasQuota()).isFalse();
    assertThatThrownBy(() -> ServerHint.quota(-1, Duration.ZERO, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("remaining must be >= 0 (the requests the server still allows): -1");
  }

  @Test
  void aPolicyThatCountsMoreSpentThanThisClientStartedLeavesRoomForAnotherCaller() {
    FakeTime time = new FakeTime();
    Pacer pacer = Pacer.builder().adaptive().withTime(time).build();
    // The first answer: 2 of the policy's 10 per 5 s left, after this client's first start.
    RelentExecutor<Integer> executor =
        paced(
            time,
            pacer,
            (status, failure) ->
                ServerHint.quota(2, Duration.ofSeconds(5), "RateLimit")
                    .withPolicy(10, Duration.ofSeconds(5)));
    assertThat(executor.get(() -> 200)).isEqualTo(200);
    // After the reading's reset, three quarters of the policy's 2/s are left to this client.
    time.advance(Duration.ofSeconds(6));
    assertThat(pacer.interval()).isEqualTo(Duration.ofNanos(666_666_666));
  }

  @Test
  void aPolicyMustStateAPositiveQuotaAndWindow() {
    ServerHint hint = ServerHint.quota(4, Duration.ofSeconds(3), "RateLimit");
    assertThat(hint.policyQuota()).isEmpty();
    assertThat(hint.withPolicy(100).policyWindow()).isEmpty();
    assertThatThrownBy(() -> hint.withPolicy(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quota must be > 0 (the requests the policy allows per window): 0");
    assertThatThrownBy(() -> hint.withPolicy(10, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must be > 0 (the policy's time window): 0 ms");
  }

  @Test
  void theCallerWaitingForTheSlotSeesThePauseTheAnswerBroughtBeforeItGetsTheSlot() {
    FakeTime time = new FakeTime();
    Pacer pacer =
        Pacer.builder().adaptive().withRate(10, Duration.ofSeconds(1)).withTime(time).build();
    RelentExecutor<Integer> executor =
        RelentExecutor.<Integer>builder(RetryPolicy.ofDefaults())
            .withTime(time)
            .withPacer(pacer)
            .withConcurrencyLimit(ConcurrencyLimit.of(1))
            .retryIf(status -> status == 429)
            .withHintExtractor(
                (status, failure) ->
                    status == 429
                        ? ServerHint.rateLimited(Duration.ofSeconds(5), "Retry-After: 5")
                        : null)
            .build();
    CompletableFuture<Integer> refusal = new CompletableFuture<>();
    AtomicInteger firstCalls = new AtomicInteger();
    List<Long> secondStarts = new ArrayList<>();
    CompletableFuture<Integer> first =
        executor.getAsync(
            ctx ->
                firstCalls.getAndIncrement() == 0
                    ? refusal
                    : CompletableFuture.completedFuture(200));
    CompletableFuture<Integer> second =
        executor.getAsync(
            ctx -> {
              secondStarts.add(time.ticker().read());
              return CompletableFuture.completedFuture(200);
            });
    assertThat(secondStarts).isEmpty(); // waiting for the slot
    // The 429 comes a second later, when the pacer would let the next start go at once; it asks
    // for 5 s from the attempt.
    time.scheduler().advance(Duration.ofSeconds(1));
    refusal.complete(429);
    // The slot went to the second caller only after the 429 had paused the pacer.
    time.scheduler().advance(Duration.ofSeconds(10));
    assertThat(first).isCompletedWithValue(200);
    assertThat(second).isCompletedWithValue(200);
    assertThat(secondStarts)
        .singleElement()
        .satisfies(at -> assertThat(at).isGreaterThanOrEqualTo(5_000_000_000L));
  }
}
