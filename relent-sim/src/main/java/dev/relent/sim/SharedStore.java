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

  /**
   * The count of a concurrency limit shared by the fleet's processes, with the fleet's queue of
   * waiters (relent-redis's ticket queue): first come, first served across the processes.
   */
  static final class Count {
    private final int max;
    private int inUse;
    private final ArrayDeque<Slots.Waiter> queue = new ArrayDeque<>();

    Count(int max) {
      this.max = max;
    }
  }

  /**
   * One process's concurrency limit on a shared {@link Count}, as relent-core's shared limit works
   * on relent-redis's state: a slot is taken at once only when it is free and nobody in the fleet
   * waits; otherwise the caller takes a ticket in the fleet's queue. A released slot goes to the
   * fleet's oldest ticket, whichever process holds it, which is woken {@code wakeNanos} later (the
   * release's message through Redis); with no ticket waiting it goes back to the count.
   */
  static final class Slots implements ConcurrencyLimit {
    private final Simulation sim;
    private final Count count;
    private final long wakeNanos;
    private int held;
    private int waiting;

    /** A ticket of this process in the fleet's queue. */
    final class Waiter {
      final CompletableFuture<Permit> future = new CompletableFuture<>();

      void grant() {
        waiting--;
        held++;
        sim.after(wakeNanos, () -> future.complete(permit()));
      }
    }

    Slots(Simulation sim, Count count, long wakeNanos) {
      this.sim = sim;
      this.count = count;
      this.wakeNanos = wakeNanos;
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
      if (tryAcquireSlot()) {
        return CompletableFuture.completedFuture(permit());
      }
      Waiter w = new Waiter();
      waiting++;
      count.queue.addLast(w);
      return w.future;
    }

    @Override
    public boolean tryAcquireSlot() {
      if (count.queue.isEmpty() && count.inUse < count.max) {
        count.inUse++;
        held++;
        return true;
      }
      return false;
    }

    @Override
    public void releaseSlot() {
      held--;
      Waiter next = count.queue.pollFirst();
      if (next != null) {
        next.grant(); // the slot passes to the fleet's oldest ticket: the count does not change
      } else {
        count.inUse--;
      }
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
      return waiting;
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
      return "Slots[" + held + " of " + count.max + " held here, " + waiting + " waiting]";
    }
  }
}
