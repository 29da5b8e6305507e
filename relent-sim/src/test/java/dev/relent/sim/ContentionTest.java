package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.sim.Contention.Strategy;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ContentionTest {
  private static final long MS = 1_000_000L;

  @Test
  void everyStudyTrialEndsWithExactlyOneSuccessPerClient() {
    SplittableRandom seeds = new SplittableRandom(11);
    List<Strategy> study =
        List.of(
            Strategy.NONE,
            Strategy.EXPONENTIAL,
            Strategy.FULL,
            Strategy.EQUAL,
            Strategy.DECORRELATED,
            Strategy.AWS_DECORRELATED);
    for (Strategy strategy : Strategy.values()) {
      assertThat(strategy.study()).as(strategy.label()).isEqualTo(study.contains(strategy));
    }
    for (Strategy strategy : study) {
      for (int i = 0; i < 40; i++) {
        int n = 1 + seeds.nextInt(120);
        Contention.Trial t = Contention.studyTrial(strategy, n, seeds.nextLong());
        assertThat(t.successes()).as("successes, strategy %s, N %d", strategy, n).isEqualTo(n);
        assertThat(t.calls() - t.failures()).isEqualTo(n);
        assertThat(t.gaveUp()).isZero();
        // Every client needs one READ and one WRITE, each at least a few ms.
        assertThat(t.completionNanos()).isPositive();
      }
    }
  }

  @Test
  void relentTrialsAccountForEveryClient() {
    SplittableRandom seeds = new SplittableRandom(12);
    for (boolean budget : new boolean[] {false, true}) {
      for (int i = 0; i < 15; i++) {
        int n = 1 + seeds.nextInt(150);
        Contention.Trial t = Contention.relentTrial(budget, n, seeds.nextLong());
        assertThat(t.successes() + t.gaveUp()).as("budget %s, N %d", budget, n).isEqualTo(n);
        assertThat(t.calls() - t.failures()).isEqualTo(t.successes());
        // At most 6 attempts per client: the default policy allows 5 retries.
        assertThat(t.calls()).isBetween((long) n, 6L * n);
      }
    }
  }

  @Test
  void theStudysRetryNIsRelentsRetryNPlusOne() {
    // expo(n) = min(cap, base * 2^n) with the first retry at n = 1: 10, 20, 40 ... 1280, 2000 ms.
    long[] expected = {10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000};
    for (int n = 1; n <= expected.length; n++) {
      assertThat(Contention.studySleep(Strategy.EXPONENTIAL, n, 5 * MS, 0.3))
          .isEqualTo(expected[n - 1] * MS);
      // Full jitter: U(0, expo(n)); the top draw reaches the window exactly.
      assertThat(Contention.studySleep(Strategy.FULL, n, 5 * MS, 1.0))
          .isEqualTo(expected[n - 1] * MS);
      assertThat(Contention.studySleep(Strategy.FULL, n, 5 * MS, 0.0)).isZero();
      // Equal jitter: expo(n)/2 + U(0, expo(n)/2).
      assertThat(Contention.studySleep(Strategy.EQUAL, n, 5 * MS, 0.0))
          .isEqualTo(expected[n - 1] * MS / 2);
    }
    assertThat(Contention.studySleep(Strategy.NONE, 7, 5 * MS, 0.5)).isZero();
    // Decorrelated starts from s = base: U(5, 15) ms; then U(base, min(cap, 3 * s)).
    assertThat(Contention.studySleep(Strategy.DECORRELATED, 1, 5 * MS, 0.0)).isEqualTo(5 * MS);
    assertThat(Contention.studySleep(Strategy.DECORRELATED, 1, 5 * MS, 1.0)).isEqualTo(15 * MS);
    assertThat(Contention.studySleep(Strategy.DECORRELATED, 2, 12 * MS, 1.0)).isEqualTo(36 * MS);
    assertThat(Contention.studySleep(Strategy.DECORRELATED, 9, 1500 * MS, 0.5))
        .isEqualTo(5 * MS + 997_500_000L);
  }

  @Test
  void theCsvHasTheExactHeaderAndOneLinePerStrategyAndClientCount() {
    Contention.Result r =
        Contention.builder().withSeed(3).withTrials(2).withClients(10, 20).build().run();
    String[] lines = r.csv().split("\n", -1);
    assertThat(lines[0]).isEqualTo("strategy,clients,calls,time_ms");
    assertThat(lines).hasSize(1 + 8 * 2 + 1);
    assertThat(lines[lines.length - 1]).isEmpty();
    assertThat(lines[1]).matches("none,10,\\d+\\.\\d\\d,\\d+\\.\\d\\d");
    assertThat(lines[16]).startsWith("relent-budget,20,");
    assertThat(Strategy.values())
        .extracting(Strategy::label)
        .containsExactly(
            "none",
            "exponential",
            "full",
            "equal",
            "decorrelated",
            "aws-decorrelated",
            "relent-default",
            "relent-budget");
  }

  @Test
  void theCsvOfASeedIsTheseBytes() {
    // Pinned: a change to the model, the backoff or the writers that moves a number shows here.
    assertThat(
            Contention.builder().withSeed(3).withTrials(2).withClients(10, 20).build().run().csv())
        .isEqualTo(
            "strategy,clients,calls,time_ms\n"
                + "none,10,49.50,341.37\n"
                + "none,20,151.50,590.32\n"
                + "exponential,10,49.50,2254.10\n"
                + "exponential,20,141.50,12102.11\n"
                + "full,10,38.50,378.32\n"
                + "full,20,100.00,839.09\n"
                + "equal,10,43.00,718.21\n"
                + "equal,20,110.00,1955.99\n"
                + "decorrelated,10,42.00,407.95\n"
                + "decorrelated,20,100.50,752.46\n"
                + "aws-decorrelated,10,42.00,407.95\n"
                + "aws-decorrelated,20,100.50,752.46\n"
                + "relent-default,10,21.50,889.40\n"
                + "relent-default,20,50.50,1783.13\n"
                + "relent-budget,10,21.50,889.40\n"
                + "relent-budget,20,50.50,1783.13\n");
  }

  @Test
  void theSameSeedGivesTheSameBytesAndAnotherSeedDoesNot() {
    String a =
        Contention.builder().withSeed(42).withTrials(3).withClients(10, 50).build().run().csv();
    String b =
        Contention.builder().withSeed(42).withTrials(3).withClients(10, 50).build().run().csv();
    String c =
        Contention.builder().withSeed(43).withTrials(3).withClients(10, 50).build().run().csv();
    assertThat(a).isEqualTo(b);
    assertThat(c).isNotEqualTo(a);
  }

  @Test
  void fullJitterUsesFarFewerCallsThanExponentialWithoutJitter() {
    Contention.Result r =
        Contention.builder().withSeed(1).withTrials(20).withClients(100).build().run();
    double expo = r.row(Strategy.EXPONENTIAL, 100).calls();
    // The study: full jitter less than half the calls of no jitter (here about 0.43).
    assertThat(r.row(Strategy.FULL, 100).calls()).isLessThan(0.6 * expo);
    for (Strategy s : List.of(Strategy.FULL, Strategy.EQUAL, Strategy.DECORRELATED)) {
      assertThat(r.row(s, 100).calls()).as(s.label()).isLessThan(0.8 * expo);
    }
    // Without jitter the clients stay in lock step: by far the slowest to finish.
    double expoTime = r.row(Strategy.EXPONENTIAL, 100).timeMs();
    for (Strategy s : Strategy.values()) {
      if (s != Strategy.EXPONENTIAL) {
        assertThat(r.row(s, 100).timeMs()).as(s.label()).isLessThan(0.5 * expoTime);
      }
    }
    // Every client writes once: the calls are at least N for every strategy.
    for (Strategy s : Strategy.values()) {
      assertThat(r.row(s, 100).calls()).as(s.label()).isGreaterThanOrEqualTo(100);
    }
  }

  @Test
  void theTableShowsTheRatiosToExponential() {
    Contention.Result r =
        Contention.builder().withSeed(1).withTrials(2).withClients(10, 100).build().run();
    assertThat(r.table())
        .contains("at N = 100, relative to exponential backoff without jitter:")
        .containsPattern("strategy\\s+calls\\s+calls/expo\\s+time_ms\\s+time/expo")
        .containsPattern("exponential\\s+\\d+\\s+1\\.00\\s+\\d+\\s+1\\.000");
  }

  @Test
  void theBuilderRejectsWhatCannotRun() {
    assertThatThrownBy(() -> Contention.builder().withTrials(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trials must be between 1 and 100000: 0");
    assertThatThrownBy(() -> Contention.builder().withClients())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("clients must not be empty");
    assertThatThrownBy(() -> Contention.builder().withClients(10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("clients must be between 1 and 100000: 0 clients");
    assertThatThrownBy(() -> Contention.builder().withClients(20, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("clients must be strictly ascending: 20 then 10");
    assertThatThrownBy(
            () ->
                Contention.builder()
                    .withTrials(1)
                    .withClients(10)
                    .build()
                    .run()
                    .row(Strategy.FULL, 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no row for full at 20 clients");
  }
}
