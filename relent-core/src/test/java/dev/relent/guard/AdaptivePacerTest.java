package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.PacerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdaptivePacerTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long NO_LIMIT = Long.MAX_VALUE;

  @Test
  void withoutACeilingItDoesNotPaceUntilTheServerSaysSomething() {
    Pacer pacer = Pacer.adaptive();
    assertThat(pacer.isAdaptive()).isTrue();
    assertThat(pacer.holdsReservedStarts()).isTrue();
    for (int i = 0; i < 100; i++) {
      assertThat(pacer.tryAcquire(0, NO_LIMIT)).isLessThan(100);
    }
  }

  @Test
  void aQuotaGivesTheRateBeforeAnyThrottle() {
    Pacer pacer = Pacer.adaptive();
    // 10 more in the 5 s after the attempt sent at 0: one start every 500 ms.
    pacer.observeQuota(0, 10, 5 * S);
    long first = pacer.tryAcquire(S, NO_LIMIT);
    assertThat(first).isZero();
    assertThat(pacer.tryAcquire(S, NO_LIMIT)).isEqualTo(500 * MS);
    assertThat(pacer.tryAcquire(S, NO_LIMIT)).isEqualTo(1000 * MS);
  }

  @Test
  void aQuotaCountsTheStartsTheServerHadNotSeen() {
    Pacer pacer = Pacer.adaptive();
    // 4 starts after the attempt at 0 (1 ns apart, unpaced), then the answer to it: 6 left.
    pacer.tryAcquire(0, NO_LIMIT);
    for (int i = 1; i <= 4; i++) {
      pacer.tryAcquire(i, NO_LIMIT);
    }
    pacer.observeQuota(0, 10, 6 * S);
    // (6 s - the newest start) / 6 left: just under 1 s apart.
    long next = pacer.tryAcquire(5, NO_LIMIT);
    long after = pacer.tryAcquire(5, NO_LIMIT);
    assertThat(after - next).isBetween(999 * MS, 1000 * MS);
  }

  @Test
  void lyingQuotasNeverBeatTheCeilingNorStallPastTheSlowestRate() {
    Pacer pacer = Pacer.builder().adaptive().withRate(60, Duration.ofMinutes(1)).build();
    // remaining far above any limit: still at most the ceiling, one per second.
    pacer.observeQuota(0, 1_000_000_000L, S);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(S);
    // a reset in the past, or a negative count: ignored.
    pacer.observeQuota(0, 5, -S);
    pacer.observeQuota(0, -1, S);
    pacer.observeQuota(0, 5, 0);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(2 * S);
    // a reset a year away: no slower than the slowest rate, 1 per 2 s.
    Pacer slow = Pacer.adaptive();
    slow.observeQuota(0, 10, 365L * 24 * 3600 * S);
    slow.tryAcquire(0, NO_LIMIT);
    assertThat(slow.tryAcquire(0, NO_LIMIT)).isEqualTo(2 * S);
    // and never a wait past what the caller accepts: refused instead.
    assertThat(slow.tryAcquire(0, S)).isNegative();
  }

  /** The interval of a rate, as the pacer rounds it: up to the next nanosecond. */
  private static long intervalOf(double perSecond) {
    return (long) Math.ceil(S / perSecond);
  }

  @Test
  void aimdFallsFromTheRateInUseByTheShareOfTheRoundRefused() {
    Pacer pacer = Pacer.builder().adaptive().withRate(10, Duration.ofSeconds(1)).build();
    long t = 0;
    for (int i = 0; i < 40; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
    }
    assertThat(pacer.tryAcquire(t, NO_LIMIT)).isEqualTo(100 * MS);
    long now = t + 150 * MS;
    // 40 starts at the ceiling up to the one refused (the pacer set the pace): 0.9 x 10/s x 39/40.
    pacer.onThrottled(t, now);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 10 * 39 / 40));
    // An earlier start of the round refused too, answered later: 38 of the 40 got through.
    pacer.onThrottled(t - 100 * MS, now + MS);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 10 * 38 / 40));
    // The start reserved after the refused one, refused as well: that decrease answered it.
    pacer.onThrottled(t + 100 * MS, now + 2 * MS);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 10 * 38 / 40));
    long a = pacer.tryAcquire(now + 10 * S, NO_LIMIT);
    long b = pacer.tryAcquire(now + 10 * S, NO_LIMIT);
    assertThat(b - a).isEqualTo(intervalOf(0.9 * 10 * 38 / 40));
  }

  @Test
  void aBurstBeforeAnyPacingFallsFromWhatWasSentThenAPacedRoundByItsShareRefused() {
    Pacer pacer = Pacer.adaptive();
    for (int i = 0; i < 8; i++) {
      assertThat(pacer.tryAcquire(0, NO_LIMIT)).isLessThan(100);
    }
    // Seven of the eight refused: how much the limiter holds, not its rate. 16 sent in the
    // half-second bucket, times 0.9, as the AWS SDKs fall; the other six lower nothing.
    for (int i = 0; i < 7; i++) {
      pacer.onThrottled(0, 50 * MS);
    }
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(14.4));
    // Paced at 14.4/s, the second start refused: one of two got through.
    long first = pacer.tryAcquire(S, NO_LIMIT);
    long second = pacer.tryAcquire(S, NO_LIMIT);
    pacer.onThrottled(S + second, S + second + 50 * MS);
    assertThat(second - first).isEqualTo(intervalOf(14.4));
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 14.4 / 2));
  }

  @Test
  void oneShortRoundRefusedFallsByTheFactorAloneTwoInARowByTheirShare() {
    Pacer pacer = Pacer.builder().adaptive().withRate(8, Duration.ofSeconds(1)).build();
    // The second start refused: a first start that reached the server late bunches with the next
    // as easily as a rate above the limit, so one round of two says little.
    pacer.tryAcquire(0, NO_LIMIT);
    long second = pacer.tryAcquire(0, NO_LIMIT);
    pacer.onThrottled(second, second + 5 * MS);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 8));
    // The next round is short too: now its share counts, one of two.
    long next = second + 5 * MS + pacer.tryAcquire(second + 5 * MS, NO_LIMIT);
    long after = next + pacer.tryAcquire(next, NO_LIMIT);
    pacer.onThrottled(after, after + 5 * MS);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 0.9 * 8 / 2));
  }

  @Test
  void theFirstStartAfterADecreaseIsSpacedAtTheNewIntervalFromTheNewest() {
    Pacer pacer = Pacer.builder().adaptive().withRate(10, Duration.ofSeconds(1)).build();
    long t = 0;
    for (int i = 0; i < 10; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
    }
    // The newest start is at 900 ms; the schedule would put the next at 1 s.
    pacer.onThrottled(t, t);
    long interval = pacer.interval().toNanos();
    assertThat(interval).isGreaterThan(100 * MS);
    assertThat(pacer.pausedUntilNanos()).isEqualTo(t + interval);
    assertThat(t + pacer.tryAcquire(t, NO_LIMIT)).isEqualTo(t + interval);
  }

  @Test
  void aimdRecoversInAFewAnswersToJustBelowTheRefusedRateAndProbesAsPatientlyAsTheRoundWasLong() {
    Pacer pacer = Pacer.builder().adaptive().withRate(100, Duration.ofSeconds(1)).build();
    long t = 0;
    for (int i = 0; i < 64; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
    }
    // 64 starts at 100/s, the last refused: the limit is about 98.4/s.
    pacer.onThrottled(t, t);
    double refused = 100.0 * 63 / 64;
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * refused));
    // 8 answers: back at 98 % of the refused rate, 1 % of it per answer.
    long at = t;
    for (int i = 0; i < 8; i++) {
      at = answer(pacer, at);
    }
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.98 * refused));
    // After a round of 64 the probe is patient: within a percent of 98 % for 100 answers more.
    for (int i = 0; i < 100; i++) {
      at = answer(pacer, at);
    }
    assertThat(S / (double) pacer.interval().toNanos()).isBetween(0.98 * refused, 0.99 * refused);
    // A rate learned from a burst says little: the probe doubles it within 150 answers.
    Pacer low = Pacer.builder().adaptive().build();
    for (int i = 0; i < 8; i++) {
      low.tryAcquire(0, NO_LIMIT);
    }
    low.onThrottled(0, 50 * MS);
    double first = S / (double) low.interval().toNanos();
    long when = 50 * MS;
    int answers = 0;
    while (S / (double) low.interval().toNanos() < 2 * first && answers < 1000) {
      when = answer(low, when);
      answers++;
    }
    assertThat(answers).isLessThan(150);
  }

  /**
   * Answers the pacer's starts against a limiter that refuses any start sent faster than {@code
   * limit} per second, until {@code refusals} starts were refused; returns the answers between
   * refusals.
   */
  private static List<Integer> answersBetweenRefusals(
      Pacer pacer, double limit, int refusals, long[] clock) {
    List<Integer> gaps = new ArrayList<>();
    int answers = 0;
    while (gaps.size() < refusals && answers < 1_000_000) {
      long start = clock[0] + pacer.tryAcquire(clock[0], NO_LIMIT);
      clock[0] = start;
      if (S / (double) pacer.interval().toNanos() > limit) {
        pacer.onThrottled(start, start + MS);
        gaps.add(answers);
        answers = 0;
      } else {
        pacer.onAccepted(start);
        answers++;
      }
    }
    return gaps;
  }

  @Test
  void aLimitFoundAgainAtTheSameRateIsProbedMorePatientlyEachTimeThenAtAFixedPatience() {
    Pacer pacer = Pacer.builder().adaptive().withRate(100, Duration.ofSeconds(1)).build();
    long[] clock = {0};
    List<Integer> gaps = answersBetweenRefusals(pacer, 50, 14, clock);
    // The first refusals walk the rate down to the limit (a few answers apart); from the first
    // probe that finds 50/s on, each probe finds it again and waits about twice as long as the
    // one before, twice; then the patience stays.
    int first = gaps.size();
    while (gaps.get(first - 1) >= 50) {
      first--;
    }
    List<Integer> probes = gaps.subList(first, gaps.size());
    for (int i = 1; i <= 2; i++) {
      assertThat((double) probes.get(i))
          .as("answers between refusals: %s", gaps)
          .isGreaterThan(1.5 * probes.get(i - 1));
    }
    int last = probes.get(probes.size() - 1);
    assertThat(probes.subList(probes.size() - 3, probes.size()))
        .as("answers between refusals: %s", gaps)
        .allSatisfy(g -> assertThat((double) g).isBetween(0.95 * last, 1.05 * last));
    assertThat(last).isLessThan(10 * probes.get(0));
    // The price of patience: a limit that doubles is found later, the rate passing 1.5 times the
    // old limit after about 1 700 answers (34 s at 50/s) where it took 431 with no patience.
    Pacer rising = Pacer.builder().adaptive().withRate(100, Duration.ofSeconds(1)).build();
    long[] at = {0};
    answersBetweenRefusals(rising, 50, 14, at);
    int toFind = 0;
    while (S / (double) rising.interval().toNanos() < 75) {
      at[0] = answer(rising, at[0]);
      toFind++;
    }
    assertThat(toFind).isBetween(1_000, 2_000);
    // The limit moves: a refusal at another rate starts the patience over.
    List<Integer> after = answersBetweenRefusals(pacer, 25, 3, clock);
    assertThat(after.get(2)).as("after the limit fell: %s", after).isLessThan(last / 4);
  }

  @Test
  void aProbeThatNeverMeetsALimitKeepsTheRateFinite() {
    Pacer pacer = Pacer.adaptive();
    for (int i = 0; i < 8; i++) {
      pacer.tryAcquire(0, NO_LIMIT);
    }
    pacer.onThrottled(0, 50 * MS);
    // A million answers and no throttle (nothing measured since: no cap from the send rate).
    for (int i = 0; i < 1_000_000; i++) {
      pacer.onAccepted(S + i);
    }
    // At most a start a nanosecond; a throttle then falls from that rate, not from infinity.
    assertThat(pacer.interval().toNanos()).isEqualTo(1);
    long at = 2 * S;
    for (int i = 0; i < 100; i++) {
      at += pacer.tryAcquire(at, NO_LIMIT);
    }
    pacer.onThrottled(at, at);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * S));
  }

  /** One start reserved at {@code at} or later and its answer; returns when it started. */
  private static long answer(Pacer pacer, long at) {
    long start = at + pacer.tryAcquire(at, NO_LIMIT);
    pacer.onAccepted(start);
    return start;
  }

  @Test
  void aimdGrowsWhileAnswersComeAndNeverPastTheCeiling() {
    Pacer pacer = Pacer.builder().adaptive().withRate(10, Duration.ofSeconds(1)).build();
    long t = 0;
    for (int i = 0; i < 20; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
    }
    pacer.onThrottled(t, t);
    long slower = pacer.interval().toNanos();
    for (int i = 0; i < 200; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
      pacer.onAccepted(t);
    }
    long faster = pacer.interval().toNanos();
    assertThat(faster).isLessThan(slower).isGreaterThanOrEqualTo(100 * MS);
  }

  @Test
  void cubicReturnsToTheRateOfTheThrottleAfterK() {
    Pacer pacer =
        Pacer.builder()
            .adaptive(Pacer.Congestion.CUBIC)
            .withRate(10, Duration.ofSeconds(1))
            .build();
    long t = 0;
    for (int i = 0; i < 40; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
    }
    pacer.onThrottled(t, t);
    // 0.7 x the ceiling the pacer sent at, less the one refused of 40.
    double wMax = 10.0 * 39 / 40;
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.7 * wMax));
    double k = Math.cbrt(wMax * (1 - 0.7) / 0.4);
    long back = t + (long) (k * S) + MS;
    for (long at = t + 100 * MS; at < back; at += 100 * MS) {
      pacer.tryAcquire(at, NO_LIMIT);
    }
    pacer.onAccepted(back);
    // At t = K the curve is back at wMax.
    assertThat(pacer.interval().toNanos()).isBetween(intervalOf(wMax) - MS, intervalOf(wMax));
  }

  @Test
  void startsAfterAPauseAreSpreadAtTheLearnedRate() {
    Pacer pacer = Pacer.adaptive();
    pacer.observeQuota(0, 10, 5 * S);
    pacer.pauseUntil(3 * S);
    assertThat(pacer.pausedUntilNanos()).isEqualTo(3 * S);
    assertThat(pacer.tryAcquire(S, NO_LIMIT)).isEqualTo(2 * S);
    assertThat(pacer.tryAcquire(S, NO_LIMIT)).isEqualTo(2 * S + 500 * MS);
    assertThat(pacer.tryAcquire(S, NO_LIMIT)).isEqualTo(3 * S);
  }

  @Test
  void aFixedPacerIgnoresWhatTheServerSays() {
    Pacer pacer = Pacer.of(60, Duration.ofMinutes(1));
    assertThat(pacer.isAdaptive()).isFalse();
    assertThat(pacer.holdsReservedStarts()).isFalse();
    pacer.observeQuota(0, 1, 10 * S);
    pacer.onThrottled(0, 0);
    pacer.onAccepted(0);
    pacer.tryAcquire(0, NO_LIMIT);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(S);
  }

  @Test
  void aCeilingOfZeroIsRefusedSayingWhatIsAllowed() {
    assertThatThrownBy(() -> Pacer.builder().adaptive().withRate(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "permits must be >= 1 (a rate of 0 would start nothing; for an adaptive pacer without"
                + " a ceiling, leave the rate unset): 0");
    assertThatThrownBy(() -> Pacer.builder().withSlowestRate(-3, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("permits must be >= 1 (a slowest rate of -3");
    assertThatThrownBy(() -> Pacer.builder().adaptive(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("congestion cannot be null");
    assertThat(Pacer.builder().adaptive().withRate(2, Duration.ofSeconds(1)).build().toString())
        .isEqualTo("Pacer[adaptive=aimd, interval=500 ms, ceiling=500 ms, burst=1]");
  }

  @Test
  void aDecreaseIsSharedThroughTheStateForSixteenIntervalsAndAtLeastASecond() {
    List<long[]> shared = new ArrayList<>();
    PacerState recording =
        new ForwardingPacerState() {
          @Override
          public void shareInterval(long interval, long hold) {
            shared.add(new long[] {interval, hold});
          }
        };
    Pacer pacer =
        Pacer.builder().adaptive().withRate(10, Duration.ofSeconds(1)).withState(recording).build();
    long t = 0;
    for (int i = 0; i < 40; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
    }
    assertThat(shared).isEmpty(); // nothing learned yet: nothing to share

    pacer.onThrottled(t, t + 150 * MS);

    long learned = intervalOf(0.9 * 10 * 39 / 40);
    assertThat(pacer.interval().toNanos()).isEqualTo(learned);
    assertThat(shared).hasSize(1);
    assertThat(shared.get(0)).containsExactly(learned, Math.max(S, 16 * learned));
  }
}
