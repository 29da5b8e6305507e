package dev.relent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.time.FakeTime;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Test;

/**
 * An executor keeps one execution per calling thread so that a synchronous success allocates
 * nothing; that execution must not keep the executor alive once nobody else holds it, or every
 * executor a thread pool ever called would stay in memory with its guards.
 */
class ExecutorLifetimeTest {

  @Test
  void anExecutorCalledOnALiveThreadIsCollectedOnceDropped() throws InterruptedException {
    WeakReference<RelentExecutor<Integer>> dropped = callOnce();

    for (int i = 0; i < 50 && dropped.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }

    assertThat(dropped.get()).as("the executor, after one call on this thread").isNull();
  }

  @Test
  void theThreadsExecutionServesTheNextCallOfTheSameExecutor() {
    FakeTime time = new FakeTime();
    RelentExecutor<Integer> executor =
        RelentExecutor.<Integer>builder(RetryPolicy.ofDefaults()).withTime(time).build();

    assertThat(executor.get(() -> 1)).isEqualTo(1);
    assertThat(executor.get(() -> 2)).isEqualTo(2);
    assertThat(executor.counters().successes()).isEqualTo(2);
  }

  private static WeakReference<RelentExecutor<Integer>> callOnce() {
    RelentExecutor<Integer> executor =
        RelentExecutor.<Integer>builder(RetryPolicy.ofDefaults()).withTime(new FakeTime()).build();
    assertThat(executor.get(() -> 7)).isEqualTo(7);
    return new WeakReference<>(executor);
  }
}
