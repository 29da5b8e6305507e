package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.ServerHint;
import dev.relent.sim.Limiter.Answer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The limiter models' semantics, the batch's hints, the shared store, and the model as a whole. */
class LimitersTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;

  /** How many of requests every {@code stepMs} from 0 to {@code untilMs} (exclusive) pass. */
  private static int accepted(Limiter limiter, long stepMs, long untilMs) {
    int n = 0;
    for (long t = 0; t < untilMs; t += stepMs) {
      n += limiter.decide(t * MS).accepted() ? 1 : 0;
    }
    return n;
  }

  @Test
  void nginxBurst0At10PerSecondAcceptsExactlyOneEvery100Ms() {
    assertThat(accepted(new Limiter.TokenBucket(10, 0, false), 10, 1000)).isEqualTo(10);
    assertThat(accepted(new Limiter.TokenBucket(10, 0, false), 1, 10_000)).isEqualTo(100);

    Limiter bucket = new Limiter.TokenBucket(10, 0, false);
    assertThat(bucket.decide(0).accepted()).isTrue();
    // 99 ms after the last accepted one is too early, and a refusal changes nothing.
    assertThat(bucket.decide(99 * MS)).isEqualTo(Answer.REFUSED);
    assertThat(bucket.decide(100 * MS).accepted()).isTrue();
    // Whole milliseconds: 199.9 ms is 199.
    assertThat(bucket.decide(199_900_000L).accepted()).isFalse();
    assertThat(bucket.decide(200 * MS).accepted()).isTrue();
  }

  @Test
  void nginxBurst0WithRetryAfterSaysOneSecond() {
    Limiter bucket = new Limiter.TokenBucket(10, 0, true);
    bucket.decide(0);
    assertThat(bucket.decide(MS)).isEqualTo(Answer.REFUSED_RETRY_AFTER_1);
    assertThat(BatchClient.hint(Answer.REFUSED_RETRY_AFTER_1).waitTime())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void nginxBurst20NodelayLets21ThroughAtOnceThenOneEvery100Ms() {
    Limiter bucket = new Limiter.TokenBucket(10, 20, false);
    int atOnce = 0;
    for (int i = 0; i < 30; i++) {
      atOnce += bucket.decide(0).accepted() ? 1 : 0;
    }
    assertThat(atOnce).isEqualTo(21);
    assertThat(bucket.decide(99 * MS).accepted()).isFalse();
    assertThat(bucket.decide(100 * MS).accepted()).isTrue();
    // Idle for 3 s, the bucket is empty again: 21 at once.
    int again = 0;
    for (int i = 0; i < 30; i++) {
      again += bucket.decide(3100 * MS).accepted() ? 1 : 0;
    }
    assertThat(again).isEqualTo(21);
  }

  @Test
  void haproxysCounterWeighsThePreviousPeriodByWhatIsLeftOfTheCurrentOne() {
    Limiter.SlidingCounter c = new Limiter.SlidingCounter(100, 10_000);
    int passed = 0;
    for (int i = 0; i < 101; i++) {
      passed += c.decide(0).accepted() ? 1 : 0;
    }
    // 100 pass; the 101st is counted and refused.
    assertThat(passed).isEqualTo(100);
    assertThat(c.rate(0)).isEqualTo(101);
    // At 10 s the second period opens: the first one's 101 weigh fully.
    assertThat(c.rate(10_000)).isEqualTo(101);
    // At 15 s, half of them: 50.
    assertThat(c.rate(15_000)).isEqualTo(50);
    Answer at15 = c.decide(15_000 * MS);
    assertThat(at15.accepted()).isTrue();
    assertThat(c.rate(15_000)).isEqualTo(51);
    // At 19.9 s, 101 x 0.1 / 10 = 1 of them, plus the one of this period.
    assertThat(c.rate(19_900)).isEqualTo(2);
    // A whole period without a request: nothing is left of the first.
    assertThat(c.rate(30_000)).isEqualTo(0);
    c.decide(35_000 * MS);
    assertThat(c.rate(35_000)).isEqualTo(1);
  }

  @Test
  void haproxysCounterCountsTheRefusedSoAClientThatKeepsSendingIsRefusedForGood() {
    // A request every 10 ms for 25 s: the first 100 pass; every later one is counted too, so each
    // period holds 1000 and the estimate never falls to 100.
    assertThat(accepted(new Limiter.SlidingCounter(100, 10_000), 10, 25_000)).isEqualTo(100);
    // One every 200 ms (5 a second, half the limit) always passes.
    assertThat(accepted(new Limiter.SlidingCounter(100, 10_000), 200, 25_000)).isEqualTo(125);
  }

  @Test
  void headerLimitersFixedWindowServesItsLimitAndTellsTheResetOnEveryAnswer() {
    long epoch = Limiters.EPOCH_MS + 300;
    Limiter w = new Limiter.HeaderWindow(false, 100, 10_000, epoch);
    Answer first = w.decide(0);
    assertThat(first).isEqualTo(new Answer(200, 10, 100, 99, (epoch + 10_000 + 999) / 1000, epoch));
    for (int i = 1; i < 99; i++) {
      w.decide(i * MS);
    }
    Answer last = w.decide(99 * MS);
    assertThat(last.accepted()).isTrue();
    assertThat(last.remaining()).isZero();
    Answer refused = w.decide(5_000 * MS);
    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.retryAfterSeconds()).isEqualTo(5);
    // The window opens again at its end, at the first request after it.
    assertThat(w.decide(10_000 * MS).remaining()).isEqualTo(99);
  }

  @Test
  void headerLimitersMovingWindowFreesOneRequestAtATime() {
    Limiter w = new Limiter.HeaderWindow(true, 10, 1000, Limiters.EPOCH_MS);
    for (int i = 0; i < 10; i++) {
      assertThat(w.decide(i * 50 * MS).accepted()).isTrue();
    }
    assertThat(w.decide(999 * MS).accepted()).isFalse();
    // The oldest (at 0) leaves at 1000 ms: one more, and the next only when the second leaves.
    assertThat(w.decide(1000 * MS).accepted()).isTrue();
    assertThat(w.decide(1001 * MS).accepted()).isFalse();
    assertThat(w.decide(1050 * MS).accepted()).isTrue();
  }

  @Test
  void theBatchReadsTheHeadersAsServerHintsDoes() {
    long date = Limiters.EPOCH_MS / 1000;
    long now = Limiters.EPOCH_MS;
    // 200 with requests left: a quota until the reset, measured against the clock, and the policy.
    ServerHint quota = BatchClient.hint(new Answer(200, 7, 100, 40, date + 8, now));
    assertThat(quota.pausesAll()).isFalse();
    assertThat(quota.quotaRemaining()).hasValue(40);
    assertThat(quota.quotaReset()).contains(Duration.ofSeconds(8));
    assertThat(quota.policyQuota()).hasValue(100);
    assertThat(quota.policyWindow()).isEmpty();
    // Retry-After on a 200 is not read; remaining 0 pauses until the reset.
    ServerHint none = BatchClient.hint(new Answer(200, 3, 10, 0, date + 2, now));
    assertThat(none.pausesAll()).isTrue();
    assertThat(none.waitTime()).isEqualTo(Duration.ofSeconds(2));
    // A 429's Retry-After is the wait, with the quota beside it.
    ServerHint refused = BatchClient.hint(new Answer(429, 1, 10, 0, date + 2, now));
    assertThat(refused.waitTime()).isEqualTo(Duration.ofSeconds(1));
    assertThat(refused.source()).isEqualTo("Retry-After: 1");
    assertThat(refused.quotaRemaining()).hasValue(0);
    // A bare 429 says nothing: the backoff decides.
    ServerHint bare = BatchClient.hint(Answer.REFUSED);
    assertThat(bare.pausesAll()).isTrue();
    assertThat(bare.waitNanos()).isZero();
    assertThat(bare.hasQuota()).isFalse();
    assertThat(BatchClient.hint(Answer.OK)).isNull();
    // A reset already reached says nothing on a 200.
    assertThat(BatchClient.hint(new Answer(200, 1, 10, 4, date, now))).isNull();
    // Read against the clock, not the Date's whole second: 300 ms into it, 1.7 s are left.
    assertThat(BatchClient.hint(new Answer(200, 1, 10, 4, date + 2, now + 300)).quotaReset())
        .contains(Duration.ofMillis(1700));
  }

  @Test
  void theBatchsPolicyIsRelentCoresDefaultsWithASixtySecondDeadline() {
    var p = BatchClient.policy().config();
    assertThat(p.maxRetries()).isEqualTo(5);
    assertThat(p.deadline()).isEqualTo(Duration.ofSeconds(60));
    assertThat(p.attemptTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.backoff().base()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void aSharedPacerStateUsesTheIntervalAProcessLearnedUntilItLapses() {
    Simulation sim = new Simulation();
    SharedStore.Pacer state = new SharedStore.Pacer(sim);
    assertThat(state.isShared()).isTrue();
    assertThat(state.reserve(0, 100 * MS, 0, Long.MAX_VALUE)).isZero();
    state.shareInterval(300 * MS, S);
    // The next start is where the schedule had it; the one after it a learned interval later,
    // whatever interval the caller passes.
    assertThat(state.reserve(0, 100 * MS, 0, Long.MAX_VALUE)).isEqualTo(100 * MS);
    assertThat(state.reserve(0, 100 * MS, 0, Long.MAX_VALUE)).isEqualTo(400 * MS);
    assertThat(state.refund(400 * MS, 300 * MS)).isTrue();
    assertThat(state.refund(100 * MS, 300 * MS)).isFalse();
    state.pauseUntil(2 * S);
    assertThat(state.pausedUntil()).isEqualTo(2 * S);
    assertThat(state.reserve(0, 100 * MS, 0, 0)).isEqualTo(-2 * S);
  }

  @Test
  void sharedSlotsGoToTheFleetsOldestWaiterWokenARoundTripLater() {
    Simulation sim = new Simulation();
    SharedStore.Count count = new SharedStore.Count(1);
    SharedStore.Slots here = new SharedStore.Slots(sim, count, MS);
    SharedStore.Slots there = new SharedStore.Slots(sim, count, MS);
    assertThat(here.tryAcquireSlot()).isTrue();
    CompletableFuture<?> remote = there.acquireAsync();
    CompletableFuture<?> local = here.acquireAsync();
    assertThat(there.waiting()).isEqualTo(1);
    here.releaseSlot();
    // The other process asked first: the slot is its own, told a round trip later; the local
    // waiter waits on, and nobody takes the slot past the queue.
    assertThat(remote).isNotDone();
    assertThat(here.tryAcquireSlot()).isFalse();
    sim.run();
    assertThat(remote).isDone();
    assertThat(local).isNotDone();
    assertThat(sim.now()).isEqualTo(MS);
    there.releaseSlot();
    sim.run();
    assertThat(local).isDone();
    here.releaseSlot();
    assertThat(here.available()).isEqualTo(1);
  }

  @Test
  void theModelRunsRelentsRealPacerAndCeiling() {
    Limiters.Costs none = new Limiters.Costs(0, 0, 0, 0, 0, 0, 0, 0, MS, MS, 0, 0);
    // With --rate 570/min and no cold start, the real fixed-rate ceiling spaces every start by
    // 105.3 ms: nginx's 100 ms never refuses, and the last of 150 starts at 149 intervals.
    Limiters.Trial rate = Limiters.trial(Limiters.Case.NGINX_BURST0_RATE, none, 3);
    assertThat(rate.throttled()).isZero();
    assertThat(rate.accepted()).isEqualTo(150);
    List<long[]> log = rate.log();
    long interval = (60 * S + 569) / 570;
    for (int i = 1; i < log.size(); i++) {
      assertThat(log.get(i)[0] - log.get(i - 1)[0]).isGreaterThanOrEqualTo(interval - MS);
    }
    // Without a ceiling the four workers' first starts go at once: one passes, three are refused,
    // and the BRACKET pacer learns the rest.
    Limiters.Trial burst = Limiters.trial(Limiters.Case.NGINX_BURST0, none, 3);
    assertThat(burst.log().subList(0, 4).stream().filter(e -> e[2] == 429).count()).isEqualTo(3);
    assertThat(burst.accepted()).isEqualTo(150);
    assertThat(burst.failed()).isZero();
  }

  @Test
  void theSameSeedGivesTheSameRowsAndTheFleetSharesOneLimiter() {
    Limiters.Builder b =
        Limiters.builder()
            .withTrials(2)
            .withSeed(5)
            .withCases(List.of(Limiters.Case.WINDOW_FIXED, Limiters.Case.FLEET_NGINX_KNOWN));
    Limiters.Result one = b.build().run();
    Limiters.Result two = b.build().run();
    assertThat(one.csv()).isEqualTo(two.csv());
    assertThat(one.table()).contains("window-fixed").contains("fleet-nginx-known");
    Limiters.Row fixed = one.row(Limiters.Case.WINDOW_FIXED);
    // 250 GETs through three windows of 100: no sooner than 20 s, and no 429 (the headers pace).
    assertThat(fixed.timeSeconds()).isGreaterThan(20);
    assertThat(fixed.throttled()).isZero();
    Limiters.Trial fleet =
        Limiters.trial(Limiters.Case.FLEET_NGINX_KNOWN, Limiters.Costs.MEASURED, 11);
    assertThat(fleet.accepted()).isEqualTo(200);
    assertThat(fleet.log().stream().mapToLong(e -> e[1]).distinct().count()).isEqualTo(4);
  }

  @Test
  void theBenchsResultsAreReadAsTheMediansOfEachCase() {
    Map<String, Limiters.Measured> m =
        Limiters.Measured.parse(
            "case\trun\tseconds\tminimum\tratio\tn_200\tn_429\tshare\texit\n"
                + "nginx-burst0\t1\t20.00\t14.9\t1.3\t150\t4\t0.026\t0\n"
                + "nginx-burst0\t2\t30.00\t14.9\t2.0\t150\t8\t0.050\t0\n"
                + "nginx-burst0\t3\t22.00\t14.9\t1.5\t150\t5\t0.032\t0\n");
    assertThat(m.get("nginx-burst0")).isEqualTo(new Limiters.Measured(3, 22.0, 0.032, 5));
    // The bench's newer files add the fixed costs (start_s, exit_s) after the nine columns.
    assertThat(
            Limiters.Measured.parse(
                "case\trun\tseconds\tminimum\tratio\tn_200\tn_429\tshare\texit\tstart_s\texit_s\n"
                    + "window-fixed\t1\t23.00\t20.0\t1.15\t250\t0\t0.000000\t0\t0.89\t0.40\n"))
        .containsEntry("window-fixed", new Limiters.Measured(1, 23.0, 0.0, 0));
    assertThatThrownBy(() -> Limiters.Measured.parse("x\t1\t2\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("9 columns");
    assertThat(Limiters.Case.of("haproxy-sliding").minimumSeconds()).isEqualTo(15.0);
    assertThat(Limiters.Case.of("window-moving").minimumSeconds()).isEqualTo(14.0);
    assertThat(Limiters.Case.of("fleet-nginx-known").minimumSeconds()).isEqualTo(19.9);
  }
}
