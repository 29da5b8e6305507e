package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Pacer.Congestion#BRACKET} against token buckets on virtual time: one caller that sends
 * each start when the pacer says and hears its answer a round trip later.
 */
class LimitBracketTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long NO_LIMIT = Long.MAX_VALUE;

  /** Whether a limiter accepts a start that reaches it at {@code at}, and what it counted. */
  private interface Limiter {
    boolean admit(long at);

    int accepted();

    int refused();
  }

  /** A token bucket as nginx's limit_req keeps it: refused starts take no token. */
  private static final class Bucket implements Limiter {
    final long interval;
    final double burst;
    double tokens;
    long last;
    int accepted;
    int refused;

    Bucket(long interval, int burst) {
      this.interval = interval;
      this.burst = burst + 1;
      this.tokens = burst + 1;
    }

    @Override
    public int accepted() {
      return accepted;
    }

    @Override
    public int refused() {
      return refused;
    }

    @Override
    public boolean admit(long at) {
      tokens = Math.min(burst, tokens + (at - last) / (double) interval);
      last = at;
      if (tokens >= 1) {
        tokens -= 1;
        accepted++;
        return true;
      }
      refused++;
      return false;
    }
  }

  /** What a run of {@code n} accepted starts took, from the first start to the last. */
  private record Run(long span, int refused, long finalInterval) {}

  /**
   * HAProxy's sliding counter ({@code http_req_rate}): the current period's count plus the previous
   * period's times the share of the period still to come; every request counts, the refused ones
   * too, and one over the limit is refused.
   */
  private static final class SlidingCounter implements Limiter {
    final int limit;
    final long period;
    long periodStart;
    int current;
    int previous;
    int accepted;
    int refused;

    SlidingCounter(int limit, long period) {
      this.limit = limit;
      this.period = period;
    }

    @Override
    public boolean admit(long at) {
      while (at >= periodStart + period) {
        previous = at >= periodStart + 2 * period ? 0 : current;
        current = 0;
        periodStart += period;
      }
      current++;
      double rate = current + previous * (double) (periodStart + period - at) / period;
      if (rate > limit) {
        refused++;
        return false;
      }
      accepted++;
      return true;
    }

    @Override
    public int accepted() {
      return accepted;
    }

    @Override
    public int refused() {
      return refused;
    }
  }

  private static Run run(Pacer pacer, Limiter bucket, int n, long rtt) {
    long now = 0;
    long first = -1;
    long last = 0;
    while (bucket.accepted() < n) {
      long wait = pacer.tryAcquire(now, NO_LIMIT);
      assertThat(wait).isNotNegative();
      long start = now + wait;
      if (first < 0) {
        first = start;
      }
      last = start;
      boolean ok = bucket.admit(start);
      now = start + rtt;
      if (ok) {
        pacer.onAccepted(start);
      } else {
        pacer.onThrottled(start, now);
      }
      if (System.getenv("BRACKET_TRACE") != null) {
        System.out.printf(
            "%.3f %s %d%n", start / 1e9, ok ? "ok" : "REFUSED", pacer.interval().toMillis());
      }
    }
    return new Run(last - first, bucket.refused(), pacer.interval().toNanos());
  }

  private static Pacer bracket() {
    return Pacer.builder().adaptive(Pacer.Congestion.BRACKET).build();
  }

  @Test
  void aBucketWithoutBurstIsFoundWithinAFewPercentInAFewRefusals() {
    Bucket bucket = new Bucket(100 * MS, 0);
    Run r = run(bracket(), bucket, 150, MS);
    // 150 accepted starts need 14.9 s at the limit; the search costs little more.
    assertThat(r.span()).isLessThan((long) (14.9 * S * 1.10));
    assertThat(r.refused()).isLessThanOrEqualTo(6);
    assertThat(r.finalInterval()).isBetween(100 * MS, 108 * MS);
  }

  @Test
  void aBucketWithBurstIsFoundOnceItsTokensAreSpent() {
    Bucket bucket = new Bucket(100 * MS, 20);
    Run r = run(bracket(), bucket, 150, MS);
    // 21 at once, then 129 at 10/s: 12.9 s.
    assertThat(r.span()).isLessThan((long) (12.9 * S * 1.15));
    // A bucket with tokens left accepts a pace a little under its rate until they run out.
    assertThat(r.finalInterval()).isBetween(95 * MS, 110 * MS);
  }

  @Test
  void aSlidingWindowIsPacedAtItsRunOverItsTimeOnceItOpensAgain() {
    SlidingCounter haproxy = new SlidingCounter(100, 10 * S);
    Run r = run(bracket(), haproxy, 150, MS);
    // 100 at once, then the counter lets about 10 a second through from 10 s on: 15 s.
    assertThat(r.span()).isLessThan((long) (15 * S * 1.20));
    // Paced near 100 per 10 s, not at the slowest rate a refusal long after the run would give.
    assertThat(r.finalInterval()).isBetween(90 * MS, 130 * MS);
    assertThat(r.refused()).isLessThanOrEqualTo(12);
  }

  @Test
  void theFirstPaceIsTheRateAcceptedOverTheLastSecondNeverBelowIt() {
    Pacer pacer = bracket();
    // Five calls a second, one after the other, all accepted; then one refused.
    for (int i = 0; i < 10; i++) {
      assertThat(pacer.tryAcquire(i * 200 * MS, NO_LIMIT)).isZero();
      pacer.onAccepted(i * 200 * MS);
    }
    pacer.tryAcquire(2 * S, NO_LIMIT);
    pacer.onThrottled(2 * S, 2 * S + MS);
    // Five starts in the last second, four accepted and the refused one: 5/s, not the 0.5/s of the
    // slowest rate; the refused gap of 200 ms says the limit is a little slower: 3 % + 2 ms above.
    assertThat(pacer.interval()).isEqualTo(Duration.ofMillis(208));
  }

  @Test
  void withNothingAcceptedYetTheFirstPaceIsFourStartsASecond() {
    Pacer pacer = bracket();
    pacer.tryAcquire(0, NO_LIMIT);
    pacer.onThrottled(0, MS);
    assertThat(pacer.interval()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void eachPaceThatHeldIsFollowedByAFasterOneAndARefusedOneGoesBack() {
    LimitBracket b = new LimitBracket(1, 2 * S);
    b.onAccepted(0);
    b.onThrottled(10 * MS, 11 * MS); // cold: nothing for a whole second yet, 250 ms
    assertThat(b.interval()).isEqualTo(250 * MS);
    // Far from the refused bound (10 ms): two accepts in a row at a pace halve it.
    long t = 11 * MS;
    for (long expected : new long[] {125 * MS, 62_500_000L, 31_250_000L}) {
      long pace = b.interval();
      t += pace;
      b.onAccepted(t);
      assertThat(b.interval()).isEqualTo(pace);
      t += pace;
      b.onAccepted(t);
      assertThat(b.interval()).isEqualTo(expected);
    }
    // 31.25 ms refused before it held: back to the 62.5 ms that did; the bound is 31.25 ms.
    t += b.interval();
    b.onThrottled(t, t + MS);
    assertThat(b.interval()).isEqualTo(62_500_000L);
    assertThat(b.refusedBound()).isEqualTo(31_250_000L);
    // Near the bound: three accepts in a row, then halfway towards 3 % + 2 ms above it, but no
    // more than a tenth faster.
    for (int i = 0; i < LimitBracket.HOLD; i++) {
      t += b.interval();
      b.onAccepted(t);
    }
    long floor = (long) (31_250_000L * 1.03) + LimitBracket.JITTER_NANOS;
    assertThat(floor + (62_500_000L - floor) / 2).isLessThan(56_250_000L);
    assertThat(b.interval()).isEqualTo(56_250_000L);
    // That pace held three times; the next, faster, is refused before it held: back.
    long pace = b.interval();
    for (int i = 0; i < LimitBracket.HOLD; i++) {
      t += pace;
      b.onAccepted(t);
    }
    long probe = b.interval();
    assertThat(probe).isLessThan(pace);
    t += probe;
    b.onThrottled(t, t + MS);
    assertThat(b.interval()).isEqualTo(pace);
    // At the pace that held, three more accepts and then one refusal: a nudge of 3 %.
    for (int i = 0; i < LimitBracket.HOLD; i++) {
      t += pace;
      b.onAccepted(t);
    }
    long at = b.interval();
    t += at;
    b.onThrottled(t, t + MS);
    assertThat(b.interval()).isBetween(at, (long) (Math.max(at, pace) * 1.04));
  }

  @Test
  void aLimiterThatRefusesEverythingLeavesThePacerAtItsSlowestRate() {
    Pacer pacer = bracket();
    long now = 0;
    for (int i = 0; i < 40; i++) {
      long start = now + pacer.tryAcquire(now, NO_LIMIT);
      now = start + MS;
      pacer.onThrottled(start, now);
    }
    assertThat(pacer.interval()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aLimiterThatAcceptsEverythingIsNeverPaced() {
    Pacer pacer = bracket();
    for (int i = 0; i < 200; i++) {
      assertThat(pacer.tryAcquire(i, NO_LIMIT)).isZero();
      pacer.onAccepted(i);
    }
    assertThat(pacer.interval()).isEqualTo(Duration.ofNanos(1));
  }

  @Test
  void theCeilingHoldsWhateverTheSearchTries() {
    Pacer pacer =
        Pacer.builder()
            .adaptive(Pacer.Congestion.BRACKET)
            .withRate(5, Duration.ofSeconds(1))
            .build();
    Bucket generous = new Bucket(10 * MS, 0);
    run(pacer, generous, 30, MS);
    assertThat(pacer.interval()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
  }

  @Test
  void aCallerWaitsForTheNewestBookedStartBeforeBookingItsOwn() {
    Pacer pacer = bracket();
    pacer.tryAcquire(0, NO_LIMIT);
    pacer.onThrottled(0, MS); // 250 ms
    // The start at 0 may not be answered yet: book half an interval after it.
    assertThat(pacer.deferNanos(MS)).isEqualTo(125 * MS - MS);
    assertThat(pacer.deferNanos(125 * MS)).isZero();
    long booked = 125 * MS + pacer.tryAcquire(125 * MS, NO_LIMIT);
    assertThat(booked).isEqualTo(250 * MS);
    // Another caller waits until half an interval after that booked start.
    assertThat(pacer.deferNanos(130 * MS)).isEqualTo(booked + 125 * MS - 130 * MS);
    assertThat(pacer.deferNanos(booked + 125 * MS)).isZero();
    // A fixed-rate pacer, or another controller, never defers.
    assertThat(Pacer.of(1, Duration.ofSeconds(1)).deferNanos(0)).isZero();
    Pacer aimd = Pacer.builder().adaptive(Pacer.Congestion.AIMD).build();
    aimd.tryAcquire(0, NO_LIMIT);
    aimd.onThrottled(0, MS);
    aimd.tryAcquire(MS, NO_LIMIT);
    assertThat(aimd.deferNanos(MS)).isZero();
  }

  @Test
  void aPacerThatDoesNotPaceYetNeverDefersEvenOnAClockThatStandsStill() {
    // Without a rate and before any throttle each booking is a nanosecond after the one before:
    // on a clock that stands still (a test's fake time) deferring to it would wait for ever.
    Pacer pacer = bracket();
    for (int i = 0; i < 5; i++) {
      assertThat(pacer.tryAcquire(MS, NO_LIMIT)).isEqualTo(i);
      assertThat(pacer.deferNanos(MS)).isZero();
    }
  }

  @Test
  void aWindowsRequestsLeftAreSpentAtOnceAndTheNextWaitsForItsReset() {
    Pacer pacer = bracket();
    // Two answers that name the same reset, 10 s after the first start: a fixed window.
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    pacer.observeQuota(0, 99, 10 * S);
    assertThat(pacer.tryAcquire(MS, NO_LIMIT)).isZero();
    pacer.observeQuota(MS, 98, 10 * S - MS);
    // 98 left: they go at once (a nanosecond apart), not one every 100 ms.
    for (int i = 0; i < 98; i++) {
      assertThat(pacer.tryAcquire(2 * MS, NO_LIMIT)).isLessThan(1_000L);
    }
    // None left: the next start waits for the reset.
    pacer.observeQuota(2 * MS, 0, 10 * S - 2 * MS);
    assertThat(pacer.tryAcquire(3 * MS, NO_LIMIT)).isGreaterThanOrEqualTo(10 * S - 3 * MS);
  }

  @Test
  void aResetThatMovesOnIsABucketWhoseRequestsLeftAreSpread() {
    Pacer pacer = bracket();
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    pacer.observeQuota(0, 9, S);
    assertThat(pacer.tryAcquire(500 * MS, NO_LIMIT)).isZero();
    // The reset moved on by half a second and more: spread, about 100 ms apart.
    pacer.observeQuota(500 * MS, 9, 2 * S);
    long first = pacer.tryAcquire(500 * MS, NO_LIMIT);
    long second = pacer.tryAcquire(500 * MS, NO_LIMIT);
    assertThat(second - first).isGreaterThan(50 * MS);
  }

  @Test
  void theOtherControllersStillSpreadAWindowsRequestsLeft() {
    Pacer pacer = Pacer.builder().adaptive(Pacer.Congestion.AIMD).build();
    pacer.tryAcquire(0, NO_LIMIT);
    pacer.observeQuota(0, 99, 10 * S);
    pacer.tryAcquire(MS, NO_LIMIT);
    pacer.observeQuota(MS, 98, 10 * S - MS);
    long first = pacer.tryAcquire(2 * MS, NO_LIMIT);
    long second = pacer.tryAcquire(2 * MS, NO_LIMIT);
    assertThat(second - first).isGreaterThan(50 * MS);
  }

  @Test
  void aControllerRestoredFromASnapshotGoesOnExactlyAsTheOriginal() {
    // Seeded random answers of a 100 ms limiter to starts at a varying pace: after every answer a
    // fresh controller restored from the original's snapshot answers the next one as it does.
    Random random = new Random(23);
    LimitBracket original = new LimitBracket(MS, 10 * S);
    long t = S;
    long lastAccepted = Long.MIN_VALUE / 2;
    for (int i = 0; i < 2_000; i++) {
      LimitBracket copy = new LimitBracket(MS, 10 * S);
      copy.restore(original.snapshot());
      long pace = original.interval() > 0 ? original.interval() : 20 * MS;
      t += Math.max(1, (long) (pace * (0.5 + random.nextDouble())));
      if (t - lastAccepted >= 100 * MS) {
        lastAccepted = t;
        original.onAccepted(t);
        copy.onAccepted(t);
      } else {
        assertThat(copy.onThrottled(t, t + MS)).isEqualTo(original.onThrottled(t, t + MS));
      }
      assertThat(copy.snapshot()).containsExactly(original.snapshot());
    }
    assertThat(original.refusedBound()).isBetween(50 * MS, 100 * MS);
  }

  @Test
  void aSnapshotThatIsNoneOrNotOneRestoresAControllerThatLearnedNothing() {
    LimitBracket learned = new LimitBracket(MS, 10 * S);
    learned.onAccepted(0);
    learned.onThrottled(10 * MS, 11 * MS);
    assertThat(learned.interval()).isPositive();
    long[] fresh = new LimitBracket(MS, 10 * S).snapshot();
    for (long[] notOne : new long[][] {null, {1, 2, 3}, new long[LimitBracket.SNAPSHOT_LENGTH]}) {
      LimitBracket b = new LimitBracket(MS, 10 * S);
      b.restore(learned.snapshot());
      b.restore(notOne);
      assertThat(b.snapshot()).containsExactly(fresh);
      assertThat(b.interval()).isZero();
    }
  }

  @Test
  void aBoundThatOnlyUnpacedStartsGaveIsProbedSoonAndDroppedWhenTheProbeHolds() {
    // A cold client's first requests reach a 100 ms limiter late: one refused 400 ms after the
    // accepted start before it (by the client's clock), which says little about the limit.
    LimitBracket b = new LimitBracket(1, 10 * S);
    b.onAccepted(0);
    b.onThrottled(400 * MS, 401 * MS);
    assertThat(b.refusedBound()).isEqualTo(400 * MS);
    long t = 401 * MS;
    // Accepts at the pace: within a few dozen the pace is far below the guessed bound.
    for (int i = 0; i < 40; i++) {
      t += b.interval();
      b.onAccepted(t);
    }
    assertThat(b.refusedBound()).isZero();
    assertThat(b.interval()).isLessThan(100 * MS);
  }

  @Test
  void aBoundThatPacedStartsMeasuredTwiceWaitsForThePatienceBeforeItIsProbed() {
    LimitBracket b = new LimitBracket(1, 10 * S);
    b.onAccepted(0);
    b.onThrottled(10 * MS, 11 * MS); // unpaced: 250 ms, a guessed bound of 10 ms
    long t = 11 * MS;
    int accepts = 0;
    // A 100 ms limiter: paced starts are accepted or refused by their gap.
    long last = 0;
    while (accepts < 60) {
      t += b.interval();
      if (t - last >= 100 * MS) {
        last = t;
        b.onAccepted(t);
        accepts++;
      } else {
        b.onThrottled(t, t + MS);
      }
    }
    long bound = b.refusedBound();
    assertThat(bound).isBetween(60 * MS, 100 * MS);
    // Measured now: 60 more accepts do not probe below it.
    for (int i = 0; i < 60; i++) {
      t += b.interval();
      b.onAccepted(t);
    }
    assertThat(b.refusedBound()).isEqualTo(bound);
  }

  @Test
  void aPauseTheServerAskedForAfterARunIsNoWindow() {
    // nginx limit_req 10 r/s, burst 0, Retry-After: 1, as a real run's limiter logged it: a run
    // of 8 accepts, one refusal, the scope's pause of a second, accepts again. The second without
    // a start was the pause, not a refusal that lasted: still a bucket near 100 ms.
    String log =
        "0.000 200 0.002 429 0.003 429 0.003 429 1.035 200 1.284 200 1.410 200 1.536 200 1.596 429"
            + " 2.602 200 2.727 200 2.851 200 2.963 200 3.075 200 3.189 200 3.291 200 3.394 200"
            + " 3.493 429 4.499 200 4.619 200";
    String[] p = log.split(" ");
    LimitBracket b = new LimitBracket(1, 10 * S);
    for (int i = 0; i < p.length; i += 2) {
      long t = (long) (Double.parseDouble(p[i]) * S);
      if (p[i + 1].equals("200")) {
        b.onAccepted(t);
      } else {
        b.onThrottled(t, t + 2 * MS);
      }
    }
    assertThat(b.refusedBound()).isEqualTo(99 * MS);
    assertThat(b.interval()).isBetween(100 * MS, 125 * MS);
  }
}
