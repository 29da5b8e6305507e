package dev.relent.guard;

import static dev.relent.guard.CircuitBreaker.State.CLOSED;
import static dev.relent.guard.CircuitBreaker.State.HALF_OPEN;
import static dev.relent.guard.CircuitBreaker.State.OPEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.guard.CircuitBreaker.Metrics;
import dev.relent.guard.CircuitBreaker.State;
import dev.relent.guard.CircuitBreaker.Transition;
import dev.relent.spi.CircuitBreakerState;
import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CircuitBreakerTest {
  private static final long D = 1_000; // open duration of the small breaker, ns
  private static final long S = 1_000_000_000L;

  private final List<Transition> events = new CopyOnWriteArrayList<>();

  /** The time source of the breakers whose transitions are checked; it never moves. */
  private static final FakeTime STILL = new FakeTime();

  private final List<Tracked> tracked = new ArrayList<>();

  /** A breaker and what the invariant check needs to know about it. */
  private static final class Tracked {
    final CircuitBreaker breaker;
    final double threshold;
    final int minimumCalls;
    final int probes;
    final long windowCalls;
    long lastNow;

    Tracked(CircuitBreaker breaker, double threshold, int min, int probes, long windowCalls) {
      this.breaker = breaker;
      this.threshold = threshold;
      this.minimumCalls = min;
      this.probes = probes;
      this.windowCalls = windowCalls;
    }
  }

  /** 50 % of the last 10 calls, at least 4, open 1000 ns, 2 probes, transitions into events. */
  private Tracked small() {
    return track(
        CircuitBreaker.builder()
            .withCountWindow(10)
            .withMinimumCalls(4)
            .withOpenDuration(Duration.ofNanos(D))
            .withHalfOpenProbes(2)
            .withTime(STILL)
            .onStateChange(events::add)
            .build(),
        50,
        4,
        2,
        10);
  }

  private Tracked track(
      CircuitBreaker breaker, double threshold, int min, int probes, long windowCalls) {
    Tracked result = new Tracked(breaker, threshold, min, probes, windowCalls);
    tracked.add(result);
    return result;
  }

  /** After each test: every breaker's state agrees with its counts. */
  @AfterEach
  void stateIsConsistentWithCounts() {
    for (Tracked t : tracked) {
      Metrics m = t.breaker.metrics(t.lastNow);
      assertThat(m.failures()).isBetween(0L, m.calls());
      assertThat(m.calls()).isLessThanOrEqualTo(t.windowCalls);
      boolean overThreshold =
          m.calls() >= t.minimumCalls && m.failures() * 100.0 >= t.threshold * m.calls();
      switch (m.state()) {
        case CLOSED:
          assertThat(overThreshold).as("closed but over threshold: %s", m).isFalse();
          assertThat(m.probesInFlight()).isZero();
          assertThat(m.probesSucceeded()).isZero();
          break;
        case OPEN:
          assertThat(overThreshold).as("open but under threshold: %s", m).isTrue();
          assertThat(m.probesInFlight()).isZero();
          assertThat(m.probesSucceeded()).isZero();
          break;
        default:
          assertThat(overThreshold).as("half-open with a changed window: %s", m).isTrue();
          assertThat(m.probesInFlight() + m.probesSucceeded()).isBetween(0, t.probes);
          assertThat(m.probesSucceeded()).isLessThan(t.probes);
      }
    }
  }

  // ---- the exhaustive table: every state x every event -------------------------------------

  enum Setup {
    CLOSED_EMPTY,
    CLOSED_AT_EDGE, // 3 failures: one more outcome reaches the minimum of 4 calls
    OPEN_, // opened at 0 by 4 failures
    HALF_OPEN_ONE_PROBE, // half-open since D, one probe in flight
    HALF_OPEN_LAST_PROBE, // one probe succeeded, the second in flight
    HALF_OPEN_IDLE // half-open, its one probe released
  }

  enum Event {
    PERMISSION,
    SUCCESS,
    FAILURE,
    RELEASE,
    TIME_PASSES
  }

  static Stream<Arguments> table() {
    // setup, event, state after, permission result (-1: not asked), calls, failures, in flight,
    // succeeded, transitions made by the event
    return Stream.of(
        Arguments.of(Setup.CLOSED_EMPTY, Event.PERMISSION, CLOSED, 0L, 0, 0, 0, 0, 0),
        Arguments.of(Setup.CLOSED_EMPTY, Event.SUCCESS, CLOSED, -1L, 1, 0, 0, 0, 0),
        Arguments.of(Setup.CLOSED_EMPTY, Event.FAILURE, CLOSED, -1L, 1, 1, 0, 0, 0),
        Arguments.of(Setup.CLOSED_EMPTY, Event.RELEASE, CLOSED, -1L, 0, 0, 0, 0, 0),
        Arguments.of(Setup.CLOSED_EMPTY, Event.TIME_PASSES, CLOSED, -1L, 0, 0, 0, 0, 0),
        Arguments.of(Setup.CLOSED_AT_EDGE, Event.PERMISSION, CLOSED, 0L, 3, 3, 0, 0, 0),
        Arguments.of(Setup.CLOSED_AT_EDGE, Event.SUCCESS, OPEN, -1L, 4, 3, 0, 0, 1),
        Arguments.of(Setup.CLOSED_AT_EDGE, Event.FAILURE, OPEN, -1L, 4, 4, 0, 0, 1),
        Arguments.of(Setup.CLOSED_AT_EDGE, Event.RELEASE, CLOSED, -1L, 3, 3, 0, 0, 0),
        Arguments.of(Setup.CLOSED_AT_EDGE, Event.TIME_PASSES, CLOSED, -1L, 3, 3, 0, 0, 0),
        Arguments.of(Setup.OPEN_, Event.PERMISSION, OPEN, D - 1, 4, 4, 0, 0, 0),
        Arguments.of(Setup.OPEN_, Event.SUCCESS, OPEN, -1L, 4, 4, 0, 0, 0),
        Arguments.of(Setup.OPEN_, Event.FAILURE, OPEN, -1L, 4, 4, 0, 0, 0),
        Arguments.of(Setup.OPEN_, Event.RELEASE, OPEN, -1L, 4, 4, 0, 0, 0),
        Arguments.of(Setup.OPEN_, Event.TIME_PASSES, HALF_OPEN, -1L, 4, 4, 0, 0, 1),
        Arguments.of(Setup.HALF_OPEN_ONE_PROBE, Event.PERMISSION, HALF_OPEN, 0L, 4, 4, 2, 0, 0),
        Arguments.of(Setup.HALF_OPEN_ONE_PROBE, Event.SUCCESS, HALF_OPEN, -1L, 4, 4, 0, 1, 0),
        Arguments.of(Setup.HALF_OPEN_ONE_PROBE, Event.FAILURE, OPEN, -1L, 4, 4, 0, 0, 1),
        Arguments.of(Setup.HALF_OPEN_ONE_PROBE, Event.RELEASE, HALF_OPEN, -1L, 4, 4, 0, 0, 0),
        Arguments.of(Setup.HALF_OPEN_ONE_PROBE, Event.TIME_PASSES, HALF_OPEN, -1L, 4, 4, 1, 0, 0),
        Arguments.of(Setup.HALF_OPEN_LAST_PROBE, Event.PERMISSION, HALF_OPEN, D, 4, 4, 1, 1, 0),
        Arguments.of(Setup.HALF_OPEN_LAST_PROBE, Event.SUCCESS, CLOSED, -1L, 0, 0, 0, 0, 1),
        Arguments.of(Setup.HALF_OPEN_LAST_PROBE, Event.FAILURE, OPEN, -1L, 4, 4, 0, 0, 1),
        Arguments.of(Setup.HALF_OPEN_LAST_PROBE, Event.RELEASE, HALF_OPEN, -1L, 4, 4, 0, 1, 0),
        Arguments.of(Setup.HALF_OPEN_LAST_PROBE, Event.TIME_PASSES, HALF_OPEN, -1L, 4, 4, 1, 1, 0),
        Arguments.of(Setup.HALF_OPEN_IDLE, Event.PERMISSION, HALF_OPEN, 0L, 4, 4, 1, 0, 0),
        Arguments.of(Setup.HALF_OPEN_IDLE, Event.SUCCESS, HALF_OPEN, -1L, 4, 4, 0, 0, 0),
        Arguments.of(Setup.HALF_OPEN_IDLE, Event.FAILURE, HALF_OPEN, -1L, 4, 4, 0, 0, 0),
        Arguments.of(Setup.HALF_OPEN_IDLE, Event.RELEASE, HALF_OPEN, -1L, 4, 4, 0, 0, 0),
        Arguments.of(Setup.HALF_OPEN_IDLE, Event.TIME_PASSES, HALF_OPEN, -1L, 4, 4, 0, 0, 0));
  }

  @ParameterizedTest(name = "{0} + {1} -> {2}")
  @MethodSource("table")
  void everyStateAndEvent(
      Setup setup,
      Event event,
      State expected,
      long permission,
      int calls,
      int failures,
      int inFlight,
      int succeeded,
      int transitions) {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    long now = arrange(cb, setup);
    assertThat(cb.state(now)).isEqualTo(stateOf(setup));
    int before = events.size();

    long at = now + 1;
    switch (event) {
      case PERMISSION:
        assertThat(cb.tryAcquirePermission(at)).isEqualTo(permission);
        break;
      case SUCCESS:
        cb.onSuccess(at);
        break;
      case FAILURE:
        cb.onFailure(at);
        break;
      case RELEASE:
        cb.releasePermission();
        break;
      default:
        at = now + D;
        break;
    }

    t.lastNow = at;
    assertThat(cb.metrics(at))
        .isEqualTo(
            new Metrics(
                expected,
                calls,
                failures,
                calls == 0 ? 0.0 : failures * 100.0 / calls,
                inFlight,
                succeeded));
    assertThat(events.subList(before, events.size())).hasSize(transitions);
    if (transitions == 1) {
      assertThat(events.get(before)).isEqualTo(transition(stateOf(setup), expected, at));
    }
    if (expected == OPEN) {
      // A new open period starts at the event.
      assertThat(cb.tryAcquirePermission(at)).isEqualTo(setup == Setup.OPEN_ ? D - 1 : D);
    }
  }

  private static State stateOf(Setup setup) {
    switch (setup) {
      case CLOSED_EMPTY:
      case CLOSED_AT_EDGE:
        return CLOSED;
      case OPEN_:
        return OPEN;
      default:
        return HALF_OPEN;
    }
  }

  /** Brings a small breaker into the setup's state and returns the time it is in. */
  private static long arrange(CircuitBreaker cb, Setup setup) {
    if (setup == Setup.CLOSED_EMPTY) {
      return 0;
    }
    for (int i = 0; i < 3; i++) {
      assertThat(cb.tryAcquirePermission(0)).isZero();
      cb.onFailure(0);
    }
    if (setup == Setup.CLOSED_AT_EDGE) {
      return 0;
    }
    cb.onFailure(0);
    if (setup == Setup.OPEN_) {
      return 0;
    }
    assertThat(cb.tryAcquirePermission(D)).isZero();
    if (setup == Setup.HALF_OPEN_LAST_PROBE) {
      cb.onSuccess(D);
      assertThat(cb.tryAcquirePermission(D)).isZero();
    } else if (setup == Setup.HALF_OPEN_IDLE) {
      cb.releasePermission();
    }
    return D;
  }

  // ---- closed ------------------------------------------------------------------------------

  @Test
  void opensAtExactlyFiftyPercent() {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 0, "SSSFF");
    assertThat(cb.state(0)).isEqualTo(CLOSED); // 2 of 5 = 40 %

    cb.onFailure(0); // 3 of 6 = 50 %

    assertThat(cb.state(0)).isEqualTo(OPEN);
    assertThat(cb.metrics(0)).isEqualTo(new Metrics(OPEN, 6, 3, 50.0, 0, 0));
  }

  @Test
  void staysClosedJustUnderTheThreshold() {
    CircuitBreaker cb =
        track(
                CircuitBreaker.builder()
                    .withFailureRateThreshold(50.01)
                    .withCountWindow(10)
                    .withMinimumCalls(4)
                    .build(),
                50.01,
                4,
                3,
                10)
            .breaker;

    outcomes(cb, 0, "SFSF");

    assertThat(cb.state(0)).isEqualTo(CLOSED);
    cb.onFailure(0); // 3 of 5 = 60 %
    assertThat(cb.state(0)).isEqualTo(OPEN);
  }

  @Test
  void aHundredPercentThresholdNeedsEveryCallToFail() {
    CircuitBreaker cb =
        track(
                CircuitBreaker.builder()
                    .withFailureRateThreshold(100)
                    .withCountWindow(4)
                    .withMinimumCalls(4)
                    .build(),
                100,
                4,
                3,
                4)
            .breaker;

    outcomes(cb, 0, "SFFF");
    assertThat(cb.state(0)).isEqualTo(CLOSED);
    cb.onFailure(0); // the success has left the window of 4
    assertThat(cb.state(0)).isEqualTo(OPEN);
  }

  @Test
  void minimumCallsBoundary() {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 0, "FFF");
    assertThat(cb.metrics(0)).isEqualTo(new Metrics(CLOSED, 3, 3, 100.0, 0, 0));

    cb.onFailure(0);

    assertThat(cb.state(0)).isEqualTo(OPEN);
  }

  @Test
  void countWindowForgetsTheOldestCall() {
    CircuitBreaker cb =
        track(CircuitBreaker.builder().withCountWindow(4).withMinimumCalls(4).build(), 50, 4, 3, 4)
            .breaker;
    outcomes(cb, 0, "FSSSS"); // the failure has left the window
    assertThat(cb.metrics(0)).isEqualTo(new Metrics(CLOSED, 4, 0, 0.0, 0, 0));

    outcomes(cb, 0, "F");
    assertThat(cb.state(0)).isEqualTo(CLOSED);
    outcomes(cb, 0, "F");
    assertThat(cb.state(0)).isEqualTo(OPEN);
  }

  @Test
  void aWindowFullOfSuccessesKeepsExactCountsWhenSuccessesSkipTheLock() {
    CircuitBreaker cb =
        track(CircuitBreaker.builder().withCountWindow(4).withMinimumCalls(4).build(), 50, 4, 3, 4)
            .breaker;
    outcomes(cb, 0, "SSSS" + "SSS"); // full of successes: the last three take the lock-free path
    outcomes(cb, 0, "F");
    assertThat(cb.metrics(0)).isEqualTo(new Metrics(CLOSED, 4, 1, 25.0, 0, 0));
    outcomes(cb, 0, "SSS"); // the failure is still one of the last four
    assertThat(cb.metrics(0)).isEqualTo(new Metrics(CLOSED, 4, 1, 25.0, 0, 0));
    outcomes(cb, 0, "S");
    assertThat(cb.metrics(0)).isEqualTo(new Metrics(CLOSED, 4, 0, 0.0, 0, 0));
    outcomes(cb, 0, "SSFF");
    assertThat(cb.metrics(0)).isEqualTo(new Metrics(OPEN, 4, 2, 50.0, 0, 0));
  }

  @Test
  void countWindowsAgreeWithAListOfTheLastOutcomes() {
    // Property: over random breakers and outcome sequences, the count window (with its lock-free
    // path for a window full of successes) matches a plain list of the last N outcomes.
    SplittableRandom random = new SplittableRandom(20_261_130);
    for (int run = 0; run < 500; run++) {
      int window = 1 + random.nextInt(8);
      int minimum = 1 + random.nextInt(window);
      double threshold = new double[] {10, 50, 90, 100}[random.nextInt(4)];
      double failureChance = random.nextDouble() * 0.3;
      CircuitBreaker cb =
          CircuitBreaker.builder()
              .withCountWindow(window)
              .withMinimumCalls(minimum)
              .withFailureRateThreshold(threshold)
              .build();
      java.util.ArrayDeque<Boolean> model = new java.util.ArrayDeque<>();
      for (int step = 0; step < 200; step++) {
        boolean failure = random.nextDouble() < failureChance;
        assertThat(cb.tryAcquirePermission(0)).isZero();
        if (failure) {
          cb.onFailure(0);
        } else {
          cb.onSuccess(0);
        }
        model.addLast(failure);
        if (model.size() > window) {
          model.removeFirst();
        }
        long failures = model.stream().filter(f -> f).count();
        boolean opens = model.size() >= minimum && failures * 100.0 >= threshold * model.size();
        Metrics m = cb.metrics(0);
        String where = "run " + run + " step " + step + " window " + model;
        assertThat(m.calls()).as(where).isEqualTo(model.size());
        assertThat(m.failures()).as(where).isEqualTo(failures);
        assertThat(m.state()).as(where).isEqualTo(opens ? OPEN : CLOSED);
        if (opens) {
          break;
        }
      }
    }
  }

  @Test
  void timeWindowCountsTheLastTenSecondsInOneSecondBuckets() {
    Tracked t =
        track(
            CircuitBreaker.builder()
                .withTimeWindow(Duration.ofSeconds(10))
                .withMinimumCalls(4)
                .withTime(STILL)
                .onStateChange(events::add)
                .build(),
            50,
            4,
            3,
            Long.MAX_VALUE);
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 0, "FF");
    outcomes(cb, 10 * S, "SS"); // the failures' bucket [0, 1 s) left the window at 10 s
    assertThat(cb.metrics(10 * S)).isEqualTo(new Metrics(CLOSED, 2, 0, 0.0, 0, 0));

    outcomes(cb, 19 * S + S / 2, "F"); // still in the window with the two successes
    assertThat(cb.state(19 * S + S / 2)).isEqualTo(CLOSED);
    outcomes(cb, 19 * S + S / 2, "F");

    assertThat(cb.metrics(19 * S + S / 2)).isEqualTo(new Metrics(OPEN, 4, 2, 50.0, 0, 0));
    assertThat(events).containsExactly(transition(CLOSED, OPEN, 19 * S + S / 2));
    t.lastNow = 19 * S + S / 2;
  }

  @Test
  void timeWindowCountsALateOutcomeInItsOwnBucket() {
    Tracked t =
        track(
            CircuitBreaker.builder()
                .withTimeWindow(Duration.ofSeconds(10))
                .withMinimumCalls(2)
                .build(),
            50,
            2,
            3,
            Long.MAX_VALUE);
    CircuitBreaker cb = t.breaker;
    cb.onSuccess(9 * S);
    cb.onSuccess(S); // measured before the 9 s call ended
    cb.onSuccess(-S); // older than the window: dropped

    assertThat(cb.metrics(9 * S).calls()).isEqualTo(2);
    assertThat(cb.metrics(11 * S).calls()).isEqualTo(1);
    t.lastNow = 11 * S;
  }

  // ---- open --------------------------------------------------------------------------------

  @Test
  void openRefusesUntilTheOpenDurationHasPassedThenHalfOpensLazily() {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 100, "FFFF");

    assertThat(cb.tryAcquirePermission(100)).isEqualTo(D);
    assertThat(cb.tryAcquirePermission(100 + D - 1)).isEqualTo(1);
    assertThat(events).containsExactly(transition(CLOSED, OPEN, 100));
    assertThat(cb.tryAcquirePermission(100 + D)).isZero();
    assertThat(events).endsWith(transition(OPEN, HALF_OPEN, 100 + D));
    cb.releasePermission();
    t.lastNow = 100 + D;
  }

  @Test
  void refusedCallsAreNeverCounted() {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 0, "FFFF");
    for (int i = 0; i < 100; i++) {
      assertThat(cb.tryAcquirePermission(i)).isPositive();
    }

    assertThat(cb.metrics(99)).isEqualTo(new Metrics(OPEN, 4, 4, 100.0, 0, 0));
  }

  // ---- half-open ---------------------------------------------------------------------------

  @Test
  void halfOpenAllowsExactlyTheProbesAndClosesWhenAllSucceed() {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 0, "FFFF");

    assertThat(cb.tryAcquirePermission(D)).isZero();
    assertThat(cb.tryAcquirePermission(D)).isZero();
    assertThat(cb.tryAcquirePermission(D)).isEqualTo(D);
    cb.onSuccess(D + 5);
    assertThat(cb.tryAcquirePermission(D + 5)).isEqualTo(D); // one succeeded, one in flight
    cb.onSuccess(D + 7);

    assertThat(cb.metrics(D + 7)).isEqualTo(new Metrics(CLOSED, 0, 0, 0.0, 0, 0));
    // The window starts empty: three failures are below the minimum again.
    outcomes(cb, D + 8, "FFF");
    assertThat(cb.state(D + 8)).isEqualTo(CLOSED);
    assertThat(events)
        .containsExactly(
            transition(CLOSED, OPEN, 0),
            transition(OPEN, HALF_OPEN, D),
            transition(HALF_OPEN, CLOSED, D + 7));
    t.lastNow = D + 8;
  }

  @Test
  void aProbeFailureOpensForANewPeriodAndLateProbeOutcomesAreIgnored() {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 0, "FFFF");
    assertThat(cb.tryAcquirePermission(D)).isZero();
    assertThat(cb.tryAcquirePermission(D)).isZero();

    cb.onFailure(D + 10);
    cb.onSuccess(D + 11); // the other probe, reported while open: ignored
    cb.releasePermission();

    assertThat(cb.tryAcquirePermission(D + 11)).isEqualTo(D - 1);
    assertThat(cb.state(2 * D + 9)).isEqualTo(OPEN);
    assertThat(cb.state(2 * D + 10)).isEqualTo(HALF_OPEN);
    assertThat(cb.metrics(2 * D + 10)).isEqualTo(new Metrics(HALF_OPEN, 4, 4, 100.0, 0, 0));
    assertThat(events)
        .containsExactly(
            transition(CLOSED, OPEN, 0),
            transition(OPEN, HALF_OPEN, D),
            transition(HALF_OPEN, OPEN, D + 10),
            transition(OPEN, HALF_OPEN, 2 * D + 10));
    t.lastNow = 2 * D + 10;
  }

  @Test
  void releaseFreesAProbeSlotAndRecordsNothing() {
    Tracked t = small();
    CircuitBreaker cb = t.breaker;
    outcomes(cb, 0, "FFFF");
    assertThat(cb.tryAcquirePermission(D)).isZero();
    assertThat(cb.tryAcquirePermission(D)).isZero();
    assertThat(cb.tryAcquirePermission(D)).isEqualTo(D);

    cb.releasePermission();
    cb.releasePermission();
    cb.releasePermission(); // nothing more to free

    assertThat(cb.metrics(D)).isEqualTo(new Metrics(HALF_OPEN, 4, 4, 100.0, 0, 0));
    assertThat(cb.tryAcquirePermission(D)).isZero();
    assertThat(cb.tryAcquirePermission(D)).isZero();
    assertThat(cb.tryAcquirePermission(D)).isEqualTo(D);
    cb.onSuccess(D);
    cb.onSuccess(D);
    assertThat(cb.state(D)).isEqualTo(CLOSED);
    t.lastNow = D;
  }

  // ---- listeners ---------------------------------------------------------------------------

  @Test
  void listenersSeeEveryTransitionInOrderEvenWhenTheyCallBackOrThrow() {
    List<String> seen = new ArrayList<>();
    CircuitBreaker[] self = new CircuitBreaker[1];
    CircuitBreaker cb =
        CircuitBreaker.builder()
            .withCountWindow(2)
            .withMinimumCalls(1)
            .withOpenDuration(Duration.ofNanos(D))
            .withHalfOpenProbes(1)
            .withTime(STILL)
            .onStateChange(
                tr -> {
                  if (nanosOf(tr) == 0) {
                    throw new IllegalStateException("a listener bug, logged and ignored");
                  }
                })
            .onStateChange(
                tr -> {
                  // Calling back into the breaker from a listener neither deadlocks nor recurses.
                  seen.add(tr.from() + ">" + tr.to() + "@" + nanosOf(tr));
                  seen.add("now " + self[0].state(nanosOf(tr)));
                })
            .build();
    self[0] = cb;
    Tracked t = track(cb, 50, 1, 1, 2);

    cb.onFailure(0);
    assertThat(cb.tryAcquirePermission(D)).isZero();
    cb.onFailure(D + 1);
    assertThat(cb.tryAcquirePermission(2 * D + 1)).isZero();
    cb.onSuccess(2 * D + 2);

    assertThat(seen)
        .containsExactly(
            "CLOSED>OPEN@0",
            "now OPEN",
            "OPEN>HALF_OPEN@1000",
            "now HALF_OPEN",
            "HALF_OPEN>OPEN@1001",
            "now OPEN",
            "OPEN>HALF_OPEN@2001",
            "now HALF_OPEN",
            "HALF_OPEN>CLOSED@2002",
            "now CLOSED");
    t.lastNow = 2 * D + 2;
  }

  // ---- defaults, validation, concurrency ---------------------------------------------------

  @Test
  void defaultsAreFiftyPercentOfAHundredCallsAtLeastTwentyOpenThirtySecondsThreeProbes() {
    Tracked t = track(CircuitBreaker.ofDefaults(), 50, 20, 3, 100);
    CircuitBreaker cb = t.breaker;
    for (int i = 0; i < 19; i++) {
      cb.onFailure(0);
    }
    assertThat(cb.state(0)).isEqualTo(CLOSED);
    cb.onFailure(0);
    assertThat(cb.state(0)).isEqualTo(OPEN);
    assertThat(cb.tryAcquirePermission(0)).isEqualTo(30 * S);
    assertThat(cb.tryAcquirePermission(30 * S)).isZero();
    assertThat(cb.tryAcquirePermission(30 * S)).isZero();
    assertThat(cb.tryAcquirePermission(30 * S)).isZero();
    assertThat(cb.tryAcquirePermission(30 * S)).isEqualTo(30 * S);
    cb.onSuccess(30 * S);
    cb.onSuccess(30 * S);
    cb.onSuccess(30 * S);
    assertThat(cb.state(30 * S)).isEqualTo(CLOSED);
    assertThat(cb.toString())
        .isEqualTo(
            "CircuitBreaker[CLOSED, failureRateThreshold=50.0 %, window=100 calls, minimumCalls=20,"
                + " openDuration=30 s, halfOpenProbes=3]");
    t.lastNow = 30 * S;
  }

  @Test
  void builderValidatesEachValueAndNamesIt() {
    assertThatThrownBy(() -> CircuitBreaker.builder().withFailureRateThreshold(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failureRateThreshold must be > 0 and <= 100: 0.0 %");
    assertThatThrownBy(() -> CircuitBreaker.builder().withFailureRateThreshold(100.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failureRateThreshold must be > 0 and <= 100: 100.5 %");
    assertThatThrownBy(() -> CircuitBreaker.builder().withFailureRateThreshold(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failureRateThreshold must be > 0 and <= 100: NaN %");
    assertThatThrownBy(() -> CircuitBreaker.builder().withCountWindow(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("countWindow must be >= 1: 0 calls");
    assertThatThrownBy(() -> CircuitBreaker.builder().withTimeWindow(Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeWindow must be > 0: -5 ms");
    assertThatThrownBy(() -> CircuitBreaker.builder().withTimeWindow(Duration.ofNanos(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeWindow must be >= 1 ms: 10 ns");
    assertThatThrownBy(() -> CircuitBreaker.builder().withMinimumCalls(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minimumCalls must be >= 1: 0 calls");
    assertThatThrownBy(() -> CircuitBreaker.builder().withOpenDuration(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("openDuration must be > 0: 0 s");
    assertThatThrownBy(() -> CircuitBreaker.builder().withOpenDuration(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("openDuration cannot be null");
    assertThatThrownBy(() -> CircuitBreaker.builder().withHalfOpenProbes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("halfOpenProbes must be >= 1: 0");
    assertThatThrownBy(() -> CircuitBreaker.builder().onStateChange(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("listener cannot be null");
    assertThatThrownBy(() -> CircuitBreaker.builder().withMinimumCalls(101).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "minimumCalls (101) must be <= countWindow (100): the breaker could never open");
  }

  @Test
  void aTimeWindowReplacesTheCountWindowAndBackAgain() {
    CircuitBreaker.Builder builder = CircuitBreaker.builder().withMinimumCalls(500);
    builder.withTimeWindow(Duration.ofSeconds(1));
    assertThat(builder.build().state(0)).isEqualTo(CLOSED); // no count window to compare with
    builder.withCountWindow(10);
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("minimumCalls (500) must be <= countWindow (10): the breaker could never open");
  }

  @Test
  void concurrentCallersKeepTheStateConsistentWithTheCounts() throws Exception {
    Tracked t =
        track(
            CircuitBreaker.builder()
                .withCountWindow(20)
                .withMinimumCalls(5)
                .withOpenDuration(Duration.ofNanos(50))
                .withHalfOpenProbes(3)
                .withTime(STILL)
                .onStateChange(events::add)
                .build(),
            50,
            5,
            3,
            20);
    CircuitBreaker cb = t.breaker;
    int threads = 4;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> workers = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      long seed = k;
      Thread worker =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed);
                await(start);
                for (int i = 0; i < 20_000; i++) {
                  long now = i; // each thread's time runs from 0 to 19 999 ns
                  if (cb.tryAcquirePermission(now) == 0) {
                    int r = random.nextInt(10);
                    if (r < 5) {
                      cb.onFailure(now);
                    } else if (r < 9) {
                      cb.onSuccess(now);
                    } else {
                      cb.releasePermission();
                    }
                  }
                }
              });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    // Read at the last instant any thread used: one later could half-open a breaker that opened
    // in the last open duration, which no thread lived long enough to notice.
    long last = 19_999;
    t.lastNow = last;
    // Transitions were delivered one at a time, in order: each starts where the last one ended.
    assertThat(events).isNotEmpty();
    for (int i = 1; i < events.size(); i++) {
      assertThat(events.get(i).from()).isEqualTo(events.get(i - 1).to());
    }
    assertThat(events.get(events.size() - 1).to()).isEqualTo(cb.state(last));
  }

  // ---- a shared state ----------------------------------------------------------------------

  /** Like {@link #small()}, on the given state, with its own listener. */
  private static CircuitBreaker smallOn(CircuitBreakerState state, List<Transition> heard) {
    return CircuitBreaker.builder()
        .withCountWindow(10)
        .withMinimumCalls(4)
        .withOpenDuration(Duration.ofNanos(D))
        .withHalfOpenProbes(2)
        .withState(state)
        .withTime(STILL)
        .onStateChange(heard::add)
        .build();
  }

  @Test
  void inspectionReadsTheBreakersOwnTimeSourceAndTellsWhenTheNextProbeMayGo() {
    FakeTime time = new FakeTime();
    List<Transition> heard = new ArrayList<>();
    CircuitBreaker cb =
        CircuitBreaker.builder()
            .withMinimumCalls(2)
            .withOpenDuration(Duration.ofSeconds(30))
            .withHalfOpenProbes(1)
            .withTimeWindow(Duration.ofSeconds(10))
            .withTime(time)
            .onStateChange(heard::add)
            .build();
    assertThat(cb.state()).isEqualTo(CLOSED);
    assertThat(cb.nextProbeIn()).isEmpty();
    assertThat(cb.openUntil()).isEmpty();
    cb.onFailure(0);
    cb.onFailure(0);
    assertThat(heard).containsExactly(new Transition(CLOSED, OPEN, FakeTime.DEFAULT_START));

    time.advance(Duration.ofSeconds(10));
    assertThat(cb.state()).isEqualTo(OPEN);
    assertThat(cb.metrics()).isEqualTo(new Metrics(OPEN, 2, 2, 100.0, 0, 0));
    assertThat(cb.nextProbeIn()).contains(Duration.ofSeconds(20));
    assertThat(cb.openUntil()).contains(FakeTime.DEFAULT_START.plusSeconds(30));
    assertThat(cb.nextProbeIn()).contains(Duration.ofSeconds(20)); // asking changed nothing

    time.advance(Duration.ofSeconds(20));
    assertThat(cb.nextProbeIn()).isEmpty();
    assertThat(cb.state()).isEqualTo(HALF_OPEN);
    // The transition is dated by the clock, not reported as a ticker reading.
    assertThat(heard)
        .endsWith(new Transition(OPEN, HALF_OPEN, FakeTime.DEFAULT_START.plusSeconds(30)));
    assertThat(cb.metrics().probesInFlight()).isZero();
    assertThat(cb)
        .hasToString(
            "CircuitBreaker[HALF_OPEN, failureRateThreshold=50.0 %, window=10 s, minimumCalls=2,"
                + " openDuration=30 s, halfOpenProbes=1]");
    assertThatThrownBy(() -> CircuitBreaker.builder().withTime(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("time cannot be null");
  }

  @Test
  void twoBreakersSharingOneStateSeeEachOthersFailuresAndShareTheProbes() {
    CircuitBreakerState shared = CircuitBreakerState.inMemory();
    List<Transition> heardByA = new ArrayList<>();
    List<Transition> heardByB = new ArrayList<>();
    CircuitBreaker a = smallOn(shared, heardByA);
    CircuitBreaker b = smallOn(shared, heardByB);
    Tracked ta = track(a, 50, 4, 2, 10);
    Tracked tb = track(b, 50, 4, 2, 10);

    outcomes(a, 0, "FF");
    outcomes(b, 0, "F");
    assertThat(a.state(0)).isEqualTo(CLOSED);
    outcomes(b, 0, "F"); // 4 failures between them

    assertThat(a.tryAcquirePermission(0)).isEqualTo(D);
    assertThat(a.metrics(0)).isEqualTo(new Metrics(OPEN, 4, 4, 100.0, 0, 0));
    assertThat(a.tryAcquirePermission(D)).isZero(); // A's call makes it half-open
    assertThat(b.tryAcquirePermission(D)).isZero();
    assertThat(b.tryAcquirePermission(D)).isEqualTo(D); // both probe slots are out
    assertThat(a.tryAcquirePermission(D)).isEqualTo(D);
    a.onSuccess(D + 1);
    b.onSuccess(D + 2);

    assertThat(a.metrics(D + 2)).isEqualTo(new Metrics(CLOSED, 0, 0, 0.0, 0, 0));
    // Each breaker tells its listeners of the transitions its own calls made.
    assertThat(heardByA).containsExactly(transition(OPEN, HALF_OPEN, D));
    assertThat(heardByB)
        .containsExactly(transition(CLOSED, OPEN, 0), transition(HALF_OPEN, CLOSED, D + 2));
    assertThat(a)
        .hasToString(
            "CircuitBreaker[CLOSED, failureRateThreshold=50.0 %, window=10 calls, minimumCalls=4,"
                + " openDuration=0.001 ms, halfOpenProbes=2]");
    ta.lastNow = D + 2;
    tb.lastNow = D + 2;
  }

  @Test
  void aBreakerWithAnotherWindowCannotShareAState() {
    CircuitBreakerState shared = CircuitBreakerState.inMemory();
    CircuitBreaker a = smallOn(shared, new ArrayList<>());
    CircuitBreaker b =
        CircuitBreaker.builder().withCountWindow(20).withMinimumCalls(4).withState(shared).build();
    a.onFailure(0);

    assertThatThrownBy(() -> b.onFailure(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "this circuit breaker state counts over the last 10 calls and cannot also count over"
                + " the last 20 calls: give each differently configured breaker its own state");
    assertThatThrownBy(() -> CircuitBreaker.builder().withState(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("state cannot be null");
  }

  @Test
  void eachBuildGetsItsOwnInMemoryStateByDefault() {
    CircuitBreaker.Builder builder =
        CircuitBreaker.builder().withCountWindow(2).withMinimumCalls(1);
    CircuitBreaker a = builder.build();
    CircuitBreaker b = builder.build();

    a.onFailure(0);

    assertThat(a.state(0)).isEqualTo(OPEN);
    assertThat(b.state(0)).isEqualTo(CLOSED);
  }

  @Test
  void theStateSeesTheBuildersSettings() {
    List<CircuitBreakerState.Config> seen = new ArrayList<>();
    CircuitBreakerState spy =
        new CircuitBreakerState() {
          final CircuitBreakerState inner = CircuitBreakerState.inMemory();

          @Override
          public long tryAcquirePermission(long nowNanos, CircuitBreakerState.Config config) {
            seen.add(config);
            return inner.tryAcquirePermission(nowNanos, config);
          }

          @Override
          public CircuitBreakerState.Change onSuccess(
              long nowNanos, CircuitBreakerState.Config config) {
            return inner.onSuccess(nowNanos, config);
          }

          @Override
          public CircuitBreakerState.Change onFailure(
              long nowNanos, CircuitBreakerState.Config config) {
            return inner.onFailure(nowNanos, config);
          }

          @Override
          public void releasePermission(CircuitBreakerState.Config config) {
            inner.releasePermission(config);
          }

          @Override
          public CircuitBreakerState.Snapshot snapshot(
              long nowNanos, CircuitBreakerState.Config config) {
            return inner.snapshot(nowNanos, config);
          }
        };
    CircuitBreaker.builder().withState(spy).build().tryAcquirePermission(0);
    CircuitBreaker.builder()
        .withTimeWindow(Duration.ofSeconds(10))
        .withMinimumCalls(7)
        .withFailureRateThreshold(25.5)
        .withOpenDuration(Duration.ofSeconds(2))
        .withHalfOpenProbes(5)
        .withState(spy)
        .build()
        .tryAcquirePermission(0);

    assertThat(seen)
        .containsExactly(
            new CircuitBreakerState.Config(100, 0, 0, 20, 50.0, 30 * S, 3),
            new CircuitBreakerState.Config(0, S, 10, 7, 25.5, 2 * S, 5));
  }

  private static void outcomes(CircuitBreaker cb, long now, String outcomes) {
    for (char c : outcomes.toCharArray()) {
      assertThat(cb.tryAcquirePermission(now)).isZero();
      if (c == 'F') {
        cb.onFailure(now);
      } else {
        cb.onSuccess(now);
      }
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A transition made by a call measured at ticker reading {@code atNanos}. */
  private static Transition transition(State from, State to, long atNanos) {
    return new Transition(from, to, FakeTime.DEFAULT_START.plusNanos(atNanos));
  }

  /** The ticker reading of the call that made a transition of a breaker on {@link #STILL}. */
  private static long nanosOf(Transition transition) {
    return Duration.between(FakeTime.DEFAULT_START, transition.at()).toNanos();
  }
}
