package dev.relent.sim.internal;

import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Scheduler;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Virtual time for one simulation run: a {@link Ticker}, a {@link Clock} and a {@link Scheduler}
 * over one event queue. Nothing waits; {@link #run()} pops the earliest task, moves the clock to
 * its time and runs it, until no task is left.
 *
 * <p>Design: a binary heap ordered by (time, sequence number), so tasks due at the same nanosecond
 * run in the order they were scheduled and a run is a pure function of its inputs. Cancelled tasks
 * stay in the heap and are skipped when popped, without moving the clock. Time never goes back: a
 * task scheduled in the past (delay &le; 0) runs at the current time, after the tasks already due
 * then.
 *
 * <p>Not thread-safe, unlike what the SPI asks of a production scheduler: a simulation is confined
 * to the one thread that calls {@link #run()}, and every callback it triggers (executor, futures)
 * runs on that thread inside a task.
 */
public final class VirtualTime implements Ticker, Clock, Scheduler {
  /** The wall-clock time at virtual zero: 2026-01-01T00:00:00Z, so messages show stable dates. */
  public static final long EPOCH_MILLIS = 1_767_225_600_000L;

  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private long now;
  private long sequence;
  private long executed;

  @Override
  public long read() {
    return now;
  }

  @Override
  public long millis() {
    return EPOCH_MILLIS + TimeUnit.NANOSECONDS.toMillis(now);
  }

  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
    return at(delayNanos <= 0 ? now : saturatedAdd(now, delayNanos), task);
  }

  /**
   * Schedules a task at an absolute virtual time; a time in the past means now.
   *
   * @param timeNanos when to run it
   * @param task what to run
   * @return a future that cancels the task
   */
  public Future<?> at(long timeNanos, Runnable task) {
    Objects.requireNonNull(task, "task cannot be null");
    Task t = new Task(Math.max(now, timeNanos), sequence++, task);
    queue.add(t);
    return t;
  }

  /** Runs every task, in time order, until none is left. */
  public void run() {
    Task t;
    while ((t = queue.poll()) != null) {
      if (t.state != Task.PENDING) {
        continue;
      }
      now = t.time;
      t.state = Task.DONE;
      executed++;
      t.task.run();
    }
  }

  /**
   * Returns how many tasks have run, for the cost figures in tests.
   *
   * @return a count
   */
  public long executed() {
    return executed;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  /** A scheduled task and its future. */
  /**
   * Returns this virtual time as a time source for an executor: its ticker, clock and scheduler,
   * the given randomness, and a sleeper that refuses (every simulated call is asynchronous).
   *
   * @param random the randomness
   * @return a time source
   */
  public TimeSource source(RandomSource random) {
    return TimeSource.of(
        this,
        this,
        nanos -> {
          throw new UnsupportedOperationException("the simulator runs asynchronous calls only");
        },
        this,
        random);
  }

  private static final class Task implements Future<Void>, Comparable<Task> {
    static final int PENDING = 0;
    static final int DONE = 1;
    static final int CANCELLED = 2;

    final long time;
    final long seq;
    final Runnable task;
    int state = PENDING;

    Task(long time, long seq, Runnable task) {
      this.time = time;
      this.seq = seq;
      this.task = task;
    }

    @Override
    public int compareTo(Task o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (state != PENDING) {
        return false;
      }
      state = CANCELLED;
      return true;
    }

    @Override
    public boolean isCancelled() {
      return state == CANCELLED;
    }

    @Override
    public boolean isDone() {
      return state != PENDING;
    }

    @Override
    public Void get() {
      return null;
    }

    @Override
    public Void get(long timeout, TimeUnit unit) {
      return null;
    }
  }
}
