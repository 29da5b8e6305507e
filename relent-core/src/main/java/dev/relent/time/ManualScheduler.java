package dev.relent.time;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * A {@link Scheduler} driven by a {@link FakeTime}: nothing runs until the test calls {@link
 * #advance(Duration)} or {@link #runUntilIdle()}, which move the fake time to each due task in
 * order and run it on the calling thread. Asynchronous executions then become as exact as
 * synchronous ones.
 *
 * <p>The futures it returns behave as the JDK's scheduled executor's do: {@code cancel} keeps a
 * task from running (a cancelled task neither runs nor moves time) and costs no exception; {@code
 * get} returns null once the task has run, or throws as it failed or was cancelled. A task that
 * throws completes its future exceptionally and the exception propagates to the thread that
 * advances.
 *
 * <p>Thread-safe: tasks may be scheduled from any thread; they run on the thread that advances.
 */
public final class ManualScheduler implements Scheduler {
  private final FakeTime time;
  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private final List<Duration> delays = new ArrayList<>();
  private long sequence;

  /**
   * Creates a scheduler on the given fake time.
   *
   * @param time the time to read and advance
   * @throws NullPointerException if {@code time} is null
   */
  public ManualScheduler(FakeTime time) {
    this.time = Objects.requireNonNull(time, "time cannot be null");
  }

  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
    Objects.requireNonNull(task, "task cannot be null");
    long delay = Math.max(0L, delayNanos);
    synchronized (this) {
      Task scheduled = new Task(task, saturatedAdd(time.read(), delay), sequence++);
      queue.add(scheduled);
      delays.add(Duration.ofNanos(delay));
      return scheduled;
    }
  }

  /**
   * Advances time by the given amount, running every task that falls due on the way, in order of
   * due time (ties in order of scheduling). Tasks scheduled by those tasks run too if they fall due
   * within the same span.
   *
   * @param duration how far to advance
   * @return the number of tasks run
   */
  public int advance(Duration duration) {
    long until = saturatedAdd(time.read(), duration.toNanos());
    int ran = 0;
    while (true) {
      Task next;
      synchronized (this) {
        next = queue.peek();
        if (next == null || next.dueNanos > until) {
          break;
        }
        queue.poll();
      }
      if (next.isDone()) {
        continue; // cancelled: it neither runs nor moves time
      }
      time.advanceTo(next.dueNanos);
      if (next.runNow()) {
        ran++;
      }
    }
    time.advanceTo(until);
    return ran;
  }

  /**
   * Runs tasks in order of due time, advancing time to each, until none is left.
   *
   * @return the number of tasks run
   * @throws IllegalStateException if more than 1 000 000 tasks run: a task keeps rescheduling
   *     itself
   */
  public int runUntilIdle() {
    int ran = 0;
    while (true) {
      Task next;
      synchronized (this) {
        next = queue.poll();
      }
      if (next == null) {
        return ran;
      }
      if (next.isDone()) {
        continue; // cancelled: it neither runs nor moves time
      }
      time.advanceTo(next.dueNanos);
      if (next.runNow() && ++ran > 1_000_000) {
        throw new IllegalStateException("more than 1000000 tasks ran: a task keeps rescheduling");
      }
    }
  }

  /**
   * Returns the number of tasks waiting that were not cancelled.
   *
   * @return the pending count
   */
  public synchronized int pending() {
    return (int) queue.stream().filter(t -> !t.isDone()).count();
  }

  /**
   * Returns every delay requested so far, in order of scheduling.
   *
   * @return an immutable copy
   */
  public synchronized List<Duration> delays() {
    return List.copyOf(delays);
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  /**
   * A scheduled task and its future. A {@link FutureTask}, as the JDK's scheduled executor hands
   * out, so that cancelling one, which the executor does with every attempt timeout it no longer
   * needs, only flips its state: no exception is made until someone calls {@code get()}.
   */
  private static final class Task extends FutureTask<Void> implements Comparable<Task> {
    final long dueNanos;
    final long order;
    private Throwable failure;

    Task(Runnable runnable, long dueNanos, long order) {
      super(runnable, null);
      this.dueNanos = dueNanos;
      this.order = order;
    }

    /** Runs the task unless it was cancelled; a failure completes its future and is rethrown. */
    boolean runNow() {
      if (isDone()) {
        return false; // cancelled
      }
      run();
      if (failure instanceof RuntimeException e) {
        throw e;
      }
      if (failure instanceof Error e) {
        throw e;
      }
      if (failure != null) {
        throw new IllegalStateException("a scheduled task failed", failure);
      }
      return true;
    }

    @Override
    protected void setException(Throwable t) {
      failure = t;
      super.setException(t);
    }

    @Override
    public int compareTo(Task other) {
      int byDue = Long.compare(dueNanos, other.dueNanos);
      return byDue != 0 ? byDue : Long.compare(order, other.order);
    }
  }
}
