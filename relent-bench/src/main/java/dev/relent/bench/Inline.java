package dev.relent.bench;

import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one scheduling rule every library gets in the asynchronous benchmarks: a task due now runs at
 * once on the calling thread (a zero backoff is no wait, as a fake sleeper makes it in the
 * synchronous ones); a later task goes to one shared daemon thread. Relent's later tasks go to its
 * own default scheduler instead, which is the same kind of single-thread delay queue.
 */
final class Inline {
  private Inline() {}

  /** The delay queue behind the peers' later tasks. */
  static final ScheduledThreadPoolExecutor LATER = newDelayQueue();

  /** Relent's {@link dev.relent.time.Scheduler}. */
  static final dev.relent.time.Scheduler RELENT =
      (task, delayNanos) -> {
        if (delayNanos <= 0) {
          task.run();
          return Done.INSTANCE;
        }
        return dev.relent.time.Scheduler.system().schedule(task, delayNanos);
      };

  /** Failsafe's {@link dev.failsafe.spi.Scheduler}. */
  static final dev.failsafe.spi.Scheduler FAILSAFE =
      new dev.failsafe.spi.Scheduler() {
        @Override
        public ScheduledFuture<?> schedule(Callable<?> callable, long delay, TimeUnit unit) {
          if (delay <= 0) {
            try {
              callable.call();
            } catch (Exception e) {
              // Failsafe's own callables complete their promise with the failure themselves.
              throw new IllegalStateException("a Failsafe task failed inline", e);
            }
            return Done.INSTANCE;
          }
          return LATER.schedule(callable, delay, unit);
        }
      };

  /** Resilience4j's scheduler: its asynchronous retry asks a ScheduledExecutorService. */
  static final ScheduledThreadPoolExecutor RESILIENCE4J = new InlineNowExecutor();

  private static ScheduledThreadPoolExecutor newDelayQueue() {
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = new Thread(runnable, "bench-later");
              thread.setDaemon(true);
              return thread;
            });
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }

  /** Runs tasks due now on the caller; hands later ones to {@link #LATER}. */
  private static final class InlineNowExecutor extends ScheduledThreadPoolExecutor {
    InlineNowExecutor() {
      super(0);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      if (delay <= 0) {
        command.run();
        return Done.INSTANCE;
      }
      return LATER.schedule(command, delay, unit);
    }
  }

  /** A task that has already run. */
  static final class Done implements ScheduledFuture<Object> {
    static final Done INSTANCE = new Done();

    private Done() {}

    @Override
    public long getDelay(TimeUnit unit) {
      return 0;
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(0, other.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return false;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public boolean isDone() {
      return true;
    }

    @Override
    public Object get() {
      return null;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return null;
    }
  }
}
