package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.PacerState;
import dev.relent.time.Ticker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RedisPacerState against the real Redis, compared with the in-memory reference. Intervals are an
 * hour long, so the few milliseconds the test takes can never turn an accepted reservation into a
 * refused one; waits are compared allowing for the time each clock moved during the test.
 */
class RedisPacerStateTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long HOUR = 3_600 * SECOND;
  private static final long MS = 1_000_000L;

  /** The local ticker of this test: the same clock the in-memory state is given. */
  private static final Ticker TICKER = System::nanoTime;

  private RelentRedis redis;
  private String name;

  @BeforeEach
  void connect() {
    redis = LocalRedis.connect();
    name = LocalRedis.uniqueName("pacer");
  }

  @AfterEach
  void deleteTheKey() {
    redis.commands().del(LocalRedis.bytes(RedisPacerState.keyOf(name)));
    redis.commands().del(LocalRedis.bytes(RedisPacerState.guardKey(name, "control")));
    redis.close();
  }

  /** Runs one operation on both states and checks that they agree. */
  private final class Twins {
    final PacerState memory = PacerState.inMemory();
    final RedisPacerState shared = redis.pacerState(name, TICKER);
    final long redisStart = LocalRedis.redisTimeNanos(redis);
    final long localStart = TICKER.read();

    /** The most either clock can have moved since the start: how far two waits may differ. */
    long slack() {
      long redisMoved = LocalRedis.redisTimeNanos(redis) - redisStart;
      long localMoved = TICKER.read() - localStart;
      // Redis's clock has microsecond resolution; one more for each reading's truncation.
      return Math.max(redisMoved, localMoved) + 2_000;
    }

    /** Reserves on both; returns both starts as the caller computes them (now + wait). */
    long[] reserve(long interval, long tolerance, long maxWait) {
      long now = TICKER.read();
      long expected = memory.reserve(now, interval, tolerance, maxWait);
      long got = shared.reserve(now, interval, tolerance, maxWait);
      assertThat(Long.signum(got)).as("accepted or refused alike").isEqualTo(Long.signum(expected));
      assertThat(got).isCloseTo(expected, org.assertj.core.data.Offset.offset(slack()));
      return new long[] {now + Math.abs(expected), now + Math.abs(got)};
    }

    void refund(long[] starts, long interval, boolean expected) {
      assertThat(memory.refund(starts[0], interval)).isEqualTo(expected);
      assertThat(shared.refund(starts[1], interval)).isEqualTo(expected);
    }
  }

  @Test
  void aSequenceOfReservationsRefundsAndPausesMatchesTheInMemoryState() {
    Twins twins = new Twins();
    long t = HOUR;
    long tau = 2 * HOUR; // a burst of three
    long forever = 100 * HOUR;

    twins.reserve(t, tau, forever);
    twins.reserve(t, tau, forever);
    long[] third = twins.reserve(t, tau, forever);
    long[] fourth = twins.reserve(t, tau, forever); // waits one interval
    long[] fifth = twins.reserve(t, tau, forever); // two
    twins.refund(fourth, t, false); // not the newest: refused by both
    twins.refund(fifth, t, true);
    twins.refund(fifth, t, false); // given back already
    twins.reserve(t, tau, forever); // takes the refunded slot: two intervals again
    twins.reserve(t, tau, HOUR); // would wait three: refused, nothing changes
    twins.reserve(t, tau, 3 * HOUR);
    twins.refund(third, t, false);

    long pauseEnd = TICKER.read() + 10 * HOUR;
    twins.memory.pauseUntil(pauseEnd);
    twins.shared.pauseUntil(pauseEnd);
    twins.memory.pauseUntil(pauseEnd - HOUR); // never lowers it
    twins.shared.pauseUntil(pauseEnd - HOUR);
    assertThat(twins.shared.pausedUntil())
        .isCloseTo(twins.memory.pausedUntil(), org.assertj.core.data.Offset.offset(twins.slack()));

    long[] a = twins.reserve(t, tau, forever); // at the pause's end
    long[] b = twins.reserve(t, tau, forever); // the same start: the burst allows it
    assertThat(b[1]).isCloseTo(a[1], org.assertj.core.data.Offset.offset(twins.slack()));
    twins.refund(b, t, true);
    twins.refund(a, t, true); // same start as the newest: also refundable
    twins.refund(a, t, false);
    twins.reserve(t, tau, forever);
    twins.reserve(t, tau, 5 * HOUR); // refused: the pause is longer
  }

  @Test
  void eightThreadsNeverGetTwoStartsCloserThanTheInterval() throws Exception {
    int threads = 8;
    int perThread = 25;
    long interval = SECOND;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    byte[][] keys = {
      LocalRedis.bytes(RedisPacerState.keyOf(name)),
      LocalRedis.bytes(RedisPacerState.guardKey(name, "members"))
    };
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Callable<List<Long>> task =
            () -> {
              start.await(10, TimeUnit.SECONDS);
              List<Long> starts = new ArrayList<>();
              for (int k = 0; k < perThread; k++) {
                // The script's own reply: the start on Redis's clock, exact to the nanosecond.
                List<Object> reply =
                    redis.runOn(
                        RedisPacerState.SCRIPT,
                        "test",
                        keys,
                        LocalRedis.bytes("reserve"),
                        LocalRedis.bytes(Long.toString(interval)),
                        LocalRedis.bytes("0"),
                        LocalRedis.bytes(Long.toString(Long.MAX_VALUE)),
                        LocalRedis.bytes("0"),
                        LocalRedis.bytes("thread-" + Thread.currentThread().getId()));
                assertThat((Long) reply.get(0)).isEqualTo(1L);
                starts.add((Long) reply.get(2) * SECOND + (Long) reply.get(3));
              }
              return starts;
            };
        results.add(pool.submit(task));
      }
      List<Long> all = new ArrayList<>();
      for (Future<List<Long>> f : results) {
        all.addAll(f.get(60, TimeUnit.SECONDS));
      }
      Collections.sort(all);
      assertThat(all).hasSize(threads * perThread).doesNotHaveDuplicates();
      for (int i = 1; i < all.size(); i++) {
        assertThat(all.get(i) - all.get(i - 1)).as("gap %d", i).isGreaterThanOrEqualTo(interval);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void eightThreadsThroughThePublicMethodsGetDistinctWaitsOneIntervalApart() throws Exception {
    int threads = 8;
    int perThread = 10;
    RedisPacerState state = redis.pacerState(name, TICKER);
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        results.add(
            pool.submit(
                () -> {
                  start.await(10, TimeUnit.SECONDS);
                  List<Long> waits = new ArrayList<>();
                  for (int k = 0; k < perThread; k++) {
                    waits.add(state.reserve(TICKER.read(), HOUR, 0, Long.MAX_VALUE));
                  }
                  return waits;
                }));
      }
      List<Long> waits = new ArrayList<>();
      for (Future<List<Long>> f : results) {
        waits.addAll(f.get(60, TimeUnit.SECONDS));
      }
      Collections.sort(waits);
      // The k-th start is k intervals after the first: its wait is k hours less the time the
      // clock moved since the first, which is far less than an hour.
      for (int k = 0; k < waits.size(); k++) {
        assertThat(waits.get(k)).isBetween(Math.max(0, (k - 1) * HOUR), k * HOUR);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void pausedUntilIsNeverBeforeAnyPauseAndReadsTheCallersTicker() {
    long offset = 123_456_789_000L; // a ticker whose origin has nothing to do with Redis's
    Ticker shifted = () -> System.nanoTime() + offset;
    RedisPacerState state = redis.pacerState(name, shifted);
    assertThat(state.pausedUntil()).isEqualTo(Long.MIN_VALUE);

    long before = shifted.read();
    state.pauseUntil(before + 30 * SECOND);
    long afterPause = shifted.read();
    // Redis counts the 30 s from when the command arrived, between those two readings, so the
    // pause ends between them plus 30 s on the caller's ticker; a reading of it is off by at
    // most half its own round trip, and by Redis's microsecond truncation.
    for (RedisPacerState reader : List.of(state, redis.pacerState(name, shifted))) {
      long q0 = shifted.read();
      long got = reader.pausedUntil();
      long q1 = shifted.read();
      long error = (q1 - q0) / 2 + 2_000;
      assertThat(got).isBetween(before + 30 * SECOND - error, afterPause + 30 * SECOND + error);
    }
  }

  @Test
  void theKeyIsHashTaggedAndExpiresAfterAFewIntervals() {
    RedisPacerState state = redis.pacerState(name, TICKER);
    state.reserve(TICKER.read(), SECOND, 0, 0);
    byte[] key = LocalRedis.bytes("relent:{" + name + "}:pacer");

    long ttl = redis.commands().pttl(key);
    // Three times the longest of the interval and the queue ahead (one interval), plus a second.
    assertThat(ttl).isBetween(3_000L, 4_000L);

    state.pauseUntil(TICKER.read() + 100 * SECOND);
    assertThat(redis.commands().pttl(key)).isBetween(299_000L, 301_000L);
  }

  @Test
  void aRefundOfAStartThisInstanceDidNotReserveIsRefused() {
    RedisPacerState first = redis.pacerState(name, TICKER);
    RedisPacerState second = redis.pacerState(name, TICKER);
    long now = TICKER.read();
    long wait = first.reserve(now, HOUR, 0, Long.MAX_VALUE);

    assertThat(second.refund(now + wait, HOUR)).isFalse();
    assertThat(first.refund(now + wait, HOUR)).isTrue();
  }

  @Test
  void aScriptRedisDoesNotKnowIsLoadedAndRunOnce() {
    // A script no Redis has seen (its text is unique): EVALSHA answers NOSCRIPT first.
    Script fresh = Script.of("test", "return {" + System.nanoTime() + "}");
    byte[] key = LocalRedis.bytes(RedisPacerState.keyOf(name));

    assertThat(redis.run(fresh, "test", key)).hasSize(1);
    assertThat(redis.commands().scriptExists(fresh.sha())).containsExactly(true);
    redis.commands().scriptFlush(); // as after a restart: the pacer's own script reloads too
    assertThat(redis.pacerState(name, TICKER).reserve(0, SECOND, 0, 0)).isZero();
  }

  @Test
  void namesThatWouldBreakTheHashTagAreRefused() {
    assertThat(RedisPacerState.keyOf("payments-api")).isEqualTo("relent:{payments-api}:pacer");
    for (String bad : new String[] {"", "a{b", "a}b", "a b", "é", "x".repeat(201)}) {
      assertThatThrownBy(() -> RedisPacerState.keyOf(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void theRingOfRecentStartsFindsTheNewestMatchAndForgetsIt() {
    RedisPacerState.RecentStarts ring = new RedisPacerState.RecentStarts(3);
    ring.add(10, 100);
    ring.add(10, 101);
    ring.add(20, 200);
    assertThat(ring.take(10)).isEqualTo(101);
    assertThat(ring.take(10)).isEqualTo(100);
    assertThat(ring.take(10)).isEqualTo(RedisPacerState.RecentStarts.NONE);
    ring.add(30, 300);
    ring.add(40, 400);
    ring.add(50, 500); // pushes 20 out
    assertThat(ring.take(20)).isEqualTo(RedisPacerState.RecentStarts.NONE);
    assertThat(ring.take(50)).isEqualTo(500);
  }

  @Test
  void anIntervalOneProcessLearnedHoldsForEveryProcessUntilItLapses() throws Exception {
    try (RelentRedis other = LocalRedis.connect()) {
      RedisPacerState learner = redis.pacerState(name);
      RedisPacerState neighbour = other.pacerState(name);
      assertThat(neighbour.reserve(0, 10 * MS, 0, Long.MAX_VALUE)).isZero();

      learner.shareInterval(SECOND, 3_600 * SECOND);

      // The neighbour asks for 10 ms: its next start keeps the spacing already scheduled, and the
      // one after it comes the learned second later (less the time that passed between them).
      long before = System.nanoTime();
      long wait = neighbour.reserve(0, 10 * MS, 0, Long.MAX_VALUE);
      long next = neighbour.reserve(0, 10 * MS, 0, Long.MAX_VALUE);
      long passed = System.nanoTime() - before;
      assertThat(wait).isBetween(0L, 10 * MS);
      assertThat(next - wait).isBetween(SECOND - passed, SECOND + MS);

      // Lapsed: back to each process's own interval.
      learner.shareInterval(SECOND, 1);
      Thread.sleep(2);
      before = System.nanoTime();
      long after = neighbour.reserve(0, 10 * MS, 0, Long.MAX_VALUE);
      long then = neighbour.reserve(0, 10 * MS, 0, Long.MAX_VALUE);
      passed = System.nanoTime() - before;
      assertThat(then - after).isBetween(10 * MS - passed, 11 * MS);
      assertThatThrownBy(() -> learner.shareInterval(0, SECOND))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must be > 0");
    }
  }

  @Test
  void processesUpdateOneControllerStateInTurnAndNoUpdateIsLost() throws Exception {
    // Eight threads on two connections each add one to the shared count 50 times: every update
    // reads what the others wrote, so the count ends at 400 (a lost update would leave less).
    try (RelentRedis other = LocalRedis.connect()) {
      RedisPacerState[] states = {redis.pacerState(name, TICKER), other.pacerState(name, TICKER)};
      int threads = 8;
      int each = 50;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CyclicBarrier together = new CyclicBarrier(threads);
      List<Future<Integer>> lost = new ArrayList<>();
      try {
        for (int i = 0; i < threads; i++) {
          RedisPacerState state = states[i % 2];
          lost.add(
              pool.submit(
                  () -> {
                    together.await();
                    int gaveUp = 0;
                    for (int k = 0; k < each; k++) {
                      while (state.updateControl(
                              (current, offset) ->
                                  new long[] {current == null ? 1 : current[0] + 1})
                          == null) {
                        gaveUp++; // lost the race eight times in a row: try again
                      }
                    }
                    return gaveUp;
                  }));
        }
        for (Future<Integer> f : lost) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      long[] last = states[0].updateControl((current, offset) -> current);
      assertThat(last).containsExactly(threads * each);
    }
  }

  @Test
  void theControllersClockIsRedisesAndTheOffsetMapsTheCallersTickerOntoIt() {
    RedisPacerState state = redis.pacerState(name, TICKER);
    long[] seen = new long[2];
    long before = LocalRedis.redisTimeNanos(redis);
    state.updateControl(
        (current, offset) -> {
          seen[0] = TICKER.read() + offset;
          return new long[] {7, -3, Long.MIN_VALUE, Long.MAX_VALUE};
        });
    long after = LocalRedis.redisTimeNanos(redis);
    assertThat(seen[0]).isBetween(before - MS, after + MS);
    state.updateControl(
        (current, offset) -> {
          assertThat(current).containsExactly(7, -3, Long.MIN_VALUE, Long.MAX_VALUE);
          return current;
        });
    byte[] key = LocalRedis.bytes(RedisPacerState.guardKey(name, "control"));
    assertThat(redis.commands().pttl(key)).isBetween(1L, RedisPacerState.CONTROL_TTL_MILLIS);
  }

  @Test
  void aValueThatIsNotAListOfNumbersCountsAsNoneAndIsOverwritten() {
    byte[] key = LocalRedis.bytes(RedisPacerState.guardKey(name, "control"));
    redis.commands().hset(key, LocalRedis.bytes("state"), LocalRedis.bytes("12,not a number,3"));
    RedisPacerState state = redis.pacerState(name, TICKER);
    List<long[]> given = new ArrayList<>();
    long[] written =
        state.updateControl(
            (current, offset) -> {
              given.add(current);
              return new long[] {1, 2};
            });
    assertThat(given).containsExactly((long[]) null);
    assertThat(written).containsExactly(1, 2);
    assertThat(RedisPacerState.decode(RedisPacerState.encode(new long[] {-1, 0, 42})))
        .containsExactly(-1, 0, 42);
    assertThat(RedisPacerState.decode(new byte[0])).isNull();
    assertThat(RedisPacerState.decode(LocalRedis.bytes("1,,2"))).isNull();
    assertThat(RedisPacerState.decode(LocalRedis.bytes("1,".repeat(2000) + "1"))).isNull();
  }

  @Test
  void theClockOffsetComesFromTheShortestRoundTripOfTheLastMinute() {
    RedisPacerState.ClockOffset offset = new RedisPacerState.ClockOffset();
    // Redis's clock is 1000 s ahead of the ticker; a round trip of 2 ms reads it at its middle.
    assertThat(offset.sample(0, 2 * MS, 1_000 * SECOND + MS)).isEqualTo(1_000 * SECOND);
    // A thread descheduled for 400 ms after Redis answered: the longer round trip is not used.
    assertThat(offset.sample(SECOND, SECOND + 400 * MS, 1_001 * SECOND + MS))
        .isEqualTo(1_000 * SECOND);
    // A shorter one is.
    assertThat(offset.sample(2 * SECOND, 2 * SECOND + MS, 1_002 * SECOND + MS))
        .isEqualTo(1_000 * SECOND + MS / 2);
    // After a minute the next sample replaces the best, whatever its round trip.
    assertThat(offset.sample(70 * SECOND, 70 * SECOND + 10 * MS, 1_070 * SECOND + 7 * MS))
        .isEqualTo(1_000 * SECOND + 2 * MS);
  }
}
