package dev.relent.sim.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class VirtualTimeTest {

  @Test
  void runsTasksInTimeOrderAndMovesTheClockToEach() {
    VirtualTime time = new VirtualTime();
    List<String> log = new ArrayList<>();
    time.schedule(() -> log.add("c@" + time.read()), 30);
    time.schedule(() -> log.add("a@" + time.read()), 10);
    time.schedule(
        () -> {
          log.add("b@" + time.read());
          time.schedule(() -> log.add("d@" + time.read()), 25);
        },
        20);
    time.run();
    assertThat(log).containsExactly("a@10", "b@20", "c@30", "d@45");
    assertThat(time.read()).isEqualTo(45);
    assertThat(time.executed()).isEqualTo(4);
  }

  @Test
  void tasksDueTogetherRunInTheOrderTheyWereScheduled() {
    VirtualTime time = new VirtualTime();
    List<Integer> log = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      int n = i;
      time.schedule(() -> log.add(n), 5);
    }
    time.run();
    assertThat(log).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void aCancelledTaskDoesNotRunAndDoesNotMoveTheClock() {
    VirtualTime time = new VirtualTime();
    List<String> log = new ArrayList<>();
    Future<?> late = time.schedule(() -> log.add("late"), 1_000);
    time.schedule(() -> log.add("early"), 10);
    assertThat(late.cancel(false)).isTrue();
    assertThat(late.isCancelled()).isTrue();
    assertThat(late.cancel(false)).isFalse();
    time.run();
    assertThat(log).containsExactly("early");
    assertThat(time.read()).isEqualTo(10);
  }

  @Test
  void aTaskInThePastRunsNowAndTheClockNeverGoesBack() {
    VirtualTime time = new VirtualTime();
    List<Long> seen = new ArrayList<>();
    time.at(
        100,
        () -> {
          time.at(50, () -> seen.add(time.read()));
          time.schedule(() -> seen.add(time.read()), -7);
        });
    time.run();
    assertThat(seen).containsExactly(100L, 100L);
  }

  @Test
  void theWallClockStartsAtTheFixedEpochAndFollowsTheTicker() {
    VirtualTime time = new VirtualTime();
    time.schedule(() -> {}, 2_500_000_000L);
    time.run();
    assertThat(time.millis()).isEqualTo(VirtualTime.EPOCH_MILLIS + 2_500);
    assertThat(time.instant().toString()).isEqualTo("2026-01-01T00:00:02.500Z");
  }

  @Test
  void eventHeapPopsInTheSameOrderAsAPriorityQueue() {
    SplittableRandom random = new SplittableRandom(7);
    for (int round = 0; round < 200; round++) {
      EventHeap heap = new EventHeap();
      PriorityQueue<long[]> reference =
          new PriorityQueue<>(
              (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
      int ops = 1 + random.nextInt(500);
      for (int i = 0; i < ops; i++) {
        if (reference.isEmpty() || random.nextInt(3) > 0) {
          long t = random.nextLong(50);
          int p = random.nextInt(1000);
          heap.push(t, p);
          reference.add(new long[] {t, p});
        } else {
          long[] expected = reference.poll();
          assertThat(new long[] {heap.peekTime(), heap.peekPayload()}).containsExactly(expected);
          heap.pop();
        }
      }
      while (!reference.isEmpty()) {
        long[] expected = reference.poll();
        assertThat(new long[] {heap.peekTime(), heap.peekPayload()}).containsExactly(expected);
        heap.pop();
      }
      assertThat(heap.isEmpty()).isTrue();
    }
  }

  @Test
  void chartTicksAreRoundAndCoverTheRange() {
    assertThat(LineChart.ticks(0, 7993)).containsExactly(0, 2000, 4000, 6000, 8000);
    assertThat(LineChart.ticks(10, 190)).containsExactly(0, 50, 100, 150, 200);
    assertThat(LineChart.ticks(0, 1)).containsExactly(0, 0.2, 0.4, 0.6000000000000001, 0.8, 1);
    assertThat(LineChart.label(12_000)).isEqualTo("12k");
    assertThat(LineChart.label(2.5)).isEqualTo("2.5");
    assertThat(LineChart.label(0.1)).isEqualTo("0.1");
    assertThat(LineChart.label(1500)).isEqualTo("1500");
  }

  @Test
  void htmlEscapesMarkupAndQuotes() {
    assertThat(Html.escape("<a href=\"x\">'&'</a>"))
        .isEqualTo("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  }
}
