package dev.relent;

import dev.relent.internal.BucketedCounts;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

/**
 * The {@link CircuitBreaker}.
 *
 * <p>State machine (see the interface): {@code CLOSED --rate over threshold--> OPEN --open duration
 * passed, lazily--> HALF_OPEN --all probes succeeded--> CLOSED}, and {@code HALF_OPEN --a probe
 * failed--> OPEN}.
 *
 * <p>Concurrency: all fields are guarded by {@code lock} ({@code state} is also volatile, so that
 * {@link #tryAcquirePermission} permits a call while closed without taking the lock); every public
 * method is at most one critical section of O(1) work (advancing a time window clears at most 10
 * buckets). Transitions are queued under the lock and delivered after it is released by whichever
 * thread finds no delivery in progress, so listeners see them one at a time and in order, may call
 * back into the breaker, and never run under the lock. Without listeners no transition object is
 * created, and the success path allocates nothing.
 *
 * <p>Counts: a count window is a ring of the last N outcomes with a running failure count; a time
 * window is {@link BucketedCounts} with calls as the first counter and failures as the second.
 */
final class CircuitBreakerImpl implements CircuitBreaker {
  private static final System.Logger LOG = System.getLogger(CircuitBreaker.class.getName());

  private final double threshold;
  private final int minimumCalls;
  private final long openDurationNanos;
  private final int halfOpenProbes;
  private final List<Consumer<Transition>> listeners;
  private final boolean notify;

  private final Object lock = new Object();
  // Count window (null when a time window is used).
  private final boolean[] ring;
  private int ringNext;
  private int ringSize;
  private int ringFailures;
  // Time window (null when a count window is used).
  private final BucketedCounts buckets;

  // Volatile for the lock-free read in tryAcquirePermission; written only under the lock.
  private volatile State state = State.CLOSED;
  private long openedAt;
  private int probesInFlight;
  private int probesSucceeded;
  // Count window only: closed, the window full and no failure in it. A success then changes
  // nothing: it replaces a success, and while every slot holds the same outcome the ring's position
  // does not matter (a later failure leaves after exactly N more outcomes wherever it lands). So
  // onSuccess returns without the lock or any write, and a healthy breaker shared by many threads
  // is read-only. A success skipped concurrently with a recorded failure linearizes before it.
  // Written only under the lock, by updateQuiet().
  private volatile boolean quiet;
  private final ArrayDeque<Transition> pending = new ArrayDeque<>();
  private boolean delivering;

  CircuitBreakerImpl(CircuitBreaker.Builder builder) {
    this.threshold = builder.failureRateThreshold;
    this.minimumCalls = builder.minimumCalls;
    this.openDurationNanos = builder.openDurationNanos;
    this.halfOpenProbes = builder.halfOpenProbes;
    this.listeners = List.copyOf(builder.listeners);
    this.notify = !listeners.isEmpty();
    if (builder.countWindow > 0) {
      this.ring = new boolean[builder.countWindow];
      this.buckets = null;
    } else {
      this.ring = null;
      this.buckets = new BucketedCounts(builder.timeWindowNanos / 10, 10);
    }
  }

  @Override
  public long tryAcquirePermission(long nowNanos) {
    // Closed permits every call and changes nothing, so it needs no lock: a transition racing with
    // this read is the same as the call arriving just before it.
    if (state == State.CLOSED) {
      return 0;
    }
    long result;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return 0;
      }
      if (state == State.OPEN) {
        long left = openNanosLeft(nowNanos);
        if (left > 0) {
          return left;
        }
        transition(State.HALF_OPEN, nowNanos);
      }
      if (probesInFlight + probesSucceeded < halfOpenProbes) {
        probesInFlight++;
        result = 0;
      } else {
        result = openDurationNanos;
      }
    }
    deliver();
    return result;
  }

  @Override
  public void onSuccess(long nowNanos) {
    if (quiet) {
      return;
    }
    synchronized (lock) {
      if (state == State.CLOSED) {
        record(false, nowNanos);
      } else if (state == State.HALF_OPEN && probesInFlight > 0) {
        probesInFlight--;
        probesSucceeded++;
        if (probesSucceeded >= halfOpenProbes) {
          clearWindow();
          transition(State.CLOSED, nowNanos);
        }
      } else {
        // Open, or half-open with no probe out: a call permitted before the breaker opened.
        return;
      }
    }
    deliver();
  }

  @Override
  public void onFailure(long nowNanos) {
    synchronized (lock) {
      if (state == State.CLOSED) {
        record(true, nowNanos);
      } else if (state == State.HALF_OPEN && probesInFlight > 0) {
        openedAt = nowNanos;
        transition(State.OPEN, nowNanos);
      } else {
        return;
      }
    }
    deliver();
  }

  @Override
  public void releasePermission() {
    synchronized (lock) {
      if (state == State.HALF_OPEN && probesInFlight > 0) {
        probesInFlight--;
      }
    }
  }

  @Override
  public State state(long nowNanos) {
    State result;
    synchronized (lock) {
      halfOpenIfDue(nowNanos);
      result = state;
    }
    deliver();
    return result;
  }

  @Override
  public Metrics metrics(long nowNanos) {
    Metrics result;
    synchronized (lock) {
      halfOpenIfDue(nowNanos);
      long calls;
      long failures;
      if (ring != null) {
        calls = ringSize;
        failures = ringFailures;
      } else {
        if (state == State.CLOSED) {
          buckets.advance(nowNanos);
        }
        calls = buckets.firstTotal();
        failures = buckets.secondTotal();
      }
      double rate = calls == 0 ? 0.0 : failures * 100.0 / calls;
      result = new Metrics(state, calls, failures, rate, probesInFlight, probesSucceeded);
    }
    deliver();
    return result;
  }

  @Override
  public String toString() {
    synchronized (lock) {
      return "CircuitBreaker[" + state + "]";
    }
  }

  private long openNanosLeft(long nowNanos) {
    long elapsed = nowNanos - openedAt;
    return elapsed >= openDurationNanos ? 0 : openDurationNanos - elapsed;
  }

  private void halfOpenIfDue(long nowNanos) {
    if (state == State.OPEN && openNanosLeft(nowNanos) == 0) {
      transition(State.HALF_OPEN, nowNanos);
    }
  }

  /** Records a closed-state outcome and opens the breaker if the window says so. */
  private void record(boolean failure, long nowNanos) {
    long calls;
    long failures;
    if (ring != null) {
      if (ringSize == ring.length) {
        if (ring[ringNext]) {
          ringFailures--;
        }
      } else {
        ringSize++;
      }
      ring[ringNext] = failure;
      if (failure) {
        ringFailures++;
      }
      ringNext = ringNext + 1 == ring.length ? 0 : ringNext + 1;
      calls = ringSize;
      failures = ringFailures;
    } else {
      buckets.addFirst(nowNanos, 1);
      if (failure) {
        buckets.addSecond(nowNanos, 1);
      }
      calls = buckets.firstTotal();
      failures = buckets.secondTotal();
    }
    // Multiply rather than divide: exact at the boundary for whole-number thresholds.
    if (calls >= minimumCalls && failures * 100.0 >= threshold * calls) {
      openedAt = nowNanos;
      transition(State.OPEN, nowNanos);
    }
    updateQuiet();
  }

  private void updateQuiet() {
    quiet = ring != null && state == State.CLOSED && ringSize == ring.length && ringFailures == 0;
  }

  private void clearWindow() {
    if (ring != null) {
      ringNext = 0;
      ringSize = 0;
      ringFailures = 0;
    } else {
      buckets.clear();
    }
  }

  private void transition(State to, long nowNanos) {
    State from = state;
    state = to;
    probesInFlight = 0;
    probesSucceeded = 0;
    updateQuiet();
    if (notify) {
      pending.add(new Transition(from, to, nowNanos));
    }
  }

  /** Delivers queued transitions unless another thread (or an outer frame) already does. */
  private void deliver() {
    if (!notify) {
      return;
    }
    for (; ; ) {
      Transition next;
      synchronized (lock) {
        if (delivering || pending.isEmpty()) {
          return;
        }
        next = pending.poll();
        delivering = true;
      }
      try {
        for (Consumer<Transition> listener : listeners) {
          try {
            listener.accept(next);
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "circuit breaker listener failed on " + next, e);
          }
        }
      } finally {
        synchronized (lock) {
          delivering = false;
        }
      }
    }
  }
}
