package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class StormTest {
  private static Storm.Result result;

  @BeforeAll
  static void runOnce() {
    result = Storm.builder().withSeed(5).withTrials(1).build().run();
  }

  @Test
  void everyRequestAndEveryAttemptIsAccountedFor() {
    for (int strategy = 0; strategy < Storm.STRATEGIES.size(); strategy++) {
      Storm.Trial t = Storm.trial(strategy, 99 + strategy);
      String name = Storm.STRATEGIES.get(strategy);
      assertThat(t.succeeded() + t.failed()).as(name).isEqualTo(t.requests());
      assertThat(t.served() + t.shed() + t.stalled()).as(name).isEqualTo(t.attempts());
      assertThat(t.counters().firstAttempts() + t.counters().retries())
          .as(name)
          .isEqualTo(t.attempts());
      assertThat(t.counters().successes()).as(name).isEqualTo(t.succeeded());
      assertThat(t.counters().failures()).as(name).isEqualTo(t.failed());
      assertThat(t.served()).as(name).isEqualTo(t.succeeded());
      assertThat(Arrays.stream(t.attemptsPerBin()).sum()).as(name).isEqualTo(t.attempts());
      // About 1000 per second for 25 s.
      assertThat(t.requests()).as(name).isBetween(24_000L, 26_000L);
    }
  }

  @Test
  void theStrategiesDifferAsTheyShould() {
    Storm.Row naive = result.row("naive");
    Storm.Row full = result.row("full");
    Storm.Row budget = result.row("full+budget");
    Storm.Row breaker = result.row("full+budget+breaker");
    // 3 immediate retries: 4 attempts per request while the service fails everything.
    assertThat(naive.amplification()).isBetween(3.5, 4.5);
    // Backoff carries requests across a 5 s stall; immediate retries cannot.
    assertThat(full.failed()).isLessThan(naive.failed() / 2);
    assertThat(result.row("backoff").failed()).isLessThan(naive.failed() / 2);
    // The budget bounds the extra load to its 10 % plus the floor.
    assertThat(budget.amplification()).isLessThan(2.0);
    assertThat(budget.extraCalls()).isLessThan(0.1 * budget.requests() + 10 * 25 + 100);
    // The breaker stops calling the stalled service.
    assertThat(breaker.extraCalls()).isLessThan(100);
    assertThat(breaker.amplification()).isLessThan(1.2);
    assertThat(breaker.recoverySeconds()).isLessThanOrEqualTo(Storm.BREAKER_OPEN_SECONDS + 1);
  }

  @Test
  void theCsvHasItsHeaderAndIsTheSameForTheSameSeed() {
    String again = Storm.builder().withSeed(5).withTrials(1).build().run().csv();
    assertThat(again).isEqualTo(result.csv());
    String[] lines = result.csv().split("\n");
    assertThat(lines[0])
        .isEqualTo("strategy,amplification,extra_calls,recovery_s,failed,attempts,requests");
    assertThat(lines).hasSize(1 + Storm.STRATEGIES.size());
    assertThat(lines[1]).startsWith("naive,");
    assertThat(lines[5]).startsWith("full+budget+breaker,");
  }

  @Test
  void theTableAndTheReportNameEveryStrategy() {
    assertThat(result.table()).startsWith("Retry storm: 1000 requests/s, capacity 1500/s");
    for (String s : Storm.STRATEGIES) {
      assertThat(result.table()).contains(s);
      assertThat(result.html()).contains("data-series=\"" + s + "\"");
    }
  }

  @Test
  void theBuilderRejectsZeroTrials() {
    assertThatThrownBy(() -> Storm.builder().withTrials(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trials must be between 1 and 100000: 0");
  }
}
