package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.relent.spi.PacerState;
import org.junit.jupiter.api.Test;

/** The parts of the {@link AdaptivePacer} on their own, with exact values. */
class AdaptivePacerPartsTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long NEVER = StartHistory.NEVER;

  private final StartHistory starts = new StartHistory();
  private final PacerState state = PacerState.inMemory();
  private final Schedule schedule = new Schedule(1, 2 * S, state, starts);

  @Test
  void theHistoryMeasuresStartsPerHalfSecondSmoothed() {
    starts.record(0, false);
    starts.record(1, false);
    starts.record(2, true);
    assertThat(starts.measured()).isZero();
    // Before a whole bucket: the starts of this one over its length.
    assertThat(starts.sendRate()).isEqualTo(6.0);
    assertThat(starts.newestWaited()).isTrue();
    starts.record(500 * MS, false);
    // 0.8 of the 3 starts in the first half second, per second, and 0.2 of nothing before.
    assertThat(starts.measured()).isCloseTo(4.8, within(1e-9));
    assertThat(starts.sendRate()).isEqualTo(starts.measured());
    assertThat(starts.newestWaited()).isFalse();
    assertThat(starts.lastHalfSecondRate(600 * MS)).isEqualTo(2.0);
    assertThat(starts.startsBetween(0, 2)).isEqualTo(2);
    assertThat(starts.startsAfter(NEVER)).isEqualTo(4);
  }

  @Test
  void theHistoryForgetsOnlyTheNewestGivenBack() {
    assertThat(starts.newest()).isEqualTo(NEVER);
    starts.record(10, false);
    starts.record(20, false);
    starts.forgetNewest(10);
    assertThat(starts.newest()).isEqualTo(20);
    starts.forgetNewest(20);
    assertThat(starts.newest()).isEqualTo(10);
    starts.forgetNewest(10);
    starts.forgetNewest(10);
    assertThat(starts.newest()).isEqualTo(NEVER);
    assertThat(starts.startsAfter(NEVER)).isZero();
  }

  @Test
  void theHistoryKnowsWhenItForgotAStart() {
    for (int i = 0; i < StartHistory.RECENT; i++) {
      starts.record(i, false);
    }
    assertThat(starts.remembersAllAfter(NEVER)).isFalse();
    assertThat(starts.remembersAllAfter(0)).isTrue();
    starts.record(StartHistory.RECENT, false);
    assertThat(starts.remembersAllAfter(0)).isFalse();
    assertThat(starts.remembersAllAfter(1)).isTrue();
    assertThat(starts.startsAfter(NEVER)).isEqualTo(StartHistory.RECENT);
  }

  @Test
  void theScheduleBoundsWhatTheControllerLearns() {
    assertThat(schedule.learnedNanos()).isEqualTo(1);
    schedule.learn(5 * S);
    assertThat(schedule.learnedNanos()).isEqualTo(2 * S);
    schedule.learn(0);
    assertThat(schedule.learnedNanos()).isEqualTo(1);
    schedule.learn(300 * MS);
    assertThat(schedule.learnedNanos()).isEqualTo(300 * MS);
    assertThat(schedule.slowestRate()).isEqualTo(0.5);
    assertThat(Schedule.intervalOf(3)).isEqualTo(333_333_334L);
    assertThat(Schedule.intervalOf(0)).isEqualTo(Long.MAX_VALUE);
    assertThat(Schedule.intervalOf(2e9)).isEqualTo(1);
  }

  @Test
  void aQuotaReadingIsAFloorUntilItsResetAveragedAQuarterAtATime() {
    QuotaReading reading = new QuotaReading(starts, schedule, false, true);
    assertThat(reading.inForceAt(0)).isFalse();
    reading.read(0, 0, 9, S, -1);
    // 9 left in the second after the send: ceil(1 s / 9).
    assertThat(reading.floorNanos()).isEqualTo(111_111_112L);
    assertThat(reading.rateNanos()).isEqualTo(100 * MS);
    assertThat(reading.inForceAt(S - 1)).isTrue();
    assertThat(reading.inForceAt(S)).isFalse();
    // 8 left in the 900 ms after 100 ms (112.5 ms apart): a quarter of it goes in.
    reading.read(100 * MS, 100 * MS, 8, 900 * MS, -1);
    assertThat(reading.floorNanos()).isEqualTo(111_111_112L - 111_111_112L / 4 + 112_500_000L / 4);
    assertThat(reading.resetNanos()).isEqualTo(900 * MS);
  }

  @Test
  void aQuotaReadingAllowsTheStartsItCounted() {
    QuotaReading reading = new QuotaReading(starts, schedule, false, true);
    assertThat(reading.resetAllowing(10 * MS)).isEqualTo(-1);
    reading.read(0, 0, 1, S, -1);
    assertThat(reading.resetAllowing(10 * MS)).isEqualTo(S);
    // The reading of the start's own answer did not allow it; none was read before it.
    assertThat(reading.resetAllowing(0)).isEqualTo(-1);
    assertThat(reading.resetAllowing(S)).isEqualTo(-1);
    starts.record(5 * MS, false);
    starts.record(6 * MS, false);
    // Two of this pacer's starts since the reading: more than the one it allowed.
    assertThat(reading.resetAllowing(10 * MS)).isEqualTo(-1);
  }

  @Test
  void aStartSentWithinTheReadingsRoundTripBeforeItMayHaveReachedTheServerAfterIt() {
    QuotaReading reading = new QuotaReading(starts, schedule, false, true);
    starts.record(90 * MS, false);
    starts.record(100 * MS, false);
    // The start at 100 ms was answered at 120 ms with 1 left: the one sent at 90 ms may have been
    // counted after it, so a refusal at 110 ms is this pacer's own doing, not another caller's.
    reading.read(100 * MS, 120 * MS, 1, S, -1);
    starts.record(110 * MS, false);
    assertThat(reading.resetAllowing(110 * MS)).isEqualTo(-1);
    // Sent 30 ms before the reading, the start at 90 ms was surely counted by then.
    QuotaReading quick = new QuotaReading(starts, schedule, false, true);
    quick.read(100 * MS, 105 * MS, 1, S, -1);
    assertThat(quick.resetAllowing(110 * MS)).isEqualTo(S);
    // A server's time to answer reorders nothing: a second's round trip looks back 25 ms only,
    // not to the starts at 90 to 110 ms.
    starts.record(150 * MS, false);
    QuotaReading late = new QuotaReading(starts, schedule, false, true);
    late.read(150 * MS, 1150 * MS, 1, S, -1);
    starts.record(160 * MS, false);
    assertThat(late.resetAllowing(160 * MS)).isEqualTo(S);
  }

  @Test
  void aQuotaWithNoneLeftHoldsTheStartsBookedFromThenOnUntilItsReset() {
    QuotaReading reading = new QuotaReading(starts, schedule, true, true);
    reading.read(0, 0, 5, S, -1);
    for (int i = 1; i <= 5; i++) {
      starts.record(i * MS, false);
    }
    // The five starts booked since the reading take the five it left: none before the reset,
    // which counts from the answer (2 ms), not from the send a round trip before it.
    reading.read(1 * MS, 2 * MS, 4, S - MS, -1);
    assertThat(state.pausedUntil()).isEqualTo(S + MS);
    // The floor of the reading before stays (1 s over 5): not the whole span to the reset, which
    // would space every start booked before the reset a span apart.
    assertThat(reading.floorNanos()).isEqualTo(200 * MS);
  }

  @Test
  void anotherCallerIsLeftHeadroomAndExcusedOnceAWindow() {
    QuotaReading reading = new QuotaReading(starts, schedule, false, true);
    OtherCaller other = new OtherCaller(starts, reading, schedule);
    assertThat(other.headroomNanos(0, false)).isZero();
    // 5 of 10 spent in the window, none of them by this pacer.
    other.readPolicy(S, 5, 10 * S, 10, 10 * S);
    // A quarter of the policy's rate (one per second) left: 1.33 s apart, bounded at 2 s.
    assertThat(other.headroomNanos(2 * S, false)).isEqualTo(1_333_333_333L);
    assertThat(other.excuses(2 * S, 2 * S)).isTrue();
    assertThat(other.excuses(3 * S, 3 * S)).isFalse();
    assertThat(other.excuses(13 * S, 13 * S)).isTrue();
    // Each refusal it explained saw it again: 16 windows after the last, the headroom is gone.
    assertThat(other.headroomNanos(173 * S - 1, false)).isEqualTo(1_333_333_333L);
    assertThat(other.headroomNanos(173 * S, false)).isZero();
  }
}
