package dev.relent.time;

import java.util.concurrent.Future;

/**
 * Runs a task after a delay without blocking a thread while it waits: how an asynchronous execution
 * waits between attempts. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Scheduler {

  /**
   * Schedules a task to run once after the given delay.
   *
   * @param task what to run; it must not block, since it may run on the scheduler's own thread
   * @param delayNanos how long to wait first; zero or negative runs it as soon as possible
   * @return a future whose {@link Future#cancel(boolean) cancel} keeps the task from running if it
   *     has not started
   * @throws NullPointerException if {@code task} is null
   */
  Future<?> schedule(Runnable task, long delayNanos);

  /**
   * Returns the shared system scheduler: one daemon thread, created on first use, that only hands
   * due tasks on and never runs user code for long.
   *
   * @return the system scheduler, shared and thread-safe
   */
  static Scheduler system() {
    return SystemScheduler.INSTANCE;
  }
}
