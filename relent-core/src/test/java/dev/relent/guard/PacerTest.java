package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.PacerState;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

class PacerTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long NO_LIMIT = Long.MAX_VALUE;

  @Test
  void ninetyPerMinuteIsOneStartEvery666_666_667Nanos() {
    Pacer pacer = Pacer.of(90, Duration.ofMinutes(1));

    assertThat(pacer.interval()).isEqualTo(Duration.ofNanos(666_666_667L));
    assertThat(pacer.burst()).isEqualTo(1);
    assertThat(pacer).hasToString("Pacer[interval=666.7 ms, burst=1]");
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(0);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(666_666_667L);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(1_333_333_334L);
    // A caller arriving late starts at once, and the next one is spaced from it.
    assertThat(pacer.tryAcquire(10 * S, NO_LIMIT)).isEqualTo(0);
    assertThat(pacer.tryAcquire(10 * S, NO_LIMIT)).isEqualTo(666_666_667L);
    assertThat(pacer.tryAcquire(10 * S + 666_666_667L, NO_LIMIT)).isEqualTo(666_666_667L);
  }

  @Test
  void intervalIsRoundedUpSoThePacerIsNeverFasterThanAsked() {
    assertThat(Pacer.of(1, Duration.ofSeconds(1)).interval()).isEqualTo(Duration.ofNanos(S));
    assertThat(Pacer.of(3, Duration.ofNanos(10)).interval()).isEqualTo(Duration.ofNanos(4));
    assertThat(Pacer.of(7, Duration.ofNanos(1)).interval()).isEqualTo(Duration.ofNanos(1));
    assertThat(Pacer.of(120, Duration.ofMinutes(1)).interval())
        .isEqualTo(Duration.ofNanos(500 * MS));
  }

  @Test
  void sixHundredRequestsAtNinetyPerMinuteTakeFourHundredSeconds() {
    Pacer pacer = Pacer.of(90, Duration.ofMinutes(1));
    long last = -1;
    for (int i = 0; i < 600; i++) {
      long wait = pacer.tryAcquire(0, NO_LIMIT);
      assertThat(wait).isEqualTo(i * pacer.interval().toNanos());
      last = wait;
    }
    assertThat(last).isEqualTo(599 * 666_666_667L).isEqualTo(399_333_333_533L);
    // The queue is done one interval after the last start: 400 s within 1 us.
    assertThat(last + pacer.interval().toNanos()).isBetween(400 * S - 1_000, 400 * S + 1_000);
  }

  @Test
  void sixHundredCallersEachArrivingAtItsStartTimeSeeTheSameSchedule() {
    Pacer pacer = Pacer.of(90, Duration.ofMinutes(1));
    long now = 0;
    for (int i = 0; i < 600; i++) {
      long wait = pacer.tryAcquire(now, NO_LIMIT);
      assertThat(now + wait).isEqualTo(i * 666_666_667L);
      now += wait;
    }
    assertThat(now).isEqualTo(399_333_333_533L);
  }

  @Test
  void burstLetsThatManyGoAtOnceThenSpaces() {
    Pacer pacer = Pacer.builder().withRate(10, Duration.ofSeconds(1)).withBurst(3).build();
    long t = 100 * MS;

    assertThat(waits(pacer, 0, 5)).containsExactly(0L, 0L, 0L, t, 2 * t);
    // After a quiet time of at least burst intervals the whole burst is back.
    assertThat(waits(pacer, 10 * S, 4)).containsExactly(0L, 0L, 0L, t);
  }

  @Test
  void burstRefillsAtTheRateNotAllAtOnce() {
    Pacer pacer = Pacer.builder().withRate(10, Duration.ofSeconds(1)).withBurst(3).build();
    long t = 100 * MS;
    waits(pacer, 0, 3); // tat = 3T

    // One interval later one start is free, the next must wait a whole interval.
    assertThat(waits(pacer, t, 2)).containsExactly(0L, t);
  }

  @Test
  void maxWaitRefusalReturnsTheNeededWaitAndReservesNothing() {
    Pacer pacer = Pacer.of(10, Duration.ofSeconds(1));
    long t = 100 * MS;
    assertThat(pacer.tryAcquire(0, 0)).isEqualTo(0);

    assertThat(pacer.tryAcquire(0, t - 1)).isEqualTo(-t);
    assertThat(pacer.tryAcquire(0, 0)).isEqualTo(-t);
    assertThat(pacer.tryAcquire(40 * MS, 0)).isEqualTo(-60 * MS);
    // Nothing was reserved: a wait of exactly maxWait is accepted and is still the first slot.
    assertThat(pacer.tryAcquire(0, t)).isEqualTo(t);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(2 * t);
  }

  @Test
  void negativeMaxWaitIsRejected() {
    Pacer pacer = Pacer.of(1, Duration.ofSeconds(1));

    assertThatThrownBy(() -> pacer.tryAcquire(0, -5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxWaitNanos must be >= 0: -5 ns");
  }

  @Test
  void pauseDelaysEveryCallerAndIsNeverShortened() {
    PacerState shared = PacerState.inMemory();
    FakeTime time = new FakeTime();
    Pacer first =
        Pacer.builder().withRate(1, Duration.ofSeconds(1)).withState(shared).withTime(time).build();
    Pacer second =
        Pacer.builder().withRate(1, Duration.ofSeconds(1)).withState(shared).withTime(time).build();
    assertThat(first.pausedUntil()).isEmpty();
    assertThat(first.pauseRemaining()).isZero();

    first.pauseUntil(5 * S);
    first.pauseUntil(3 * S);

    Instant end = FakeTime.DEFAULT_START.plusSeconds(5);
    assertThat(first.pausedUntil()).contains(end);
    assertThat(second.pausedUntil()).contains(end);
    assertThat(second.pauseRemaining()).isEqualTo(Duration.ofSeconds(5));
    time.advance(Duration.ofSeconds(2));
    assertThat(second.pausedUntil()).contains(end);
    assertThat(second.pauseRemaining()).isEqualTo(Duration.ofSeconds(3));
    assertThatThrownBy(() -> Pacer.builder().withTime(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("time cannot be null");
    assertThat(second.tryAcquire(0, 4 * S)).isEqualTo(-5 * S);
    assertThat(first.tryAcquire(S, NO_LIMIT)).isEqualTo(4 * S);
    assertThat(second.tryAcquire(2 * S, NO_LIMIT)).isEqualTo(4 * S);
    assertThat(first.tryAcquire(7 * S, NO_LIMIT)).isEqualTo(0);
    // A later, longer pause wins.
    second.pauseUntil(20 * S);
    assertThat(first.tryAcquire(8 * S, NO_LIMIT)).isEqualTo(12 * S);
  }

  @Test
  void pauseReleasesTheBurstAtItsEnd() {
    Pacer pacer = Pacer.builder().withRate(1, Duration.ofSeconds(1)).withBurst(2).build();
    pacer.pauseUntil(10 * S);

    assertThat(waits(pacer, 0, 3)).containsExactly(10 * S, 10 * S, 11 * S);
  }

  @Test
  void refundOfTheNewestReservationGivesItsSlotToTheNextCaller() {
    Pacer pacer = Pacer.of(1, Duration.ofSeconds(1));
    assertThat(waits(pacer, 0, 3)).containsExactly(0L, S, 2 * S);

    pacer.refund(2 * S);

    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(2 * S);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(3 * S);
  }

  @Test
  void refundOfAnOlderReservationOrATwiceRefundedOneChangesNothing() {
    Pacer pacer = Pacer.of(1, Duration.ofSeconds(1));
    waits(pacer, 0, 3);

    pacer.refund(S); // not the newest: refusing keeps the spacing of 0 and 2 s
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(3 * S);

    pacer.refund(3 * S);
    pacer.refund(3 * S); // the second refund has no reservation left at 3 s
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(3 * S);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(4 * S);
  }

  @Test
  void refundWithBurstGivesBackEachReservationSharingTheNewestStart() {
    Pacer pacer = Pacer.builder().withRate(1, Duration.ofSeconds(1)).withBurst(3).build();
    assertThat(waits(pacer, 0, 3)).containsExactly(0L, 0L, 0L);

    pacer.refund(0);
    pacer.refund(0);

    assertThat(waits(pacer, 0, 3)).containsExactly(0L, 0L, S);
  }

  @Test
  void refundNeverLetsAnOlderBurstReservationBreakTheRate() {
    // Burst 2: A starts at 0, B at T/2. Refunding A would let C start at T/2 too, and then three
    // starts (B, C, D) would fall within less than 2 intervals.
    Pacer pacer = Pacer.builder().withRate(1, Duration.ofSeconds(1)).withBurst(2).build();
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isEqualTo(0);
    assertThat(pacer.tryAcquire(S / 2, NO_LIMIT)).isEqualTo(0);

    pacer.refund(0);

    assertThat(pacer.tryAcquire(S / 2, NO_LIMIT)).isEqualTo(S / 2);
  }

  @Test
  void scheduleConformsToGcraOverRandomSequences() {
    SplittableRandom random = new SplittableRandom(42);
    for (int run = 0; run < 300; run++) {
      long interval = 1 + random.nextLong(1_000);
      int burst = 1 + random.nextInt(4);
      long tolerance = (burst - 1) * interval;
      Pacer pacer =
          Pacer.builder().withRate(1, Duration.ofNanos(interval)).withBurst(burst).build();
      long now = random.nextLong(-1_000_000, 1_000_000);
      long pause = Long.MIN_VALUE;
      List<Long> live = new ArrayList<>();
      for (int op = 0; op < 200; op++) {
        now += random.nextLong(2 * interval);
        int kind = random.nextInt(10);
        if (kind < 7) {
          long maxWait = random.nextBoolean() ? NO_LIMIT : random.nextLong(4 * interval);
          long result = pacer.tryAcquire(now, maxWait);
          if (result >= 0) {
            assertThat(result).isLessThanOrEqualTo(maxWait);
            assertThat(now + result).isGreaterThanOrEqualTo(pause);
            live.add(now + result);
          } else {
            assertThat(-result).isGreaterThan(maxWait);
            // Refusal reserved nothing: the same call without a limit gets the refused wait.
            long retried = pacer.tryAcquire(now, -result);
            assertThat(retried).isEqualTo(-result);
            live.add(now + retried);
          }
        } else if (kind < 9 && !live.isEmpty()) {
          long reservedAt = live.get(random.nextInt(live.size()));
          long before = pacer.tryAcquire(now, 0);
          pacer.refund(reservedAt);
          live.remove(reservedAt); // even if the pacer refused the refund, nobody starts then
          if (before >= 0) {
            live.add(now);
          }
        } else {
          pause = Math.max(pause, now + random.nextLong(5 * interval));
          pacer.pauseUntil(pause);
        }
      }
      assertConformsToGcra(live, interval, tolerance);
    }
  }

  @Test
  void concurrentCallersShareOneScheduleWithoutLosingOrDoublingASlot() throws Exception {
    Pacer pacer = Pacer.builder().withRate(1, Duration.ofNanos(1_000)).withBurst(2).build();
    int threads = 4;
    int perThread = 5_000;
    ConcurrentLinkedQueue<Long> waits = new ConcurrentLinkedQueue<>();
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> workers = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      Thread worker =
          new Thread(
              () -> {
                await(start);
                for (int i = 0; i < perThread; i++) {
                  long wait = pacer.tryAcquire(0, NO_LIMIT);
                  // Some callers are cancelled at once and never start; only the newest can be
                  // refunded, and a refund that is refused leaves the schedule as it was.
                  if (i % 7 == 0) {
                    pacer.refund(wait);
                  } else {
                    waits.add(wait);
                  }
                }
              });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    List<Long> sorted = new ArrayList<>(waits);
    Collections.sort(sorted);
    int refunded = threads * ((perThread + 6) / 7);
    assertThat(sorted).hasSize(threads * perThread - refunded);
    assertThat(sorted).allMatch(at -> at % 1_000 == 0);
    assertConformsToGcra(sorted, 1_000, 1_000);
    // The schedule ends after the last kept start, and refunds never lengthen it.
    long next = pacer.tryAcquire(0, NO_LIMIT);
    assertThat(next).isGreaterThanOrEqualTo(sorted.get(sorted.size() - 1));
    assertThat(next).isLessThanOrEqualTo(threads * perThread * 1_000L);
  }

  @Test
  void builderValidatesEachValueAndNamesIt() {
    assertThatThrownBy(() -> Pacer.of(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "permits must be >= 1 (a rate of 0 would start nothing; for an adaptive pacer without"
                + " a ceiling, leave the rate unset): 0");
    assertThatThrownBy(() -> Pacer.of(1, Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("per must be > 0: -5 ms");
    assertThatThrownBy(() -> Pacer.of(1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("per must be > 0: 0 s");
    assertThatThrownBy(() -> Pacer.of(1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("per cannot be null");
    assertThatThrownBy(() -> Pacer.of(1, Duration.ofDays(365 * 300)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("per must be at most 292 years (a long of nanoseconds): 9460800000 s");
    assertThatThrownBy(() -> Pacer.builder().withBurst(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("burst must be >= 1: 0");
    assertThatThrownBy(() -> Pacer.builder().withState(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("state cannot be null");
    assertThatThrownBy(() -> Pacer.builder().withBurst(2).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("rate must be set: call withRate(permits, per), or adaptive() to learn it");
    assertThatThrownBy(
            () ->
                Pacer.builder()
                    .withRate(1, Duration.ofDays(365))
                    .withBurst(Integer.MAX_VALUE)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "burst (2147483647) times interval (31536000000000000 ns) must fit a long of"
                + " nanoseconds");
  }

  @Test
  void referenceFunctionsSaturateInsteadOfOverflowing() {
    assertThat(PacerState.earliestStart(Long.MIN_VALUE, Long.MIN_VALUE, -7, 1_000)).isEqualTo(-7);
    assertThat(PacerState.earliestStart(Long.MIN_VALUE + 5, Long.MIN_VALUE, -7, 1_000))
        .isEqualTo(-7);
    assertThat(PacerState.earliestStart(100, 50, 0, 30)).isEqualTo(70);
    assertThat(PacerState.earliestStart(100, 90, 0, 30)).isEqualTo(90);
    assertThat(PacerState.nextTheoreticalArrival(10, 5, 3)).isEqualTo(13);
    assertThat(PacerState.nextTheoreticalArrival(10, 20, 3)).isEqualTo(23);
    assertThat(PacerState.nextTheoreticalArrival(Long.MAX_VALUE - 1, 0, 3))
        .isEqualTo(Long.MAX_VALUE);

    Pacer pacer = Pacer.of(1, Duration.ofSeconds(1));
    pacer.pauseUntil(Long.MAX_VALUE);
    assertThat(pacer.tryAcquire(-S, S)).isEqualTo(-Long.MAX_VALUE);
  }

  /**
   * Starts conform to GCRA(T, tau) iff for every i &lt; j (sorted) {@code s_j - s_i >= (j - i) * T
   * - tau}; replaying them through the virtual scheduler checks all pairs in one pass.
   */
  private static void assertConformsToGcra(List<Long> starts, long interval, long tolerance) {
    List<Long> sorted = new ArrayList<>(starts);
    Collections.sort(sorted);
    long tat = Long.MIN_VALUE;
    for (int i = 0; i < sorted.size(); i++) {
      long start = sorted.get(i);
      if (tat != Long.MIN_VALUE) {
        assertThat(start)
            .as("start %d of %s (T=%d, tau=%d)", i, sorted, interval, tolerance)
            .isGreaterThanOrEqualTo(tat - tolerance);
      }
      tat = Math.max(tat, start) + interval;
    }
  }

  private static List<Long> waits(Pacer pacer, long now, int count) {
    List<Long> result = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      result.add(pacer.tryAcquire(now, NO_LIMIT));
    }
    return result;
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
