package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.sim.Storm.Strategy;
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
    for (Strategy strategy : Strategy.values()) {
      Storm.Trial t = Storm.trial(strategy, 99 + strategy.ordinal());
      String name = strategy.label();
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
    Storm.Row naive = result.row(Strategy.NAIVE);
    Storm.Row full = result.row(Strategy.FULL);
    Storm.Row budget = result.row(Strategy.FULL_BUDGET);
    Storm.Row breaker = result.row(Strategy.FULL_BUDGET_BREAKER);
    // 3 immediate retries: 4 attempts per request while the service fails everything.
    assertThat(naive.amplification()).isBetween(3.5, 4.5);
    // Backoff carries requests across a 5 s stall; immediate retries cannot.
    assertThat(full.failed()).isLessThan(naive.failed() / 2);
    assertThat(result.row(Strategy.BACKOFF).failed()).isLessThan(naive.failed() / 2);
    // The budget bounds the extra load to its 10 % plus the floor.
    assertThat(budget.amplification()).isLessThan(2.0);
    assertThat(budget.extraCalls()).isLessThan(0.1 * budget.requests() + 10 * 25 + 100);
    // The breaker stops calling the stalled service. It counts calls, so it hears of the stall as
    // calls give up, not at their first failed attempt: a few hundred retries go through first.
    assertThat(breaker.extraCalls()).isLessThan(300);
    assertThat(breaker.amplification()).isLessThan(1.2);
    assertThat(breaker.recoverySeconds()).isLessThanOrEqualTo(Storm.BREAKER_OPEN_SECONDS + 1);
  }

  @Test
  void theCsvHasItsHeaderAndIsTheSameForTheSameSeed() {
    String again = Storm.builder().withSeed(5).withTrials(1).build().run().csv();
    assertThat(again).isEqualTo(result.csv());
    String[] lines = result.csv().split("\n");
    assertThat(lines[0])
        .isEqualTo(
            "strategy,amplification,extra_calls,recovery_s,failed,stall_requests,attempts,"
                + "requests");
    assertThat(lines).hasSize(1 + Strategy.values().length);
    assertThat(lines[1]).startsWith("naive,");
    assertThat(lines[5]).startsWith("full+budget+breaker,");
  }

  @Test
  void theCsvAndTheTableOfASeedAreTheseBytes() {
    // Pinned: a change to the model, the executor or the writers that moves a number shows here.
    assertThat(result.csv())
        .isEqualTo(
            ""
                + "strategy,amplification,extra_calls,recovery_s,failed,stall_requests,attempts,requests\n"
                + "naive,3.999,14805.0,0.00,4914.0,4940.0,39723.0,24918.0\n"
                + "backoff,3.896,23129.0,14.00,120.0,4940.0,48047.0,24918.0\n"
                + "full,4.659,26488.0,10.00,1038.0,4940.0,51406.0,24918.0\n"
                + "full+budget,1.613,1107.0,0.00,4920.0,4940.0,26025.0,24918.0\n"
                + "full+budget+breaker,1.124,246.0,2.00,6454.0,4940.0,19195.0,24918.0\n"
                + "full+budget+throttle,1.580,1005.0,3.00,5716.0,4940.0,24964.0,24918.0\n"
                + "full+budget+quick-breaker,1.125,253.0,1.00,5247.0,4940.0,20455.0,24918.0\n");
    assertThat(result.table())
        .endsWith(
            "\n\n"
                + "strategy                   peak load / normal  extra calls  recovery (s)  failed requests  arrived in the stall  failed / stall  attempts  requests\n"
                + "naive                                    4.00        14805           0.0             4914                  4940           0.99×     39723     24918\n"
                + "backoff                                  3.90        23129          14.0              120                  4940           0.02×     48047     24918\n"
                + "full                                     4.66        26488          10.0             1038                  4940           0.21×     51406     24918\n"
                + "full+budget                              1.61         1107           0.0             4920                  4940           1.00×     26025     24918\n"
                + "full+budget+breaker                      1.12          246           2.0             6454                  4940           1.31×     19195     24918\n"
                + "full+budget+throttle                     1.58         1005           3.0             5716                  4940           1.16×     24964     24918\n"
                + "full+budget+quick-breaker                1.13          253           1.0             5247                  4940           1.06×     20455     24918\n");
  }

  @Test
  void theTableAndTheReportNameEveryStrategy() {
    assertThat(result.table()).startsWith("Retry storm: 1000 requests/s, capacity 1500/s");
    for (Strategy s : Strategy.values()) {
      assertThat(result.table()).contains(s.label());
      assertThat(result.html()).contains("data-series=\"" + s.label() + "\"");
    }
  }

  @Test
  void theBuilderRejectsZeroTrials() {
    assertThatThrownBy(() -> Storm.builder().withTrials(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trials must be between 1 and 100000: 0");
  }
}
