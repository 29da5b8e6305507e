package dev.relent.sim;

import dev.relent.guard.ConcurrencyLimit;
import dev.relent.spi.PacerState;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis of a simulated fleet ({@code relent batch --shared}): the states relent-redis keeps
 * there, on the trial's virtual time. A round trip takes no virtual time inside a call (relent-core
 * calls a state synchronously); the model adds it where a process waits for one (before an attempt
 * reaches the limiter, and between a worker's requests). Not thread-safe: a trial is confined to
 * one thread.
 */
final class SharedStore {
  private SharedStore() {}

  /**
   * relent-redis's {@code RedisPacerState} as its Lua script computes it, on the store's clock (the
   * trial's): GCRA with refund and pause, and the interval a process learned from a throttle
   * ({@link #shareInterval}) used by every process's reservation until it lapses, the burst
   * tolerance scaled with it. {@link #respace} keeps its spacing (the default), and the state is
   * {@linkplain #isShared shared}. The fleet's rate controller ({@link #updateControl}) is kept as
   * Redis keeps it, on the same clock as the callers' (so the offset is 0); one update at a time of
   * the trial's single thread, so no write is ever lost to another. The fallback to memory when
   * Redis is lost is not modelled.
   */
  static final class Pacer implements PacerState {
    private static final long NEVER = Long.MIN_VALUE;
    private final Simulation sim;
    private long tat = NEVER;
    private long last = NEVER;
    private long count;
    private long paused = NEVER;
    private long learned = NEVER;
    private long learnedUntil = NEVER;
    private long[] control;

    Pacer(Simulation sim) {
      this.sim = sim;
    }

    @Override
    public long reserve(long nowNanos, long intervalNanos, long toleranceNanos, long maxWaitNanos) {
      long now = sim.now();
      long t = intervalNanos;
      long tau = toleranceNanos;
      if (learned != NEVER && learnedUntil > now && learned > t) {
        tau = (long) ((double) tau / t * learned);
        t = learned;
      }
      long start = now;
      if (paused != NEVER && paused > start) {
        start = paused;
      }
      if (tat != NEVER && tat - tau > start) {
        start = tat - tau;
      }
      long wait = start - now;
      if (wait > maxWaitNanos) {
        return -wait;
      }
      tat = tat == NEVER || start > tat ? start + t : tat + t;
      if (last != NEVER && start == last) {
        count++;
      } else {
        last = start;
        count = 1;
      }
      return wait;
    }

    @Override
    public boolean refund(long reservedAtNanos, long intervalNanos) {
      // The caller's start is a reading of the same (virtual) clock as the store's.
      if (last != NEVER && count > 0 && reservedAtNanos == last) {
        tat -= intervalNanos;
        count--;
        return true;
      }
      return false;
    }

    @Override
    public void pauseUntil(long untilNanos) {
      if (untilNanos != NEVER && (paused == NEVER || untilNanos > paused)) {
        paused = untilNanos;
      }
    }

    @Override
    public long pausedUntil() {
      return paused;
    }

    @Override
    public void shareInterval(long intervalNanos, long holdNanos) {
      learned = intervalNanos;
      learnedUntil = sim.now() + holdNanos;
    }

    @Override
    public long[] updateControl(ControlUpdate update) {
      control = update.apply(control == null ? null : control.clone(), 0);
      return control;
    }

    @Override
    public boolean isShared() {
      return true;
    }
  }

  /** The count of a concurrency limit shared by the fleet's processes. */
  static final class Count {
    private final int max;
    private int inUse;

    Count(int max) {
      this.max = max;
    }

    boolean tryAcquire() {
      if (inUse < max) {
        inUse++;
        return true;
      }
      return false;
    }

    void release() {
      inUse--;
    }
  }

  /**
   * One process's concurrency limit on a shared {@link Count}, as relent-core's shared limit works
   * on relent-redis's state: waiters stay in the process, first come first served; a slot released
   * here goes straight to this process's longest waiter, while one released by another process is
   * noticed only when this one polls the count, every {@code pollNanos} while anyone waits here
   * (the batch's workers are threads blocked in {@code acquire}, each waking every poll interval).
   * A local call polls first and never overtakes a waiter.
   */
  static final class Slots implements ConcurrencyLimit {
    private final Simulation sim;
    private final Count count;
    private final long pollNanos;
    private final ArrayDeque<CompletableFuture<Permit>> waiters = new ArrayDeque<>();
    private boolean polling;
    private int held;

    Slots(Simulation sim, Count count, long pollNanos) {
      this.sim = sim;
      this.count = count;
      this.pollNanos = pollNanos;
    }

    @Override
    public java.util.Optional<Permit> tryAcquire() {
      return tryAcquireSlot() ? java.util.Optional.of(permit()) : java.util.Optional.empty();
    }

    @Override
    public java.util.Optional<Permit> acquire(java.time.Duration timeout) {
      throw new UnsupportedOperationException("the simulation waits asynchronously");
    }

    @Override
    public CompletableFuture<Permit> acquireAsync() {
      if (waiters.isEmpty() && take()) {
        return CompletableFuture.completedFuture(permit());
      }
      CompletableFuture<Permit> f = new CompletableFuture<>();
      waiters.addLast(f);
      f.whenComplete((p, t) -> waiters.remove(f));
      schedulePoll();
      return f;
    }

    @Override
    public boolean tryAcquireSlot() {
      poll();
      return waiters.isEmpty() && take();
    }

    @Override
    public void releaseSlot() {
      CompletableFuture<Permit> next;
      while ((next = waiters.pollFirst()) != null) {
        if (next.complete(permit())) {
          // Handed to this process's longest waiter: the count does not change.
          return;
        }
      }
      held--;
      count.release();
    }

    @Override
    public int available() {
      return Math.max(0, count.max - count.inUse);
    }

    @Override
    public int maxConcurrent() {
      return count.max;
    }

    @Override
    public int waiting() {
      return waiters.size();
    }

    private boolean take() {
      if (count.tryAcquire()) {
        held++;
        return true;
      }
      return false;
    }

    /** Takes the slots free in the count for the waiters here, oldest first. */
    private void poll() {
      while (!waiters.isEmpty() && take()) {
        waiters.pollFirst().complete(permit());
      }
    }

    private void schedulePoll() {
      if (polling) {
        return;
      }
      polling = true;
      sim.after(
          pollNanos,
          () -> {
            polling = false;
            poll();
            if (!waiters.isEmpty()) {
              schedulePoll();
            }
          });
    }

    private Permit permit() {
      boolean[] released = {false};
      return () -> {
        if (!released[0]) {
          released[0] = true;
          releaseSlot();
        }
      };
    }

    @Override
    public String toString() {
      return "Slots[" + held + " of " + count.max + " held here, " + waiters.size() + " waiting]";
    }
  }
}
