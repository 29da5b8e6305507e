package dev.relent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.RetryBudgetState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

class SpinLockedTest {

  /** A plain counter behind the lock: lost updates would show as a smaller total. */
  private static final class Counter extends SpinLocked {
    long value;

    void increment() {
      lock();
      long seen = value;
      Thread.onSpinWait(); // widens the window a missing lock would leave open
      value = seen + 1;
      unlock();
    }
  }

  @Test
  void threadsMoreThanProcessorsLoseNoUpdate() throws Exception {
    Counter counter = new Counter();
    int threads = 2 * Runtime.getRuntime().availableProcessors() + 2;
    int perThread = 50_000;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                  counter.increment();
                }
              });
      worker.start();
      workers.add(worker);
    }
    for (Thread worker : workers) {
      worker.join();
    }
    counter.lock();
    long total = counter.value;
    counter.unlock();
    assertThat(total).isEqualTo((long) threads * perThread);
  }

  @Test
  void aSectionThatThrowsReleasesTheLock() {
    RetryBudgetState state = RetryBudgetState.inMemory();
    RetryBudgetState.Config tenBuckets =
        new RetryBudgetState.Config(1_000_000_000L, 10, 100_000, 1);
    RetryBudgetState.Config fiveBuckets =
        new RetryBudgetState.Config(1_000_000_000L, 5, 100_000, 1);
    state.recordFirstAttempt(0, tenBuckets);

    assertThatThrownBy(() -> state.recordFirstAttempt(0, fiveBuckets))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("give each budget its own state");
    // Would spin for ever if the failed call had kept the lock.
    state.recordFirstAttempt(0, tenBuckets);
    assertThat(state.firstAttempts(0, tenBuckets)).isEqualTo(2);
  }
}
