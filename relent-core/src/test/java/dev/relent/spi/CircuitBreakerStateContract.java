package dev.relent.spi;

import static dev.relent.spi.CircuitBreakerState.PERMITTED_AND_HALF_OPENED;
import static dev.relent.spi.CircuitBreakerState.Phase.CLOSED;
import static dev.relent.spi.CircuitBreakerState.Phase.HALF_OPEN;
import static dev.relent.spi.CircuitBreakerState.Phase.OPEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.CircuitBreakerState.Change;
import dev.relent.spi.CircuitBreakerState.Config;
import dev.relent.spi.CircuitBreakerState.Phase;
import dev.relent.spi.CircuitBreakerState.Snapshot;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What every {@link CircuitBreakerState} must do: each operation's rules, that each is atomic, and
 * that a state agrees with the reference model (the pseudo-code of the interface, written out in
 * {@link Model}) over many random runs. A store's test extends this class and says how to make an
 * empty state.
 */
public abstract class CircuitBreakerStateContract {
  /** Open duration of the small configuration, ns. */
  protected static final long D = 1_000;

  private static final long S = 1_000_000_000L;

  /** 50 % of the last 10 calls, at least 4, open 1000 ns, 2 probes. */
  protected static final Config SMALL = new Config(10, 0, 0, 4, 50.0, D, 2);

  /** 50 % over 10 buckets of 1 s, at least 4 calls, open 1000 ns, 2 probes. */
  protected static final Config TIMED = new Config(0, S, 10, 4, 50.0, D, 2);

  /** For a store's test. */
  protected CircuitBreakerStateContract() {}

  /**
   * Returns a new, empty state: closed, with nothing counted.
   *
   * @return a state no other test uses
   */
  protected abstract CircuitBreakerState newState();

  // ---- each operation ----------------------------------------------------------------------

  @Test
  void aNewStateIsClosedEmptyAndPermitsCalls() {
    CircuitBreakerState state = newState();

    assertThat(state.snapshot(0, SMALL)).isEqualTo(new Snapshot(CLOSED, 0, 0, 0, 0, null, 0));
    assertThat(state.tryAcquirePermission(0, SMALL)).isZero();
    assertThat(state.snapshot(0, SMALL)).isEqualTo(new Snapshot(CLOSED, 0, 0, 0, 0, null, 0));
  }

  @Test
  void theOutcomeThatCrossesTheThresholdOpensAndSaysSoOnce() {
    CircuitBreakerState state = newState();
    assertThat(state.onSuccess(5, SMALL)).isNull();
    assertThat(state.onFailure(5, SMALL)).isNull();
    assertThat(state.onFailure(5, SMALL)).isNull(); // 2 of 3: below the minimum of 4

    assertThat(state.onSuccess(7, SMALL)).isEqualTo(Change.CLOSED_TO_OPEN); // 2 of 4 = 50 %

    assertThat(state.onFailure(8, SMALL)).isNull(); // open: ignored
    assertThat(state.snapshot(8, SMALL)).isEqualTo(new Snapshot(OPEN, 4, 2, 0, 0, null, D - 1));
    assertThat(state.tryAcquirePermission(8, SMALL)).isEqualTo(D - 1); // opened at 7
  }

  @Test
  void openRefusesWithTheTimeLeftAndThePermissionThatNoticesTheEndHalfOpens() {
    CircuitBreakerState state = openedAt(100, SMALL);

    assertThat(state.tryAcquirePermission(100, SMALL)).isEqualTo(D);
    assertThat(state.tryAcquirePermission(100 + D - 1, SMALL)).isEqualTo(1);
    assertThat(state.tryAcquirePermission(100 + D, SMALL)).isEqualTo(PERMITTED_AND_HALF_OPENED);
    assertThat(state.tryAcquirePermission(100 + D, SMALL)).isZero();
    assertThat(state.tryAcquirePermission(100 + D, SMALL)).isEqualTo(D); // both probe slots taken
    assertThat(state.snapshot(100 + D, SMALL))
        .isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 2, 0, null, 0));
  }

  @Test
  void aSnapshotMakesTheLazyTransitionAndReportsItOnce() {
    CircuitBreakerState state = openedAt(0, SMALL);

    assertThat(state.snapshot(D - 1, SMALL)).isEqualTo(new Snapshot(OPEN, 4, 4, 0, 0, null, 1));
    assertThat(state.snapshot(D, SMALL))
        .isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 0, 0, Change.OPEN_TO_HALF_OPEN, 0));
    assertThat(state.snapshot(D, SMALL)).isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 0, 0, null, 0));
    assertThat(state.tryAcquirePermission(D, SMALL)).isZero(); // already half-open
  }

  @Test
  void whenEveryProbeSucceedsItClosesWithAnEmptyWindow() {
    CircuitBreakerState state = halfOpenWithBothProbesOut();

    assertThat(state.onSuccess(D + 1, SMALL)).isNull();
    assertThat(state.snapshot(D + 1, SMALL))
        .isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 1, 1, null, 0));
    assertThat(state.tryAcquirePermission(D + 1, SMALL)).isEqualTo(D); // succeeded ones count
    assertThat(state.onSuccess(D + 2, SMALL)).isEqualTo(Change.HALF_OPEN_TO_CLOSED);

    assertThat(state.snapshot(D + 2, SMALL)).isEqualTo(new Snapshot(CLOSED, 0, 0, 0, 0, null, 0));
    assertThat(state.onFailure(D + 3, SMALL)).isNull(); // 1 of 1: below the minimum again
  }

  @Test
  void aProbeFailureOpensForANewPeriod() {
    CircuitBreakerState state = halfOpenWithBothProbesOut();

    assertThat(state.onFailure(D + 10, SMALL)).isEqualTo(Change.HALF_OPEN_TO_OPEN);

    assertThat(state.onSuccess(D + 11, SMALL)).isNull(); // the other probe, reported while open
    assertThat(state.snapshot(D + 11, SMALL))
        .isEqualTo(new Snapshot(OPEN, 4, 4, 0, 0, null, D - 1));
    assertThat(state.tryAcquirePermission(D + 11, SMALL)).isEqualTo(D - 1);
    assertThat(state.tryAcquirePermission(2 * D + 10, SMALL)).isEqualTo(PERMITTED_AND_HALF_OPENED);
  }

  @Test
  void outcomesOfCallsThatAreNotProbesAreIgnoredWhileHalfOpen() {
    CircuitBreakerState state = openedAt(0, SMALL);
    state.snapshot(D, SMALL); // half-open, no probe out

    assertThat(state.onSuccess(D, SMALL)).isNull();
    assertThat(state.onFailure(D, SMALL)).isNull();

    assertThat(state.snapshot(D, SMALL)).isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 0, 0, null, 0));
  }

  @Test
  void releaseFreesAProbeSlotOnlyAndRecordsNothing() {
    CircuitBreakerState state = newState();
    state.releasePermission(SMALL); // closed: nothing to free
    assertThat(state.snapshot(0, SMALL)).isEqualTo(new Snapshot(CLOSED, 0, 0, 0, 0, null, 0));
    state = halfOpenWithBothProbesOut();

    state.releasePermission(SMALL);
    assertThat(state.snapshot(D, SMALL)).isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 1, 0, null, 0));
    state.releasePermission(SMALL);
    state.releasePermission(SMALL); // nothing more to free

    assertThat(state.snapshot(D, SMALL)).isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 0, 0, null, 0));
  }

  @Test
  void aTimeWindowForgetsABucketAfterTheWholeWindowAndDropsAnOutcomeOlderThanIt() {
    CircuitBreakerState state = newState();
    state.onFailure(0, TIMED);
    state.onFailure(S - 1, TIMED);
    assertThat(state.onSuccess(10 * S - 1, TIMED)).isNull();
    assertThat(state.snapshot(10 * S - 1, TIMED))
        .isEqualTo(new Snapshot(CLOSED, 3, 2, 0, 0, null, 0));

    assertThat(state.snapshot(10 * S, TIMED)).isEqualTo(new Snapshot(CLOSED, 1, 0, 0, 0, null, 0));
    assertThat(state.onFailure(S / 2, TIMED)).isNull(); // its bucket has left the window: dropped
    assertThat(state.onFailure(9 * S, TIMED)).isNull(); // late but still in the window
    assertThat(state.snapshot(10 * S, TIMED)).isEqualTo(new Snapshot(CLOSED, 2, 1, 0, 0, null, 0));
  }

  @Test
  void aTimeWindowFreezesWhileOpen() {
    CircuitBreakerState state = openedAt(0, TIMED);

    assertThat(state.snapshot(60 * S, TIMED))
        .isEqualTo(new Snapshot(HALF_OPEN, 4, 4, 0, 0, Change.OPEN_TO_HALF_OPEN, 0));
  }

  // ---- atomicity ---------------------------------------------------------------------------

  @Test
  void racingFailuresOpenExactlyOnceAndCountNoMoreThanTheOneThatOpened() throws Exception {
    for (int round = 0; round < 50; round++) {
      CircuitBreakerState state = newState();
      AtomicInteger opened = new AtomicInteger();

      race(
          8,
          () -> {
            if (state.onFailure(0, SMALL) == Change.CLOSED_TO_OPEN) {
              opened.incrementAndGet();
            }
          });

      assertThat(opened.get()).isEqualTo(1);
      assertThat(state.snapshot(0, SMALL)).isEqualTo(new Snapshot(OPEN, 4, 4, 0, 0, null, D));
    }
  }

  @Test
  void racingPermissionsGrantExactlyTheProbesAndHalfOpenOnce() throws Exception {
    Config threeProbes = new Config(10, 0, 0, 4, 50.0, D, 3);
    for (int round = 0; round < 50; round++) {
      CircuitBreakerState state = openedAt(0, threeProbes);
      AtomicInteger permitted = new AtomicInteger();
      AtomicInteger halfOpened = new AtomicInteger();

      race(
          8,
          () -> {
            long result = state.tryAcquirePermission(D, threeProbes);
            if (result <= 0) {
              permitted.incrementAndGet();
            }
            if (result == PERMITTED_AND_HALF_OPENED) {
              halfOpened.incrementAndGet();
            }
          });

      assertThat(permitted.get()).isEqualTo(3);
      assertThat(halfOpened.get()).isEqualTo(1);
    }
  }

  @Test
  void racingProbeOutcomesCloseExactlyOnce() throws Exception {
    Config threeProbes = new Config(10, 0, 0, 4, 50.0, D, 3);
    for (int round = 0; round < 50; round++) {
      CircuitBreakerState state = openedAt(0, threeProbes);
      for (int i = 0; i < 3; i++) {
        assertThat(state.tryAcquirePermission(D, threeProbes)).isLessThanOrEqualTo(0);
      }
      AtomicInteger closed = new AtomicInteger();

      race(
          3,
          () -> {
            if (state.onSuccess(D, threeProbes) == Change.HALF_OPEN_TO_CLOSED) {
              closed.incrementAndGet();
            }
          });

      assertThat(closed.get()).isEqualTo(1);
      assertThat(state.snapshot(D, threeProbes))
          .isEqualTo(new Snapshot(CLOSED, 0, 0, 0, 0, null, 0));
    }
  }

  // ---- the reference model -----------------------------------------------------------------

  @Test
  void agreesWithTheReferenceModelOverRandomRuns() {
    SplittableRandom random = new SplittableRandom(20_240_611L);
    for (int run = 0; run < 400; run++) {
      Config config = randomConfig(random);
      CircuitBreakerState state = newState();
      Model model = new Model(config);
      long now = random.nextLong(-5_000, 5_000);
      for (int step = 0; step < 200; step++) {
        // Time never goes back here, so no late outcome: those are covered by the table above.
        now += random.nextInt(4) == 0 ? random.nextLong(0, 2 * config.openDurationNanos()) : 0;
        if (!config.isCountWindow() && random.nextInt(8) == 0) {
          now += random.nextLong(0, config.bucketNanos() * (config.buckets() + 1L));
        }
        switch (random.nextInt(5)) {
          case 0:
            assertThat(state.tryAcquirePermission(now, config))
                .as("run %d, step %d, %s", run, step, config)
                .isEqualTo(model.tryAcquirePermission(now));
            break;
          case 1:
            assertThat(state.onSuccess(now, config))
                .as("run %d, step %d, %s", run, step, config)
                .isEqualTo(model.outcome(false, now));
            break;
          case 2:
            assertThat(state.onFailure(now, config))
                .as("run %d, step %d, %s", run, step, config)
                .isEqualTo(model.outcome(true, now));
            break;
          case 3:
            state.releasePermission(config);
            model.releasePermission();
            break;
          default:
            assertThat(state.snapshot(now, config))
                .as("run %d, step %d, %s", run, step, config)
                .isEqualTo(model.snapshot(now));
        }
      }
      assertThat(state.snapshot(now, config)).isEqualTo(model.snapshot(now));
    }
  }

  private static Config randomConfig(SplittableRandom random) {
    double[] thresholds = {1.0, 25.0, 33.3, 50.0, 66.7, 100.0, random.nextDouble(0.5, 100.0)};
    double threshold = thresholds[random.nextInt(thresholds.length)];
    long openDuration = random.nextLong(1, 300);
    int probes = random.nextInt(1, 4);
    if (random.nextBoolean()) {
      int calls = random.nextInt(1, 9);
      return new Config(calls, 0, 0, random.nextInt(1, calls + 1), threshold, openDuration, probes);
    }
    return new Config(
        0,
        random.nextLong(1, 200),
        random.nextInt(1, 6),
        random.nextInt(1, 8),
        threshold,
        openDuration,
        probes);
  }

  /**
   * The pseudo-code of {@link CircuitBreakerState}, as plainly as possible, for times that never go
   * back: the window is a list of outcomes, and a time window drops the ones whose bucket has left.
   */
  private static final class Model {
    final Config config;
    final ArrayDeque<long[]> window = new ArrayDeque<>(); // {bucket or 0, 1 if failure}
    Phase mode = CLOSED;
    long openedAt;
    int inFlight;
    int succeeded;

    Model(Config config) {
      this.config = config;
    }

    long tryAcquirePermission(long now) {
      if (mode == CLOSED) {
        return 0;
      }
      boolean halfOpened = false;
      if (mode == OPEN) {
        long left = CircuitBreakerState.openNanosLeft(openedAt, now, config);
        if (left > 0) {
          return left;
        }
        enter(HALF_OPEN);
        halfOpened = true;
      }
      if (inFlight + succeeded < config.halfOpenProbes()) {
        inFlight++;
        return halfOpened ? PERMITTED_AND_HALF_OPENED : 0;
      }
      return config.openDurationNanos();
    }

    Change outcome(boolean failure, long now) {
      if (mode == CLOSED) {
        if (config.isCountWindow()) {
          if (window.size() == config.windowCalls()) {
            window.removeFirst();
          }
          window.addLast(new long[] {0, failure ? 1 : 0});
        } else {
          slide(now);
          window.addLast(new long[] {Math.floorDiv(now, config.bucketNanos()), failure ? 1 : 0});
        }
        if (CircuitBreakerState.shouldOpen(window.size(), failures(), config)) {
          openedAt = now;
          enter(OPEN);
          return Change.CLOSED_TO_OPEN;
        }
        return null;
      }
      if (mode == HALF_OPEN && inFlight > 0) {
        if (failure) {
          openedAt = now;
          enter(OPEN);
          return Change.HALF_OPEN_TO_OPEN;
        }
        inFlight--;
        succeeded++;
        if (succeeded >= config.halfOpenProbes()) {
          window.clear();
          enter(CLOSED);
          return Change.HALF_OPEN_TO_CLOSED;
        }
      }
      return null;
    }

    void releasePermission() {
      if (mode == HALF_OPEN && inFlight > 0) {
        inFlight--;
      }
    }

    Snapshot snapshot(long now) {
      Change change = null;
      if (mode == OPEN && CircuitBreakerState.openNanosLeft(openedAt, now, config) == 0) {
        enter(HALF_OPEN);
        change = Change.OPEN_TO_HALF_OPEN;
      }
      if (mode == CLOSED && !config.isCountWindow()) {
        slide(now);
      }
      long left = mode == OPEN ? CircuitBreakerState.openNanosLeft(openedAt, now, config) : 0;
      return new Snapshot(mode, window.size(), failures(), inFlight, succeeded, change, left);
    }

    private void slide(long now) {
      long oldestKept = Math.floorDiv(now, config.bucketNanos()) - config.buckets() + 1;
      window.removeIf(outcome -> outcome[0] < oldestKept);
    }

    private long failures() {
      return window.stream().filter(outcome -> outcome[1] == 1).count();
    }

    private void enter(Phase to) {
      mode = to;
      inFlight = 0;
      succeeded = 0;
    }
  }

  // ---- the reference functions and the configuration ---------------------------------------

  @Test
  void shouldOpenNeedsTheMinimumAndARateAtOrAboveTheThreshold() {
    Config half = new Config(100, 0, 0, 4, 50.0, D, 1);
    assertThat(CircuitBreakerState.shouldOpen(3, 3, half)).isFalse(); // below the minimum
    assertThat(CircuitBreakerState.shouldOpen(4, 2, half)).isTrue(); // exactly 50 %
    assertThat(CircuitBreakerState.shouldOpen(5, 2, half)).isFalse(); // 40 %
    Config odd = new Config(100, 0, 0, 1, 33.3, D, 1);
    assertThat(CircuitBreakerState.shouldOpen(1000, 333, odd)).isTrue(); // 33.3 % exactly
    assertThat(CircuitBreakerState.shouldOpen(1000, 332, odd)).isFalse();
    Config all = new Config(100, 0, 0, 1, 100.0, D, 1);
    assertThat(CircuitBreakerState.shouldOpen(7, 6, all)).isFalse();
    assertThat(CircuitBreakerState.shouldOpen(7, 7, all)).isTrue();
  }

  @Test
  void openNanosLeftCountsDownToZeroAndStaysThere() {
    assertThat(CircuitBreakerState.openNanosLeft(100, 100, SMALL)).isEqualTo(D);
    assertThat(CircuitBreakerState.openNanosLeft(100, 100 + D - 1, SMALL)).isEqualTo(1);
    assertThat(CircuitBreakerState.openNanosLeft(100, 100 + D, SMALL)).isZero();
    assertThat(CircuitBreakerState.openNanosLeft(100, Long.MAX_VALUE, SMALL)).isZero();
    assertThat(CircuitBreakerState.openNanosLeft(-500, -400, SMALL)).isEqualTo(D - 100);
  }

  @Test
  void changesNameTheirStates() {
    List<String> names = new ArrayList<>();
    for (Change change : Change.values()) {
      names.add(change.from() + ">" + change.to());
    }
    assertThat(names)
        .containsExactly("CLOSED>OPEN", "OPEN>HALF_OPEN", "HALF_OPEN>CLOSED", "HALF_OPEN>OPEN");
  }

  @Test
  void configValidatesEachValueAndNamesIt() {
    assertThatThrownBy(() -> new Config(-1, 0, 0, 1, 50, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("windowCalls must be >= 0: -1 calls");
    assertThatThrownBy(() -> new Config(0, -1, 10, 1, 50, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucketNanos must be >= 0: -1 ns");
    assertThatThrownBy(() -> new Config(0, 10, -1, 1, 50, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("buckets must be >= 0: -1");
    assertThatThrownBy(() -> new Config(0, 0, 0, 1, 50, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "exactly one window must be set, windowCalls (0) or bucketNanos (0) with buckets (0)");
    assertThatThrownBy(() -> new Config(10, 5, 10, 1, 50, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "exactly one window must be set, windowCalls (10) or bucketNanos (5) with buckets (10)");
    assertThatThrownBy(() -> new Config(0, 5, 0, 1, 50, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "exactly one window must be set, windowCalls (0) or bucketNanos (5) with buckets (0)");
    assertThatThrownBy(() -> new Config(10, 0, 0, 0, 50, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minimumCalls must be >= 1: 0 calls");
    assertThatThrownBy(() -> new Config(10, 0, 0, 1, 0, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failureRateThreshold must be > 0 and <= 100: 0.0 %");
    assertThatThrownBy(() -> new Config(10, 0, 0, 1, Double.NaN, D, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failureRateThreshold must be > 0 and <= 100: NaN %");
    assertThatThrownBy(() -> new Config(10, 0, 0, 1, 50, 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("openDurationNanos must be > 0: 0 ns");
    assertThatThrownBy(() -> new Config(10, 0, 0, 1, 50, D, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("halfOpenProbes must be >= 1: 0");
    assertThat(SMALL.isCountWindow()).isTrue();
    assertThat(TIMED.isCountWindow()).isFalse();
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** A new state opened by four failures at {@code at}. */
  private CircuitBreakerState openedAt(long at, Config config) {
    CircuitBreakerState state = newState();
    for (int i = 0; i < 3; i++) {
      assertThat(state.onFailure(at, config)).isNull();
    }
    assertThat(state.onFailure(at, config)).isEqualTo(Change.CLOSED_TO_OPEN);
    return state;
  }

  /** A small state opened at 0 and half-open since D, with both probes permitted at D. */
  private CircuitBreakerState halfOpenWithBothProbesOut() {
    CircuitBreakerState state = openedAt(0, SMALL);
    assertThat(state.tryAcquirePermission(D, SMALL)).isEqualTo(PERMITTED_AND_HALF_OPENED);
    assertThat(state.tryAcquirePermission(D, SMALL)).isZero();
    return state;
  }

  /** Runs the action once on each of {@code threads} threads, released together. */
  static void race(int threads, Runnable action) throws Exception {
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                  action.run();
                } catch (Throwable e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(failures).isEmpty();
  }
}
