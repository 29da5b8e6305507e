package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.sim.PacedQueue.Scenario;
import dev.relent.sim.PacedQueue.Strategy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The load-control targets, on the simulator's seeded figures (virtual time: exact numbers, no
 * timing): the queue with the limit unknown, the storm with the recommended guards, and the choice
 * of the adaptive pacer's default controller.
 */
class LoadControlTargetsTest {
  private static PacedQueue.Result queue;

  @BeforeAll
  static void runOnce() {
    queue = PacedQueue.builder().withSeed(1).withTrials(3).build().run();
  }

  @Test
  void theAdaptivePacerFinishesTheQueueNearThePhysicalLimitWithoutKnowingIt() {
    PacedQueue.Row row = queue.row(Strategy.RELENT_ADAPTIVE, Scenario.ALONE);
    assertThat(row.timeSeconds()).isLessThanOrEqualTo(1.05 * Scenario.ALONE.limitSeconds());
    assertThat(row.throttled()).isLessThanOrEqualTo(0.01 * PacedQueue.REQUESTS);
    // Sharing the account it stays near its own physical limit (600 at 100/min): 1.16x, since a
    // pause counts from the answer that asked for it (the server's Retry-After is the delay after
    // its response), each one the answer's latency longer than when it counted from the attempt's
    // start (1.12x then; 416.8 s now).
    PacedQueue.Row shared = queue.row(Strategy.RELENT_ADAPTIVE, Scenario.SHARED);
    assertThat(shared.timeSeconds()).isLessThanOrEqualTo(1.16 * Scenario.SHARED.limitSeconds());
    // And it leaves the other caller room once it has seen it: about a tenth of its requests
    // refused, where pacing at the advertised limit refuses most of them.
    assertThat(shared.otherThrottled()).isLessThanOrEqualTo(0.15 * shared.otherRequests());
    assertThat(queue.row(Strategy.RELENT_KNOWN, Scenario.SHARED).otherThrottled())
        .isGreaterThan(0.5 * shared.otherRequests());
  }

  @Test
  void aBurstAsLargeAsTheBucketFindsItShortUnderAnyPacerThatUsesMostOfTheAccount() {
    // The other caller's 10 at once need all 10 tokens. A client taking one every 667 ms (90/min,
    // the operating target) leaves the bucket full only in the last 167 ms of each 667 (it refills
    // a token in 500 ms): at a moment not tied to the client's schedule, three bursts in four find
    // a token missing. So even fixed-90 leaves the other caller several per cent refused: a
    // target of 1 % is out of reach for a client that uses three quarters of the account.
    PacedQueue.Row fixed = queue.row(Strategy.FIXED_90, Scenario.SHARED);
    assertThat(fixed.otherThrottled()).isGreaterThan(0.03 * fixed.otherRequests());
  }

  @Test
  void theAdaptivePacerFinishesUnderAStrictLimiterItKnowsNothingAboutWithinATenthOfTheLimit() {
    // Burst 0 and Retry-After: 1, no headers: the rate comes from the 429s alone. (The 429s, 13
    // of 600, are pinned in PacedQueueTest; the target of 2 % is not reached yet.)
    PacedQueue.Row strict = queue.row(Strategy.RELENT_ADAPTIVE, Scenario.STRICT);
    assertThat(strict.timeSeconds()).isLessThanOrEqualTo(1.10 * Scenario.STRICT.limitSeconds());
  }

  @Test
  void aimdIsTheDefaultBecauseItPaysFewer429sThanCubicAndTheAwsMode() {
    for (Scenario scenario : Scenario.values()) {
      double aimd = queue.row(Strategy.RELENT_AIMD, scenario).throttled();
      assertThat(aimd)
          .as(scenario.label())
          .isLessThan(queue.row(Strategy.RELENT_CUBIC, scenario).throttled())
          .isLessThan(queue.row(Strategy.AWS_ADAPTIVE, scenario).throttled());
    }
    // Against the strict limiter, faster than every reference that learns the limit.
    double strict = queue.row(Strategy.RELENT_ADAPTIVE, Scenario.STRICT).timeSeconds();
    assertThat(strict)
        .isLessThan(queue.row(Strategy.AIMD, Scenario.STRICT).timeSeconds())
        .isLessThan(queue.row(Strategy.AWS_ADAPTIVE, Scenario.STRICT).timeSeconds());
  }

  @Test
  void aQuickBreakerWithTheBudgetHoldsTheStormNearNormalLoadAndLosesLittleMore() {
    Storm.Result storm = Storm.builder().withSeed(1).withTrials(3).build().run();
    Storm.Row quick = storm.row(Storm.Strategy.FULL_BUDGET_QUICK_BREAKER);
    assertThat(quick.amplification()).isLessThanOrEqualTo(1.10);
    // 1.06x: a breaker that counts calls opens as the stall's calls give up, a little later than
    // one that counted their first failed attempts did (1.03x).
    assertThat(quick.failed()).isLessThanOrEqualTo(1.07 * quick.stallRequests());
    // It beats the other guards on failures at no more load: the documented recommendation.
    Storm.Row breaker = storm.row(Storm.Strategy.FULL_BUDGET_BREAKER);
    Storm.Row throttle = storm.row(Storm.Strategy.FULL_BUDGET_THROTTLE);
    assertThat(quick.failed()).isLessThan(breaker.failed()).isLessThan(throttle.failed());
    assertThat(quick.amplification()).isLessThan(throttle.amplification());
  }

  @Test
  void theStudysDecorrelatedFormulaAgreesWithRelentsUntilTheCap() {
    Contention.Result r =
        Contention.builder().withSeed(1).withTrials(20).withClients(10, 50).build().run();
    for (int n : r.clients()) {
      Contention.Row aws = r.row(Contention.Strategy.AWS_DECORRELATED, n);
      Contention.Row relent = r.row(Contention.Strategy.DECORRELATED, n);
      assertThat(aws.calls())
          .as("N %d", n)
          .isCloseTo(relent.calls(), org.assertj.core.data.Percentage.withPercentage(5));
    }
    // The study's form turns every draw above the cap into exactly the cap.
    assertThat(Contention.studySleep(Contention.Strategy.AWS_DECORRELATED, 9, 1500_000_000L, 0.9))
        .isEqualTo(Contention.CAP.toNanos());
  }
}
