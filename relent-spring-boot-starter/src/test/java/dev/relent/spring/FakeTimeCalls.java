package dev.relent.spring;

import dev.relent.time.FakeTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for an asynchronous call (a WebClient's) whose retry waits run on fake time: each wait it
 * schedules that is shorter than 5 s is a backoff or a pacer's wait and is run at once; the
 * attempt's own time limit (10 s by default) never falls due. The real wait, 5 ms a round, is for
 * the mock server's answer on its own threads.
 */
public final class FakeTimeCalls {
  private static final Duration RUN_BELOW = Duration.ofSeconds(5);

  private FakeTimeCalls() {}

  /**
   * Returns the call's result, or throws what it failed with (the cause, not the {@link
   * ExecutionException}).
   */
  public static <T> T drive(FakeTime time, CompletableFuture<T> call) throws Exception {
    int seen = 0;
    for (int round = 0; round < 10_000; round++) {
      try {
        return call.get(5, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
      } catch (TimeoutException notYet) {
        List<Duration> delays = time.scheduler().delays();
        for (; seen < delays.size(); seen++) {
          if (delays.get(seen).compareTo(RUN_BELOW) < 0) {
            time.scheduler().advance(delays.get(seen));
          }
        }
      }
    }
    throw new AssertionError("the call did not end: " + call);
  }
}
