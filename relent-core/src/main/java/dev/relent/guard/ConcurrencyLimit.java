package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.spi.ConcurrencyLimitState;
import dev.relent.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Limits how many operations are <em>active</em> at once: a semaphore with synchronous and
 * asynchronous waiters. The pacer limits how often operations start; this limits how many run
 * together (at 1.5 starts per second and 2 s per response, about 3).
 *
 * <p>Waiters, synchronous and asynchronous alike, are served first come, first served; a free slot
 * never sits unused while someone waits, so {@link #tryAcquire()} never overtakes a waiter. Every
 * acquire returns a {@link Permit}, a token whose {@link Permit#release()} gives the slot back
 * once: a second release is a no-op, never a second slot.
 *
 * <p>Thread-safe: at most one short critical section on a private lock per call (none while nobody
 * waits, with the default private state); a success allocates the permit and nothing else (and the
 * executor, which takes and gives back its slots through a primitive pair that allocates nothing,
 * not even that). This is the one guard that waits: a thread blocked in {@link #acquire(Duration)}
 * waits for another thread's release, in real time. Its state is a count, not a schedule, so unlike
 * the other guards it reads no time source and its builder has no {@code withTime}.
 *
 * <p>The count of slots in use lives in a {@link ConcurrencyLimitState}: by default a new in-memory
 * one per limit. With a shared state ({@link Builder#withState}) the limit bounds every process
 * that shares it; its waiters stay in this process, or, on a state that keeps the queue itself
 * (Redis's does), queue with every other process's, first come first served; see there for what
 * that changes.
 */
public interface ConcurrencyLimit {

  /**
   * Returns a new limit with all slots free and its own in-memory count.
   *
   * @param maxConcurrent the number of slots, &ge; 1
   * @return a new limit
   * @throws IllegalArgumentException if {@code maxConcurrent} &lt; 1
   */
  static ConcurrencyLimit of(int maxConcurrent) {
    return builder().withMaxConcurrent(maxConcurrent).build();
  }

  /**
   * Returns a builder; {@link Builder#withMaxConcurrent(int)} must be called before {@link
   * Builder#build()}.
   *
   * @return a new builder
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Takes a slot if one is free now.
   *
   * @return a permit holding the slot, or empty if none is free (or someone waits for one)
   */
  Optional<Permit> tryAcquire();

  /**
   * Takes a slot, blocking up to {@code timeout} for another thread to release one.
   *
   * @param timeout the longest wait; zero or negative does not wait
   * @return a permit holding the slot, or empty if the time ran out first
   * @throws NullPointerException if {@code timeout} is null
   * @throws InterruptedException if the thread is interrupted before or while waiting; then no slot
   *     is held (one granted at the same moment is passed on)
   */
  Optional<Permit> acquire(Duration timeout) throws InterruptedException;

  /**
   * Takes a slot when one is free, without blocking a thread. The future completes with a permit
   * once a slot is granted: at once if one is free (a new, already completed future), otherwise on
   * the thread whose call on this limit hands it a slot, before that call returns or blocks:
   * usually the one that releases a slot, but any call that finds a slot free for the queue (one
   * freed by another process sharing the state, say) may be it. Cancelling this future, or
   * completing it in any other way, before the slot is granted removes the waiter; a slot granted
   * to a future that was completed by someone else at the same moment is passed on, never leaked.
   * If {@code cancel} returns false, the slot was granted first and the future holds its permit, to
   * be released as usual. Cancelling a future derived from it (such as {@code thenApply}) does not
   * remove the waiter.
   *
   * @return a future that completes with a permit when the caller holds a slot
   */
  CompletableFuture<Permit> acquireAsync();

  /**
   * The executor's slot API: takes a slot if one is free now, without a permit, so that the
   * executor's success path allocates nothing. A slot taken this way must be given back with
   * exactly one {@link #releaseSlot()}; that pair is not a token (a second release frees someone
   * else's slot, or fails). Use {@link #tryAcquire()} otherwise.
   *
   * @return whether a slot was taken
   * @hidden
   */
  boolean tryAcquireSlot();

  /**
   * The executor's slot API: gives back a slot taken with {@link #tryAcquireSlot()}: to the longest
   * waiter if there is one, otherwise to the free slots.
   *
   * @throws IllegalStateException if this limit holds no slot (a release without an acquire)
   * @hidden
   */
  void releaseSlot();

  /**
   * Returns the number of free slots: {@code maxConcurrent} minus the slots in use in the state
   * (with a shared state, in use anywhere).
   *
   * @return between 0 and {@link #maxConcurrent()}
   */
  int available();

  /**
   * Returns the number of slots.
   *
   * @return &ge; 1
   */
  int maxConcurrent();

  /**
   * Returns the number of waiters not yet granted a slot.
   *
   * @return &ge; 0
   */
  int waiting();

  /**
   * A slot taken from a {@link ConcurrencyLimit}: a token for one acquire. {@link #release()} gives
   * the slot back once; further calls do nothing, so a clean-up that may run twice never frees
   * someone else's slot. Thread-safe. A permit never released keeps its slot for ever.
   */
  interface Permit extends AutoCloseable {

    /**
     * Gives the slot back, to the limit's longest waiter if there is one, otherwise to the free
     * slots; does nothing if this permit was released already.
     */
    void release();

    /** Same as {@link #release()}, for {@code try (Permit p = ...)}. */
    @Override
    default void close() {
      release();
    }
  }

  /**
   * Builds a {@link ConcurrencyLimit}. Mutable and not thread-safe; {@link #build()} may be called
   * repeatedly.
   */
  final class Builder {
    private int maxConcurrent;
    private ConcurrencyLimitState state;
    // 0: the default for the state (10 ms for a count, 1 s for a state that keeps the queue).
    private long pollNanos;

    Builder() {}

    /**
     * Sets the number of slots. Required.
     *
     * @param maxConcurrent &ge; 1
     * @return this builder
     * @throws IllegalArgumentException if {@code maxConcurrent} &lt; 1
     */
    public Builder withMaxConcurrent(int maxConcurrent) {
      if (maxConcurrent < 1) {
        throw new IllegalArgumentException("maxConcurrent must be >= 1: " + maxConcurrent);
      }
      this.maxConcurrent = maxConcurrent;
      return this;
    }

    /**
     * Counts the slots in use in the given state, for example one shared through Redis so that the
     * calls of every process together stay within the limit; default: a new in-memory state for
     * each limit built, private to it. Limits built with the same state share one count and must
     * have the same {@code maxConcurrent}.
     *
     * <p>On a state that keeps the queue of waiters ({@link ConcurrencyLimitState#queuesWaiters()},
     * such as the Redis one), waiters are first come, first served across every process that shares
     * it: each waiter queues a ticket there (in the same operation that takes a slot if one is free
     * and no ticket waits), a slot released anywhere, here too, goes to the oldest ticket of the
     * whole queue, never to a local waiter ahead of it, and {@link #tryAcquire} takes none while
     * any ticket waits. The state wakes this limit when a slot may be free for its tickets, and the
     * limit then claims it on the {@linkplain Scheduler#system() system scheduler}'s thread (which
     * completes the futures it grants); a thread blocked in {@link
     * ConcurrencyLimit#acquire(Duration)} and the scheduler, while an asynchronous waiter is
     * queued, also claim every {@linkplain #withPollInterval poll interval} (default 1 s here), in
     * case a wake-up was lost. A waiter that gives up or is cancelled takes its ticket out. Each
     * queue, claim and release is one operation on the state, made while holding this limit's lock.
     *
     * <p>On any other state, waiters stay local. A slot released in this process goes straight to
     * this process's longest waiter, as with a private state. A slot released by another process is
     * not announced: this limit notices it when one of its waiters polls the state. Every local
     * call ({@code tryAcquire}, {@code acquire}, {@code acquireAsync}, a permit's {@code release})
     * first polls for the waiters, and a thread blocked in {@link
     * ConcurrencyLimit#acquire(Duration)} also polls every {@linkplain #withPollInterval poll
     * interval}. An asynchronous waiter has no thread of its own: while one is queued, the
     * {@linkplain Scheduler#system() system scheduler} polls every poll interval, and completes the
     * futures it grants on its thread. A poll that fails (the state cannot be reached) is tried
     * again at the next interval, and the first failure of a run is logged as a warning through
     * {@link System.Logger}. Waiters are first come, first served within this process only, and a
     * free slot can sit unused for up to a poll interval. Each poll, acquire and release is one
     * operation on the state, made while holding this limit's lock: for a remote state, one round
     * trip at a time per limit.
     *
     * @param state where the count lives
     * @return this builder
     * @throws NullPointerException if {@code state} is null
     */
    public Builder withState(ConcurrencyLimitState state) {
      this.state = Objects.requireNonNull(state, "state cannot be null");
      return this;
    }

    /**
     * Sets how often a waiter (a thread blocked in {@link ConcurrencyLimit#acquire(Duration)}, or
     * the scheduler for asynchronous waiters) asks a state given with {@link #withState} for a slot
     * freed by another process; default 10 ms, or 1 s on a state that keeps the queue of waiters
     * and wakes them ({@link ConcurrencyLimitState#queuesWaiters()}), where the poll only makes up
     * for a lost wake-up. Unused with the default private state, where every release is local.
     *
     * @param interval &gt; 0
     * @return this builder
     * @throws NullPointerException if {@code interval} is null
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public Builder withPollInterval(Duration interval) {
      this.pollNanos = Nanos.positiveNanos("pollInterval", interval);
      return this;
    }

    /**
     * Builds the limit.
     *
     * @return a new limit
     * @throws IllegalStateException if {@code maxConcurrent} was not set
     */
    public ConcurrencyLimit build() {
      if (maxConcurrent == 0) {
        throw new IllegalStateException("maxConcurrent must be set: call withMaxConcurrent(n)");
      }
      return state == null
          ? new LocalConcurrencyLimit(maxConcurrent, ConcurrencyLimitState.inMemory())
          : new SharedConcurrencyLimit(
              maxConcurrent,
              state,
              pollNanos != 0 ? pollNanos : state.queuesWaiters() ? 1_000_000_000L : 10_000_000L,
              Scheduler.system());
    }
  }
}
