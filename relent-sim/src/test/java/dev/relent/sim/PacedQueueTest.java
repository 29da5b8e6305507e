package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.sim.PacedQueue.Scenario;
import dev.relent.sim.PacedQueue.Strategy;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PacedQueueTest {
  private static PacedQueue.Result result;

  @BeforeAll
  static void runOnce() {
    result = PacedQueue.builder().withSeed(1).withTrials(3).build().run();
  }

  @Test
  void everyRequestSucceedsOnceAndEveryAttemptIsAccountedFor() {
    for (Strategy strategy : Strategy.values()) {
      for (Scenario scenario : Scenario.values()) {
        PacedQueue.Trial t = PacedQueue.trial(strategy, scenario, 31 + strategy.ordinal());
        String name = strategy + " " + scenario;
        assertThat(t.succeeded()).as(name).isEqualTo(PacedQueue.REQUESTS);
        assertThat(t.failed()).as(name).isZero();
        assertThat(t.accepted()).as(name).isEqualTo(PacedQueue.REQUESTS);
        assertThat(t.attempts()).as(name).isEqualTo(PacedQueue.REQUESTS + t.throttled());
        assertThat(Arrays.stream(t.donePerStep()).sum()).as(name).isEqualTo(t.succeeded());
        assertThat(Arrays.stream(t.throttledPerStep()).sum()).as(name).isEqualTo(t.throttled());
        // Nobody beats the bucket: 10 tokens at t = 0, then one every 500 ms, then >= 1 s.
        assertThat(t.completionNanos())
            .as(name)
            .isGreaterThanOrEqualTo((t.accepted() - PacedQueue.BUCKET) * 500_000_000L);
      }
    }
  }

  @Test
  void theWorkedExampleComesOut() {
    assertThat(PacedQueue.PHYSICAL_LIMIT_SECONDS).isEqualTo(300);
    PacedQueue.Row fixed = result.row(Strategy.FIXED_90, Scenario.ALONE);
    // 600 starts at 90/min: the last at 599 * 666.67 ms = 399.3 s, answered 1 to 3 s later.
    assertThat(fixed.timeSeconds()).isBetween(400.3, 402.4);
    assertThat(fixed.throttled()).isZero();
    assertThat(fixed.attempts()).isEqualTo(600);
    // 1.5/s x 2 s = 3 on average; never many more.
    assertThat(fixed.peakConcurrency()).isBetween(3.0, 6.0);
    PacedQueue.Row burst = result.row(Strategy.BURST, Scenario.ALONE);
    assertThat(burst.throttled()).isGreaterThan(1000);
    assertThat(burst.peakConcurrency()).isEqualTo(600);
    PacedQueue.Row known = result.row(Strategy.RELENT_KNOWN, Scenario.ALONE);
    assertThat(known.timeSeconds()).isBetween(295.0, 310.0);
    assertThat(known.throttled()).isZero();
    for (PacedQueue.Row row : result.rows()) {
      assertThat(row.timeSeconds()).as(row.strategy().label()).isGreaterThan(295);
      assertThat(row.failed()).as(row.strategy().label()).isZero();
    }
  }

  @Test
  void theCsvHasItsHeaderAndIsTheSameForTheSameSeed() {
    String again = PacedQueue.builder().withSeed(1).withTrials(3).build().run().csv();
    assertThat(again).isEqualTo(result.csv());
    String[] lines = result.csv().split("\n");
    assertThat(lines[0])
        .isEqualTo(
            "strategy,scenario,time_s,limit_s,throttled,peak_concurrency,attempts,failed,"
                + "other_throttled,other_requests");
    assertThat(lines).hasSize(1 + Scenario.values().length * Strategy.values().length);
    assertThat(lines[2]).startsWith("fixed-90,alone,").contains(",300,0.0,");
    String other = PacedQueue.builder().withSeed(2).withTrials(3).build().run().csv();
    assertThat(other).isNotEqualTo(result.csv());
  }

  @Test
  void theCsvOfASeedIsTheseBytes() {
    // Pinned: a change to the model, the executor or the writers that moves a number shows here.
    assertThat(result.csv())
        .isEqualTo(
            ""
                + "strategy,scenario,time_s,limit_s,throttled,peak_concurrency,attempts,failed,other_throttled,other_requests\n"
                + "burst,alone,309.13,300,8579.3,600.0,9179.3,0.0,0.0,0.0\n"
                + "fixed-90,alone,401.64,300,0.0,5.0,600.0,0.0,0.0,0.0\n"
                + "relent-known,alone,301.81,300,0.0,6.0,600.0,0.0,0.0,0.0\n"
                + "relent-unknown,alone,304.92,300,539.7,8.0,1139.7,0.0,0.0,0.0\n"
                + "aimd,alone,312.86,300,6.0,7.7,606.0,0.0,0.0,0.0\n"
                + "aws-adaptive,alone,297.65,300,107.3,8.0,707.3,0.0,0.0,0.0\n"
                + "relent-cubic,alone,298.24,300,79.7,8.0,679.7,0.0,0.0,0.0\n"
                + "relent-aimd,alone,300.34,300,10.0,8.0,610.0,0.0,0.0,0.0\n"
                + "relent-adaptive,alone,302.88,300,0.0,8.0,600.0,0.0,0.0,0.0\n"
                + "burst,shared,314.20,360,8828.0,600.0,9428.0,0.0,91.7,110.0\n"
                + "fixed-90,shared,404.31,360,4.0,5.0,604.0,0.0,10.0,140.0\n"
                + "relent-known,shared,302.31,360,1.0,6.0,601.0,0.0,99.3,110.0\n"
                + "relent-unknown,shared,313.94,360,566.3,7.3,1166.3,0.0,95.3,110.0\n"
                + "aimd,shared,489.72,360,10.7,6.7,610.7,0.0,22.7,166.7\n"
                + "aws-adaptive,shared,307.42,360,113.3,8.0,713.3,0.0,91.0,110.0\n"
                + "relent-cubic,shared,310.85,360,85.3,8.0,685.3,0.0,87.0,110.0\n"
                + "relent-aimd,shared,329.59,360,19.7,8.0,619.7,0.0,53.0,116.7\n"
                + "relent-adaptive,shared,416.84,360,13.7,8.0,613.7,0.0,14.0,146.7\n"
                + "burst,strict,382.20,300,9431.7,600.0,10031.7,0.0,0.0,0.0\n"
                + "fixed-90,strict,401.64,300,0.0,5.0,600.0,0.0,0.0,0.0\n"
                + "relent-known,strict,301.81,300,0.0,6.0,600.0,0.0,0.0,0.0\n"
                + "relent-unknown,strict,408.61,300,998.0,6.0,1598.0,0.0,0.0,0.0\n"
                + "aimd,strict,422.40,300,9.0,6.0,609.0,0.0,0.0,0.0\n"
                + "aws-adaptive,strict,453.05,300,191.3,8.0,791.3,0.0,0.0,0.0\n"
                + "relent-cubic,strict,745.57,300,170.3,8.0,770.3,0.0,0.0,0.0\n"
                + "relent-aimd,strict,319.12,300,12.0,8.0,612.0,0.0,0.0,0.0\n"
                + "relent-adaptive,strict,319.12,300,12.0,8.0,612.0,0.0,0.0,0.0\n");
  }

  @Test
  void theTableStatesThePhysicalLimit() {
    assertThat(result.table())
        .contains("physical limit: 600 at 120/min = 300 s")
        .containsPattern("fixed-90\\s+alone\\s+40[0-2]\\.\\d\\s+1\\.3[34]×\\s+0\\.0");
  }

  @Test
  void theBuilderRejectsZeroTrials() {
    assertThatThrownBy(() -> PacedQueue.builder().withTrials(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trials must be between 1 and 100000: -1");
  }
}
