package dev.relent.spi;

import dev.relent.internal.BucketedCounts;

/**
 * The default {@link CircuitBreakerState}: the reference algorithm behind one monitor.
 *
 * <p>Counts: a count window is a ring of the last N outcomes with a running failure count; a time
 * window is {@link BucketedCounts} with calls as the first counter and failures as the second.
 *
 * <p>Concurrency: every method holds a private lock for O(1) work (sliding a time window clears at
 * most its number of buckets), so each operation is atomic, with two lock-free fast paths for a
 * healthy breaker: a permission while closed (a transition racing with that read is the same as the
 * call arriving just before it), and a success while closed with a full count window holding no
 * failure (the success replaces a success and changes nothing; one skipped concurrently with a
 * recorded failure linearizes before it). A healthy breaker shared by many threads is then
 * read-only. The window is created on the first call from that call's configuration; a later call
 * with another window is a programming error (two differently configured breakers sharing one
 * state) and throws. Nothing is allocated per call except by {@link #snapshot}.
 */
final class InMemoryCircuitBreakerState implements CircuitBreakerState {
  private final Object lock = new Object();
  // Count window; null until the first call, or when a time window is used.
  private boolean[] ring;
  private int ringNext;
  private int ringSize;
  private int ringFailures;
  // Time window; null until the first call, or when a count window is used.
  private BucketedCounts buckets;

  // Volatile for the lock-free reads of the fast paths; written only under the lock.
  private volatile Phase mode = Phase.CLOSED;
  // Closed, count window full, no failure in it: see the class comment. Written by updateQuiet().
  private volatile boolean quiet;
  private long openedAt;
  private int inFlight;
  private int succeeded;

  /** Creates a closed state with an empty window. */
  public InMemoryCircuitBreakerState() {}

  @Override
  public long tryAcquirePermission(long nowNanos, Config config) {
    if (mode == Phase.CLOSED) {
      return 0;
    }
    synchronized (lock) {
      if (mode == Phase.CLOSED) {
        return 0;
      }
      boolean halfOpened = false;
      if (mode == Phase.OPEN) {
        long left = CircuitBreakerState.openNanosLeft(openedAt, nowNanos, config);
        if (left > 0) {
          return left;
        }
        enter(Phase.HALF_OPEN);
        halfOpened = true;
      }
      if (inFlight + succeeded < config.halfOpenProbes()) {
        inFlight++;
        return halfOpened ? PERMITTED_AND_HALF_OPENED : 0;
      }
      return config.openDurationNanos();
    }
  }

  @Override
  public Change onSuccess(long nowNanos, Config config) {
    if (quiet) {
      return null;
    }
    synchronized (lock) {
      if (mode == Phase.CLOSED) {
        return record(false, nowNanos, config);
      }
      if (mode == Phase.HALF_OPEN && inFlight > 0) {
        inFlight--;
        succeeded++;
        if (succeeded >= config.halfOpenProbes()) {
          clearWindow(config);
          enter(Phase.CLOSED);
          return Change.HALF_OPEN_TO_CLOSED;
        }
      }
      // Otherwise open, or half-open with no probe out: a call permitted before the breaker opened.
      return null;
    }
  }

  @Override
  public Change onFailure(long nowNanos, Config config) {
    synchronized (lock) {
      if (mode == Phase.CLOSED) {
        return record(true, nowNanos, config);
      }
      if (mode == Phase.HALF_OPEN && inFlight > 0) {
        openedAt = nowNanos;
        enter(Phase.OPEN);
        return Change.HALF_OPEN_TO_OPEN;
      }
      return null;
    }
  }

  @Override
  public void releasePermission(Config config) {
    synchronized (lock) {
      if (mode == Phase.HALF_OPEN && inFlight > 0) {
        inFlight--;
      }
    }
  }

  @Override
  public Snapshot snapshot(long nowNanos, Config config) {
    synchronized (lock) {
      Change change = null;
      if (mode == Phase.OPEN
          && CircuitBreakerState.openNanosLeft(openedAt, nowNanos, config) == 0) {
        enter(Phase.HALF_OPEN);
        change = Change.OPEN_TO_HALF_OPEN;
      }
      long calls;
      long failures;
      if (window(config)) {
        calls = ringSize;
        failures = ringFailures;
      } else {
        if (mode == Phase.CLOSED) {
          buckets.advance(nowNanos);
        }
        calls = buckets.firstTotal();
        failures = buckets.secondTotal();
      }
      long left =
          mode == Phase.OPEN ? CircuitBreakerState.openNanosLeft(openedAt, nowNanos, config) : 0;
      return new Snapshot(mode, calls, failures, inFlight, succeeded, change, left);
    }
  }

  /** Returns the mode as last left, without the lazy transition (no time is known here). */
  @Override
  public String toString() {
    synchronized (lock) {
      return mode.name();
    }
  }

  /** Records a closed-state outcome and opens if the window says so. */
  private Change record(boolean failure, long nowNanos, Config config) {
    long calls;
    long failures;
    if (window(config)) {
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
    if (CircuitBreakerState.shouldOpen(calls, failures, config)) {
      openedAt = nowNanos;
      enter(Phase.OPEN);
      return Change.CLOSED_TO_OPEN;
    }
    updateQuiet();
    return null;
  }

  private void updateQuiet() {
    quiet = ring != null && mode == Phase.CLOSED && ringSize == ring.length && ringFailures == 0;
  }

  private void clearWindow(Config config) {
    if (window(config)) {
      ringNext = 0;
      ringSize = 0;
      ringFailures = 0;
    } else {
      buckets.clear();
    }
  }

  private void enter(Phase to) {
    mode = to;
    inFlight = 0;
    succeeded = 0;
    updateQuiet();
  }

  /**
   * Creates the window on the first call and checks that later calls agree with it.
   *
   * @return {@code true} for a count window (the ring), {@code false} for a time window
   */
  private boolean window(Config config) {
    if (ring == null && buckets == null) {
      if (config.isCountWindow()) {
        ring = new boolean[config.windowCalls()];
      } else {
        buckets = new BucketedCounts(config.bucketNanos(), config.buckets());
      }
    } else if (ring != null
        ? ring.length != config.windowCalls()
        : buckets.bucketNanos() != config.bucketNanos() || buckets.buckets() != config.buckets()) {
      throw new IllegalArgumentException(
          "this circuit breaker state counts over "
              + (ring != null
                  ? describe(ring.length, 0, 0)
                  : describe(0, buckets.bucketNanos(), buckets.buckets()))
              + " and cannot also count over "
              + describe(config.windowCalls(), config.bucketNanos(), config.buckets())
              + ": give each differently configured breaker its own state");
    }
    return ring != null;
  }

  private static String describe(int calls, long bucketNanos, int buckets) {
    return calls > 0
        ? "the last " + calls + " calls"
        : buckets + " buckets of " + bucketNanos + " ns";
  }
}
