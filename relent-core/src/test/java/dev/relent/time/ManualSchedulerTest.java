package dev.relent.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The manual scheduler's order, its clock moves, and its futures. */
class ManualSchedulerTest {
  private final FakeTime time = new FakeTime();
  private final ManualScheduler scheduler = new ManualScheduler(time);
  private final List<String> log = new ArrayList<>();

  @Test
  void runsTasksInTimeOrderMovingTheTimeToEachAndTiesInSchedulingOrder() {
    scheduler.schedule(() -> log.add("c@" + time.read()), 30);
    scheduler.schedule(() -> log.add("a@" + time.read()), 10);
    scheduler.schedule(() -> log.add("a2@" + time.read()), 10);
    scheduler.schedule(
        () -> {
          log.add("b@" + time.read());
          scheduler.schedule(() -> log.add("d@" + time.read()), 25);
          scheduler.schedule(() -> log.add("now@" + time.read()), -5);
        },
        20);
    assertThat(scheduler.runUntilIdle()).isEqualTo(6);
    assertThat(log).containsExactly("a@10", "a2@10", "b@20", "now@20", "c@30", "d@45");
    assertThat(time.read()).isEqualTo(45);
    assertThat(scheduler.delays()).hasSize(6).contains(Duration.ZERO, Duration.ofNanos(25));
  }

  @Test
  void aCancelledTaskNeitherRunsNorMovesTheTimeAndItsFutureSaysSo() throws Exception {
    Future<?> late = scheduler.schedule(() -> log.add("late"), 1_000);
    Future<?> early = scheduler.schedule(() -> log.add("early"), 10);
    assertThat(late.cancel(false)).isTrue();
    assertThat(late.cancel(false)).isFalse();
    assertThat(late.isCancelled()).isTrue();
    assertThat(late.isDone()).isTrue();
    assertThat(scheduler.pending()).isEqualTo(1);

    assertThat(scheduler.runUntilIdle()).isEqualTo(1);
    assertThat(log).containsExactly("early");
    assertThat(time.read()).isEqualTo(10);
    assertThat(early.isDone()).isTrue();
    assertThat(early.get()).isNull();
    assertThat(early.cancel(false)).isFalse();
    assertThatThrownBy(late::get).isInstanceOf(CancellationException.class);
  }

  @Test
  void aFailingTaskFailsItsFutureAndTheThreadThatAdvances() {
    IllegalStateException boom = new IllegalStateException("boom");
    Future<?> failing =
        scheduler.schedule(
            () -> {
              throw boom;
            },
            5);
    scheduler.schedule(() -> log.add("after"), 6);
    assertThatThrownBy(() -> scheduler.advance(Duration.ofNanos(10))).isSameAs(boom);
    assertThat(failing.isDone()).isTrue();
    assertThatThrownBy(failing::get).isInstanceOf(ExecutionException.class).hasCause(boom);
    // The rest is still there and runs on the next advance.
    assertThat(scheduler.advance(Duration.ofNanos(10))).isEqualTo(1);
    assertThat(log).containsExactly("after");
  }
}
