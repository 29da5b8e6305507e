package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.spi.PacerState;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * How the adaptive pacer tells another caller on the account from the server's policy ({@code 10
 * per 5 s} here): a reading that counts more of the window spent than this pacer started, or a
 * refusal before this pacer spent the quota, leaves a quarter of the policy's rate to the other
 * caller; readings that match its own starts leave nothing. On fake time.
 */
class AdaptivePacerPolicyTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long NO_LIMIT = Long.MAX_VALUE;
  private static final long QUOTA = 10;
  private static final long WINDOW = 5 * S;

  /** Three quarters of the policy's 2/s: one start every 666.7 ms. */
  private static final long HEADROOM_INTERVAL = (long) (WINDOW / QUOTA / 0.75);

  /** The ceiling, 100/s: the interval when nothing slows the pacer. */
  private static final long CEILING_INTERVAL = 10 * MS;

  private final FakeTime time = new FakeTime();

  private Pacer pacer() {
    return pacer(PacerState.inMemory());
  }

  private Pacer pacer(PacerState state) {
    return Pacer.builder()
        .adaptive()
        .withRate(100, Duration.ofSeconds(1))
        .withState(state)
        .withTime(time)
        .build();
  }

  private long intervalAt(Pacer pacer, long nanos) {
    time.advance(Duration.ofNanos(nanos - time.ticker().read()));
    return pacer.interval().toNanos();
  }

  @Test
  void aReadingThatCountsMoreSpentThanThisPacerStartedLeavesRoomForTheOtherCaller() {
    Pacer pacer = pacer();
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    // The answer to the first start: nothing left. This pacer started one; the server counts 10.
    pacer.observeQuota(0, 0, WINDOW, QUOTA, WINDOW);
    // Once the reading's reset has passed, the policy's rate less a quarter still governs.
    assertThat(intervalAt(pacer, 6 * S)).isEqualTo(HEADROOM_INTERVAL);
    // For 16 windows.
    assertThat(intervalAt(pacer, 79 * S)).isEqualTo(HEADROOM_INTERVAL);
    assertThat(intervalAt(pacer, 81 * S)).isEqualTo(CEILING_INTERVAL);
  }

  @Test
  void readingsThatMatchItsOwnStartsLeaveNoRoom() {
    Pacer pacer = pacer();
    // Twenty starts, asked for 500 ms apart (the readings may hold them back), each answered as a
    // sliding window would: the quota less this pacer's starts in the last 5 s.
    long[] starts = new long[20];
    for (int n = 0; n < starts.length; n++) {
      long at = n * 500 * MS;
      long start = at + pacer.tryAcquire(at, NO_LIMIT);
      starts[n] = start;
      long used = Arrays.stream(starts, 0, n + 1).filter(s -> s > start - WINDOW).count();
      pacer.observeQuota(start, QUOTA - used, WINDOW, QUOTA, WINDOW);
      pacer.onAccepted(start);
    }
    assertThat(intervalAt(pacer, 60 * S)).isEqualTo(CEILING_INTERVAL);
  }

  @Test
  void aRefusalBeforeThisPacerSpentTheQuotaLeavesRoomAndKeepsTheLearnedRate() {
    Pacer pacer = pacer();
    for (int n = 0; n < 3; n++) {
      assertThat(pacer.tryAcquire(n * 100 * MS, NO_LIMIT)).isZero();
    }
    // The policy alone (no remaining stated), then the third start refused: 3 of 10 spent.
    pacer.observeQuota(200 * MS, -1, -1, QUOTA, WINDOW);
    pacer.onThrottled(200 * MS, 250 * MS);
    assertThat(intervalAt(pacer, S)).isEqualTo(HEADROOM_INTERVAL);
    // Another caller's spending explains the refusal: the learned rate did not fall, and once the
    // headroom ends (16 windows) the ceiling governs again.
    assertThat(intervalAt(pacer, 81 * S)).isEqualTo(CEILING_INTERVAL);
  }

  @Test
  void aSecondRefusalInTheSameWindowLowersTheRate() {
    Pacer pacer = pacer();
    for (int n = 0; n < 3; n++) {
      assertThat(pacer.tryAcquire(n * 100 * MS, NO_LIMIT)).isZero();
    }
    pacer.observeQuota(100 * MS, -1, -1, QUOTA, WINDOW);
    pacer.onThrottled(100 * MS, 150 * MS);
    pacer.onThrottled(200 * MS, 250 * MS);
    // One refusal in a window is excused; the second says the limit is below what was stated.
    assertThat(intervalAt(pacer, 90 * S)).isGreaterThan(CEILING_INTERVAL);
  }

  @Test
  void startsOutsideTheWindowDoNotCountAsItsOwn() {
    Pacer pacer = pacer();
    // Ten starts long ago, then one now whose answer says 8 of 10 are spent: the window and a
    // quarter before it (6.25 s) hold one start of this pacer, so someone else spent 7.
    for (int n = 0; n < 10; n++) {
      assertThat(pacer.tryAcquire(n * 100 * MS, NO_LIMIT)).isZero();
    }
    assertThat(pacer.tryAcquire(30 * S, NO_LIMIT)).isZero();
    pacer.observeQuota(30 * S, 2, WINDOW, QUOTA, WINDOW);
    assertThat(intervalAt(pacer, 36 * S)).isEqualTo(HEADROOM_INTERVAL);
  }

  @Test
  void aLyingPolicyNeverMakesThePacerFasterThanItsCeilingNorSlowerThanItsSlowestRate() {
    Pacer pacer = pacer();
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    // More remaining than the quota: nothing to learn about another caller.
    pacer.observeQuota(0, 50, WINDOW, QUOTA, WINDOW);
    assertThat(intervalAt(pacer, 6 * S)).isEqualTo(CEILING_INTERVAL);
    // A quota of one per year, refused at once: the headroom is bounded by the slowest rate.
    Pacer slow = pacer();
    assertThat(slow.tryAcquire(7 * S, NO_LIMIT)).isZero();
    slow.observeQuota(7 * S, 0, 1, 1, 365L * 24 * 3600 * S);
    slow.onThrottled(7 * S, 7 * S + 50 * MS);
    assertThat(intervalAt(slow, 8 * S)).isEqualTo(2 * S);
  }

  @Test
  void aPacerWhoseScheduleIsSharedCannotTellOtherProcessesFromAStranger() {
    ForwardingPacerState shared =
        new ForwardingPacerState() {
          @Override
          public boolean isShared() {
            return true;
          }
        };
    Pacer pacer = pacer(shared);
    assertThat(pacer.tryAcquire(0, NO_LIMIT)).isZero();
    // The other processes of the fleet started the other nine: no headroom for them.
    pacer.observeQuota(0, 0, WINDOW, QUOTA, WINDOW);
    assertThat(intervalAt(pacer, 6 * S)).isEqualTo(CEILING_INTERVAL);
  }
}
