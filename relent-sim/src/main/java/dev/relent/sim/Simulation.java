package dev.relent.sim;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.time.FakeTime;
import dev.relent.time.ManualScheduler;
import dev.relent.time.RandomSource;
import dev.relent.time.TimeSource;
import java.util.concurrent.CompletableFuture;

/**
 * The event loop of one trial, on core's virtual time: {@link FakeTime} is the ticker and the clock
 * (wall time starts at 2026-01-01T00:00:00Z, so that messages show stable dates), its {@link
 * ManualScheduler} the event queue, and the trial's jitter its randomness. {@link #run()} runs the
 * earliest task, moving the time to it, until none is left; tasks due at the same nanosecond run in
 * the order they were scheduled, a cancelled one neither runs nor moves the time, and a task
 * scheduled in the past runs now. So a trial is a pure function of its inputs, and nothing waits.
 *
 * <p>Everything the executor waits for (backoff, attempt timeouts, pacer permits, concurrency
 * slots) becomes a task on this queue, as do the model's messages and servers.
 *
 * <p>Not thread-safe in use: a trial is confined to the thread that calls {@link #run()}, and every
 * callback it triggers runs on that thread inside a task.
 */
final class Simulation {
  private final FakeTime time = new FakeTime();
  private final ManualScheduler scheduler = time.scheduler();

  /**
   * The jitter source of a trial, derived from its seed; the network draws from the seed itself.
   */
  static RandomSource jitter(long seed) {
    return RandomSource.seeded(seed ^ 0x5DEECE66DL);
  }

  /** The virtual time now, in nanoseconds from the start of the trial. */
  long now() {
    return time.read();
  }

  /** Runs {@code task} at the given virtual time, or now if that has passed. */
  void at(long timeNanos, Runnable task) {
    scheduler.schedule(task, timeNanos - time.read());
  }

  /** Runs {@code task} after the given delay. */
  void after(long delayNanos, Runnable task) {
    scheduler.schedule(task, delayNanos);
  }

  /** Completes {@code reply} with {@code value} after the given delay: an answer on its way. */
  <T> void answer(CompletableFuture<T> reply, T value, long delayNanos) {
    after(delayNanos, () -> reply.complete(value));
  }

  /**
   * Returns this trial's virtual time with the jitter of {@code seed}: what an executor and the
   * guards it shares a time source with are built on.
   */
  TimeSource time(long seed) {
    return time.withRandom(jitter(seed));
  }

  /**
   * Returns an executor builder for the policy, on this trial's virtual time and with its jitter.
   * Every simulated call is asynchronous, so the time source's sleeper is never used.
   */
  <T> RelentExecutor.Builder<T> executor(RetryPolicy policy, long seed) {
    return RelentExecutor.<T>builder(policy).withTime(time(seed));
  }

  /**
   * Runs every task in time order until none is left.
   *
   * @throws IllegalStateException if more than 1 000 000 tasks run, the scheduler's guard against a
   *     task that keeps rescheduling itself; the largest trial (a storm) runs about 180 000
   */
  void run() {
    scheduler.runUntilIdle();
  }
}
