package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.RetryBudgetState;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  @Test
  void defaultsAllowTenPercentPlusTenPerSecondOverTenSeconds() {
    RetryBudget budget = RetryBudget.ofDefaults();

    assertThat(budget.limit(0)).isEqualTo(100);
    assertThat(budget.available(0)).isEqualTo(100);
    firsts(budget, 0, 1000);
    assertThat(budget.limit(0)).isEqualTo(200);
    assertThat(retries(budget, 0, 250)).isEqualTo(200);
    assertThat(budget.available(0)).isZero();
    assertThat(budget.limit(0)).isEqualTo(200);
    assertThat(budget.toString())
        .isEqualTo("RetryBudget[ratio=0.1, window=10 s, minRetries=100 per window]");
  }

  @Test
  void inspectionReadsTheBudgetsOwnTimeSource() {
    FakeTime time = new FakeTime();
    RetryBudget budget =
        RetryBudget.builder()
            .withRatio(0.5)
            .withMinRetriesPerSecond(0)
            .withWindow(Duration.ofSeconds(10))
            .withTime(time)
            .build();
    firsts(budget, 0, 10);
    assertThat(retries(budget, 0, 2)).isEqualTo(2);

    assertThat(budget.limit()).isEqualTo(5);
    assertThat(budget.available()).isEqualTo(3);
    time.advance(Duration.ofSeconds(10)); // the window has moved past them all
    assertThat(budget.limit()).isZero();
    assertThat(budget.available()).isZero();
    assertThatThrownBy(() -> RetryBudget.builder().withTime(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("time cannot be null");
  }

  @Test
  void floorLetsAQuietClientRetry() {
    RetryBudget budget = RetryBudget.builder().withMinRetriesPerSecond(1).build();

    assertThat(budget.tryAcquireRetry(0)).isTrue();
    assertThat(retries(budget, 5 * S, 20)).isEqualTo(9);
    assertThat(budget.available(5 * S)).isZero();
  }

  @Test
  void tenPercentIsExactWithoutFloor() {
    RetryBudget budget = RetryBudget.builder().withMinRetriesPerSecond(0).build();

    firsts(budget, 0, 9);
    assertThat(budget.limit(0)).isZero();
    assertThat(budget.tryAcquireRetry(0)).isFalse();
    firsts(budget, 0, 1);
    assertThat(budget.limit(0)).isEqualTo(1);
    firsts(budget, 0, 990);
    assertThat(budget.limit(0)).isEqualTo(100);
    assertThat(retries(budget, 0, 101)).isEqualTo(100);
  }

  @Test
  void ratioIsKeptInMillionthsSoItIsExact() {
    // 0.29 * 100 is 28.999999999999996 in doubles.
    RetryBudget budget = RetryBudget.builder().withRatio(0.29).withMinRetriesPerSecond(0).build();
    firsts(budget, 0, 100);

    assertThat(budget.limit(0)).isEqualTo(29);
  }

  @Test
  void zeroRatioLeavesOnlyTheFloor() {
    RetryBudget budget = RetryBudget.builder().withRatio(0).withMinRetriesPerSecond(2).build();
    firsts(budget, 0, 1_000_000);

    assertThat(budget.limit(0)).isEqualTo(20);
  }

  @Test
  void windowSlidesBucketByBucket() {
    RetryBudget budget = RetryBudget.builder().withMinRetriesPerSecond(0).build();
    firsts(budget, 0, 1000);
    assertThat(retries(budget, 500 * MS, 100)).isEqualTo(100);

    firsts(budget, 5 * S, 1000);
    assertThat(budget.limit(5 * S)).isEqualTo(200);
    assertThat(budget.available(5 * S)).isEqualTo(100);
    // The first bucket [0, 1 s) is in the window until 10 s, then its deposits and retries leave.
    assertThat(budget.limit(10 * S - 1)).isEqualTo(200);
    assertThat(budget.available(10 * S - 1)).isEqualTo(100);
    assertThat(budget.limit(10 * S)).isEqualTo(100);
    assertThat(budget.available(10 * S)).isEqualTo(100);
    assertThat(budget.limit(15 * S)).isZero();
    assertThat(budget.tryAcquireRetry(15 * S)).isFalse();
  }

  @Test
  void aLateFirstAttemptCountsInItsOwnBucketWhileThatIsInTheWindow() {
    RetryBudget budget = RetryBudget.builder().withMinRetriesPerSecond(0).build();
    firsts(budget, 9 * S, 10);

    firsts(budget, S, 10); // read before another thread's 9 s, reported after it
    firsts(budget, -S, 10); // older than the window: dropped

    assertThat(budget.limit(9 * S)).isEqualTo(2);
    assertThat(budget.limit(11 * S)).isEqualTo(1);
  }

  @Test
  void refusalChangesNothing() {
    RetryBudget budget = RetryBudget.builder().withMinRetriesPerSecond(0).build();
    firsts(budget, 0, 50);
    assertThat(retries(budget, 0, 5)).isEqualTo(5);

    for (int i = 0; i < 1000; i++) {
      assertThat(budget.tryAcquireRetry(0)).isFalse();
    }

    assertThat(budget.available(0)).isZero();
    firsts(budget, 0, 10);
    assertThat(budget.available(0)).isEqualTo(1);
    assertThat(budget.tryAcquireRetry(0)).isTrue();
  }

  @Test
  void budgetsBuiltWithOneStateShareIt() {
    RetryBudgetState state = RetryBudgetState.inMemory();
    RetryBudget one = RetryBudget.builder().withMinRetriesPerSecond(0).withState(state).build();
    RetryBudget two = RetryBudget.builder().withMinRetriesPerSecond(0).withState(state).build();
    firsts(one, 0, 20);

    assertThat(two.tryAcquireRetry(0)).isTrue();
    assertThat(one.tryAcquireRetry(0)).isTrue();
    assertThat(two.tryAcquireRetry(0)).isFalse();

    RetryBudget other =
        RetryBudget.builder().withWindow(Duration.ofSeconds(1)).withState(state).build();
    assertThatThrownBy(() -> other.tryAcquireRetry(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "this retry budget state counts over 10 buckets of 1000000000 ns and cannot also"
                + " count over 10 buckets of 100000000 ns: give each budget its own state");
  }

  @Test
  void windowNotAMultipleOfTenNanosIsRoundedDownAndTheFloorFollowsIt() {
    RetryBudget budget =
        RetryBudget.builder()
            .withWindow(Duration.ofMillis(1500).plusNanos(7))
            .withMinRetriesPerSecond(3)
            .build();

    assertThat(budget.limit(0)).isEqualTo(4); // floor(3 * 1.5)
    assertThat(RetryBudget.Builder.floorRetries(Integer.MAX_VALUE, Long.MAX_VALUE))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(RetryBudget.Builder.floorRetries(7, 2_500_000_000L)).isEqualTo(17);
  }

  @Test
  void limitSaturatesInsteadOfOverflowing() {
    RetryBudgetState.Config config = new RetryBudgetState.Config(1, 1, 1_000_000_000L, 5);

    assertThat(RetryBudgetState.limit(0, config)).isEqualTo(5);
    assertThat(RetryBudgetState.limit(3, config)).isEqualTo(3_000 + 5);
    assertThat(RetryBudgetState.limit(Long.MAX_VALUE, config)).isEqualTo(Long.MAX_VALUE);
    assertThat(
            RetryBudgetState.limit(
                1_234_567, new RetryBudgetState.Config(1, 1, 333_333, Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(RetryBudgetState.limit(1_234_567, new RetryBudgetState.Config(1, 1, 333_333, 0)))
        .isEqualTo(411_521); // floor(1 234 567 * 0.333333) = floor(411 521.59...)
  }

  @Test
  void builderValidatesEachValueAndNamesIt() {
    assertThatThrownBy(() -> RetryBudget.builder().withRatio(-0.1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ratio must be between 0 and 1000: -0.1");
    assertThatThrownBy(() -> RetryBudget.builder().withRatio(1000.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ratio must be between 0 and 1000: 1000.5");
    assertThatThrownBy(() -> RetryBudget.builder().withRatio(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ratio must be between 0 and 1000: NaN");
    assertThatThrownBy(() -> RetryBudget.builder().withRatio(1e-9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ratio must be 0 or at least 0.000001: 1.0E-9");
    assertThatThrownBy(() -> RetryBudget.builder().withWindow(Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must be > 0: -5 ms");
    assertThatThrownBy(() -> RetryBudget.builder().withWindow(Duration.ofNanos(999_999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must be >= 1 ms: 999999 ns");
    assertThatThrownBy(() -> RetryBudget.builder().withWindow(Duration.ofNanos(5_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("window must be >= 1 ms: 5 us");
    assertThatThrownBy(() -> RetryBudget.builder().withWindow(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("window cannot be null");
    assertThatThrownBy(() -> RetryBudget.builder().withMinRetriesPerSecond(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minRetriesPerSecond must be >= 0: -1");
    assertThatThrownBy(() -> RetryBudget.builder().withState(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("state cannot be null");
    assertThatThrownBy(() -> new RetryBudgetState.Config(0, 10, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucketNanos must be > 0: 0 ns");
    assertThatThrownBy(() -> new RetryBudgetState.Config(1, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("buckets must be > 0: 0");
    assertThatThrownBy(() -> new RetryBudgetState.Config(1, 1, -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ratioMillionths must be >= 0: -1");
    assertThatThrownBy(() -> new RetryBudgetState.Config(1, 1, 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minRetries must be >= 0: -1");
  }

  /** Compares every decision with a model that keeps every event and recounts the window. */
  @Test
  void decisionsMatchANaiveModelOverRandomSequences() {
    SplittableRandom random = new SplittableRandom(7);
    for (int run = 0; run < 200; run++) {
      double ratio = random.nextInt(4) == 0 ? 0 : random.nextInt(1, 500_000) / 1_000_000d;
      int floor = random.nextInt(4);
      long windowNanos = 1_000_000L * random.nextInt(1, 50);
      RetryBudget budget =
          RetryBudget.builder()
              .withRatio(ratio)
              .withMinRetriesPerSecond(floor)
              .withWindow(Duration.ofNanos(windowNanos))
              .build();
      long bucket = windowNanos / 10;
      long ratioMillionths = Math.round(ratio * 1e6);
      long reserve = floor * windowNanos / 1_000_000_000L;
      List<long[]> events = new ArrayList<>(); // {bucket index, 0 = first / 1 = retry}
      long now = random.nextLong(-windowNanos, windowNanos);
      long head = Math.floorDiv(now, bucket);
      for (int op = 0; op < 400; op++) {
        now += random.nextLong(windowNanos / 8);
        head = Math.max(head, Math.floorDiv(now, bucket));
        long newest = head;
        events.removeIf(e -> e[0] <= newest - 10); // gone for good: the window never moves back
        long firsts = events.stream().filter(e -> e[0] > newest - 10 && e[1] == 0).count();
        long retries = events.stream().filter(e -> e[0] > newest - 10 && e[1] == 1).count();
        long limit = reserve + firsts * ratioMillionths / 1_000_000L;
        assertThat(budget.limit(now)).as("run %d op %d", run, op).isEqualTo(limit);
        assertThat(budget.available(now)).isEqualTo(Math.max(0, limit - retries));
        if (random.nextInt(3) == 0) {
          boolean allowed = budget.tryAcquireRetry(now);
          assertThat(allowed).as("run %d op %d", run, op).isEqualTo(retries < limit);
          if (allowed) {
            events.add(new long[] {head, 1});
          }
        } else {
          budget.recordFirstAttempt(now);
          events.add(new long[] {Math.floorDiv(now, bucket), 0});
        }
      }
    }
  }

  @Test
  void concurrentRetriesNeverExceedTheLimit() throws Exception {
    RetryBudget budget = RetryBudget.builder().withMinRetriesPerSecond(0).build();
    int threads = 4;
    AtomicLong granted = new AtomicLong();
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> workers = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      Thread worker =
          new Thread(
              () -> {
                await(start);
                for (int i = 0; i < 20_000; i++) {
                  budget.recordFirstAttempt(i);
                  if (budget.tryAcquireRetry(i)) {
                    granted.incrementAndGet();
                  }
                }
              });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    // 80 000 first attempts earn 8 000 retries; every one of them was taken, none more.
    assertThat(granted.get()).isEqualTo(8_000);
    assertThat(budget.limit(20_000)).isEqualTo(8_000);
    assertThat(budget.available(20_000)).isZero();
  }

  private static void firsts(RetryBudget budget, long now, int count) {
    for (int i = 0; i < count; i++) {
      budget.recordFirstAttempt(now);
    }
  }

  private static int retries(RetryBudget budget, long now, int tries) {
    int granted = 0;
    for (int i = 0; i < tries; i++) {
      if (budget.tryAcquireRetry(now)) {
        granted++;
      }
    }
    return granted;
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
