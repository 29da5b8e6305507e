package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
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
    long now = t + 100 * MS;
    // 41 starts at the ceiling (the pacer set the pace), one refused: 0.9 x 10/s x 40/41.
    pacer.onThrottled(t, now);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 10 * 40 / 41));
    // A second refusal in the same round: 39 of the 41 got through.
    pacer.onThrottled(t + 100 * MS, now + MS);
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * 10 * 39 / 41));
    long a = pacer.tryAcquire(now + 10 * S, NO_LIMIT);
    long b = pacer.tryAcquire(now + 10 * S, NO_LIMIT);
    assertThat(b - a).isEqualTo(intervalOf(0.9 * 10 * 39 / 41));
  }

  @Test
  void aBurstIntoALimiterThatTakesOneFallsToItsRateAtOnce() {
    Pacer pacer = Pacer.adaptive();
    for (int i = 0; i < 8; i++) {
      assertThat(pacer.tryAcquire(0, NO_LIMIT)).isLessThan(100);
    }
    // Seven of the eight refused, answered 50 ms later: 16 sent in the half-second bucket, one in
    // eight accepted, times 0.9: 1.8/s, not a tenth less per round.
    for (int i = 0; i < 7; i++) {
      pacer.onThrottled(0, 50 * MS);
    }
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(1.8));
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
    assertThat(t + pacer.tryAcquire(t, NO_LIMIT)).isEqualTo(t + interval);
  }

  @Test
  void aimdRecoversQuicklyToJustBelowTheRefusedRateThenProbesAboveItSlowlyThenFaster() {
    Pacer pacer = Pacer.builder().adaptive().withRate(100, Duration.ofSeconds(1)).build();
    long t = 0;
    for (int i = 0; i < 64; i++) {
      t += pacer.tryAcquire(t, NO_LIMIT);
    }
    // 64 starts at 100/s, one refused: the limit is about 98.4/s.
    pacer.onThrottled(t, t);
    double refused = 100.0 * 63 / 64;
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.9 * refused));
    // Answers every 10 ms: after 4 s the rate is back at 98 % of the refused one, and stays
    // within a percent of it for the next 30 s.
    long throttledAt = t;
    long at = t;
    for (; at < throttledAt + 4 * S + 10 * MS; at += 10 * MS) {
      pacer.onAccepted(at);
    }
    assertThat(pacer.interval().toNanos()).isEqualTo(intervalOf(0.98 * refused));
    for (; at < throttledAt + 34 * S; at += 10 * MS) {
      pacer.onAccepted(at);
    }
    assertThat(S / (double) pacer.interval().toNanos()).isBetween(0.98 * refused, refused);
    // A limit that rose, or one learned too low: twice the refused rate within five minutes.
    Pacer low = Pacer.builder().adaptive().build();
    for (int i = 0; i < 8; i++) {
      low.tryAcquire(0, NO_LIMIT);
    }
    low.onThrottled(0, 50 * MS);
    double first = S / (double) low.interval().toNanos();
    long when = 50 * MS;
    while (S / (double) low.interval().toNanos() < 2 * first) {
      when += 10 * MS;
      low.tryAcquire(when, NO_LIMIT);
      low.onAccepted(when);
    }
    assertThat(when).isLessThan(300 * S);
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
}
