package dev.relent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ConcurrencyLimitState} must do: the rules of each operation, that the check and
 * the change of {@code tryAcquire} are one atomic step, and agreement with the one-number model
 * over random runs. A store's test extends this class and says how to make an empty state.
 */
public abstract class ConcurrencyLimitStateContract {

  /** For a store's test. */
  protected ConcurrencyLimitStateContract() {}

  /**
   * Returns a new state with no slot in use.
   *
   * @return a state no other test uses
   */
  protected abstract ConcurrencyLimitState newState();

  /**
   * Returns how many acquire-and-release rounds each racing thread makes: 20 000 by default, fewer
   * for a store whose every operation is a network round trip.
   *
   * @return rounds per thread, &ge; 1
   */
  protected int racingRounds() {
    return 20_000;
  }

  @Test
  void slotsAreTakenUpToTheMaxAndGivenBack() {
    ConcurrencyLimitState state = newState();
    assertThat(state.inUse()).isZero();

    assertThat(state.tryAcquire(3)).isTrue();
    assertThat(state.tryAcquire(3)).isTrue();
    assertThat(state.tryAcquire(3)).isTrue();
    assertThat(state.tryAcquire(3)).isFalse();
    assertThat(state.inUse()).isEqualTo(3);

    state.release();
    assertThat(state.inUse()).isEqualTo(2);
    assertThat(state.tryAcquire(3)).isTrue();
    assertThat(state.inUse()).isEqualTo(3);
  }

  @Test
  void theMaxIsTheCallersNotTheStates() {
    ConcurrencyLimitState state = newState();
    assertThat(state.tryAcquire(1)).isTrue();

    assertThat(state.tryAcquire(1)).isFalse();
    assertThat(state.tryAcquire(2)).isTrue();
    assertThat(state.tryAcquire(1)).isFalse(); // 2 in use, more than 1: still refused
    assertThat(state.inUse()).isEqualTo(2);
  }

  @Test
  void aReleaseWithNothingInUseFailsAndChangesNothing() {
    ConcurrencyLimitState state = newState();

    assertThatThrownBy(state::release)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("release() without a matching acquire");

    assertThat(state.inUse()).isZero();
    assertThat(state.tryAcquire(1)).isTrue();
    assertThat(state.inUse()).isEqualTo(1);
  }

  @Test
  void racingAcquiresTakeExactlyTheFreeSlots() throws Exception {
    for (int round = 0; round < 50; round++) {
      ConcurrencyLimitState state = newState();
      AtomicInteger taken = new AtomicInteger();

      CircuitBreakerStateContract.race(
          8,
          () -> {
            if (state.tryAcquire(5)) {
              taken.incrementAndGet();
            }
          });

      assertThat(taken.get()).isEqualTo(5);
      assertThat(state.inUse()).isEqualTo(5);
    }
  }

  @Test
  void racingAcquiresAndReleasesNeverExceedTheMaxAndLeaveNothingInUse() throws Exception {
    ConcurrencyLimitState state = newState();
    AtomicInteger held = new AtomicInteger();
    AtomicInteger mostHeld = new AtomicInteger();

    CircuitBreakerStateContract.race(
        4,
        () -> {
          for (int i = 0; i < racingRounds(); i++) {
            if (state.tryAcquire(3)) {
              mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
              held.decrementAndGet();
              state.release();
            }
          }
        });

    assertThat(mostHeld.get()).isBetween(1, 3);
    assertThat(state.inUse()).isZero();
  }

  @Test
  void agreesWithTheOneNumberModelOverRandomRuns() {
    SplittableRandom random = new SplittableRandom(7_919L);
    for (int run = 0; run < 200; run++) {
      ConcurrencyLimitState state = newState();
      int inUse = 0;
      for (int step = 0; step < 100; step++) {
        if (random.nextInt(3) == 0) {
          if (inUse == 0) {
            assertThatThrownBy(state::release)
                .as("run %d, step %d", run, step)
                .isInstanceOf(IllegalStateException.class);
          } else {
            state.release();
            inUse--;
          }
        } else {
          int max = random.nextInt(1, 6);
          boolean expected = inUse < max;
          assertThat(state.tryAcquire(max)).as("run %d, step %d", run, step).isEqualTo(expected);
          inUse += expected ? 1 : 0;
        }
        assertThat(state.inUse()).as("run %d, step %d", run, step).isEqualTo(inUse);
      }
    }
  }
}
