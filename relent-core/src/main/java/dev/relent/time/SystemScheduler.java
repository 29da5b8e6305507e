package dev.relent.time;

import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The default {@link Scheduler}: one lazily started daemon thread with a delay queue. Cancelled
 * tasks are removed from the queue at once so that 100 000 abandoned waits do not pin memory.
 */
final class SystemScheduler implements Scheduler {
  /** The shared instance. */
  public static final SystemScheduler INSTANCE = new SystemScheduler();

  private SystemScheduler() {}

  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
    Objects.requireNonNull(task, "task cannot be null");
    return Holder.EXECUTOR.schedule(task, Math.max(0L, delayNanos), TimeUnit.NANOSECONDS);
  }

  private static final class Holder {
    static final ScheduledThreadPoolExecutor EXECUTOR = create();

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              runnable -> {
                Thread thread = new Thread(runnable, "relent-scheduler");
                thread.setDaemon(true);
                return thread;
              });
      executor.setRemoveOnCancelPolicy(true);
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      return executor;
    }
  }
}
