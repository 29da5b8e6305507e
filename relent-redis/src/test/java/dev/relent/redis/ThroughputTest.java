package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A rough figure, printed, not asserted beyond sanity: pacer decisions per second against the local
 * Redis, and the round trips each took (Redis's own command count: one EVALSHA apiece).
 */
class ThroughputTest {

  @Test
  void oneRoundTripPerDecision() throws Exception {
    try (RelentRedis redis = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("throughput");
      RedisPacerState state = redis.pacerState(name);
      state.reserve(0, 1, 0, Long.MAX_VALUE); // loads the script if needed
      long callsBefore = evalshaCalls(redis);
      int decisions = 2_000;
      long t0 = System.nanoTime();
      for (int i = 0; i < decisions; i++) {
        state.reserve(System.nanoTime(), 1, 0, Long.MAX_VALUE);
      }
      long serial = System.nanoTime() - t0;
      long roundTrips = evalshaCalls(redis) - callsBefore;

      int threads = 8;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      t0 = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        done.add(
            pool.submit(
                () -> {
                  for (int k = 0; k < decisions / threads; k++) {
                    state.reserve(System.nanoTime(), 1, 0, Long.MAX_VALUE);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      long parallel = System.nanoTime() - t0;
      pool.shutdownNow();
      redis.commands().del(LocalRedis.bytes(RedisPacerState.keyOf(name)));

      System.out.printf(
          "relent-redis: %d decisions, %d EVALSHA; 1 thread %.0f decisions/s (%.0f us each),"
              + " 8 threads %.0f decisions/s%n",
          decisions,
          roundTrips,
          decisions * 1e9 / serial,
          serial / 1e3 / decisions,
          decisions * 1e9 / parallel);
      assertThat(roundTrips).isBetween((long) decisions, decisions + 50L);
    }
  }

  /** EVALSHA calls Redis has served so far (INFO commandstats). */
  private static long evalshaCalls(RelentRedis redis) {
    String stats = redis.commands().info("commandstats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:")) {
        String calls = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
      }
    }
    return 0;
  }
}
