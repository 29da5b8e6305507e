package dev.relent.spi;

import dev.relent.time.Ticker;

/**
 * Where a {@link dev.relent.guard.CircuitBreaker} keeps its state: in memory by default, or in a
 * store such as Redis so that many processes share one breaker. Implementations must make each
 * method one atomic operation (in Redis: one Lua script, one round trip) and must be thread-safe.
 *
 * <p>Sharing: breakers built on one state see one downstream through the same eyes: the failures of
 * every process count towards one window, all of them open together, and the half-open probes are
 * shared out among them. The price is one round trip for each permission and each outcome, where
 * the in-memory state costs a few nanoseconds; and an outage of the store becomes a problem of
 * every call. The default, one in-memory state per breaker, judges the downstream as this process
 * sees it.
 *
 * <p>The state is the mode ({@code CLOSED}, {@code OPEN}, {@code HALF_OPEN}, initially closed), a
 * window of outcomes (calls and failures), {@code openedAt}, and the half-open counters {@code
 * inFlight} and {@code succeeded}. The window is either the last {@link Config#windowCalls()}
 * outcomes, or the outcomes of a sliding time window of {@link Config#buckets()} buckets of {@link
 * Config#bucketNanos()} each (bucket {@code i} holds the outcomes with {@code floorDiv(t,
 * bucketNanos) == i}; the window at {@code now} is that bucket and the {@code buckets - 1} before
 * it; an outcome whose bucket has already left the window is dropped). Every store implements the
 * same rules, with {@link #shouldOpen} and {@link #openNanosLeft} as the arithmetic:
 *
 * <pre>
 * tryAcquirePermission(now):
 *   if mode == CLOSED: return 0
 *   halfOpened = false
 *   if mode == OPEN:
 *     left = openNanosLeft(openedAt, now)
 *     if left &gt; 0: return left                           // refused
 *     mode = HALF_OPEN; inFlight = 0; succeeded = 0; halfOpened = true
 *   if inFlight + succeeded &lt; halfOpenProbes:
 *     inFlight += 1
 *     return halfOpened ? PERMITTED_AND_HALF_OPENED : 0
 *   return openDurationNanos                              // every probe slot taken
 *
 * onSuccess(now) / onFailure(now):
 *   if mode == CLOSED:
 *     add the outcome to the window at now
 *     if shouldOpen(calls, failures): mode = OPEN; openedAt = now; return CLOSED_TO_OPEN
 *     return null
 *   if mode == HALF_OPEN and inFlight &gt; 0:
 *     success: inFlight -= 1; succeeded += 1
 *              if succeeded &ge; halfOpenProbes:
 *                clear the window; mode = CLOSED; inFlight = 0; succeeded = 0
 *                return HALF_OPEN_TO_CLOSED
 *     failure: mode = OPEN; openedAt = now; inFlight = 0; succeeded = 0; return HALF_OPEN_TO_OPEN
 *   return null                          // open, or half-open with no probe out: ignored
 *
 * releasePermission():  if mode == HALF_OPEN and inFlight &gt; 0: inFlight -= 1
 *
 * snapshot(now):
 *   if mode == OPEN and openNanosLeft(openedAt, now) == 0:
 *     mode = HALF_OPEN; inFlight = 0; succeeded = 0; change = OPEN_TO_HALF_OPEN
 *   if mode == CLOSED: slide a time window to now       // a frozen window stays as it is
 *   left = mode == OPEN ? openNanosLeft(openedAt, now) : 0
 *   return (mode, calls, failures, inFlight, succeeded, change, left)
 * </pre>
 *
 * <p>The window changes only while closed, so while open or half-open it shows what opened the
 * breaker. Each operation returns the transition it made, as a shared constant ({@code null} for
 * none), so that the breaker can tell its listeners; nothing is allocated on the success path.
 *
 * <p>All times are readings of the caller's {@link Ticker}. A store shared between processes needs
 * readings that are comparable between them (for example a ticker derived from a synchronised wall
 * clock) or must map them to its own time base; results are durations.
 */
public interface CircuitBreakerState {
  /**
   * The breaker's phase as a store keeps it; {@link dev.relent.guard.CircuitBreaker.State} lists
   * the same phases, in the same order, for users.
   */
  enum Phase {
    /** Calls go through and their outcomes are counted. */
    CLOSED,
    /** Calls are refused until the open period is over. */
    OPEN,
    /** A few probe calls test whether the downstream has recovered. */
    HALF_OPEN
  }

  /**
   * Returned by {@link #tryAcquirePermission} when the call is permitted as the first probe and
   * this very call moved the breaker from open to half-open.
   */
  long PERMITTED_AND_HALF_OPENED = -1L;

  /**
   * Atomically asks to make a call; while open, moves to half-open if the open period is over.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the breaker's settings
   * @return 0 if permitted (half-open: a probe slot is taken); {@link #PERMITTED_AND_HALF_OPENED}
   *     if permitted as a probe by the call that made the breaker half-open; &gt; 0 if refused: the
   *     nanos until the next probe may be tried
   */
  long tryAcquirePermission(long nowNanos, Config config);

  /**
   * Atomically records that a permitted call succeeded.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the breaker's settings
   * @return {@link Change#HALF_OPEN_TO_CLOSED} if this was the last probe needed, {@link
   *     Change#CLOSED_TO_OPEN} if the success still left the window over the threshold, otherwise
   *     {@code null}
   */
  Change onSuccess(long nowNanos, Config config);

  /**
   * Atomically records that a permitted call failed.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the breaker's settings
   * @return {@link Change#CLOSED_TO_OPEN} if the window is now over the threshold, {@link
   *     Change#HALF_OPEN_TO_OPEN} if a probe failed, otherwise {@code null}
   */
  Change onFailure(long nowNanos, Config config);

  /**
   * Atomically frees the probe slot of a permitted call that ended without an outcome; records
   * nothing.
   *
   * @param config the breaker's settings
   */
  void releasePermission(Config config);

  /**
   * Atomically makes the lazy open to half-open transition if it is due, and returns the state.
   *
   * @param nowNanos the caller's ticker reading
   * @param config the breaker's settings
   * @return a new snapshot
   */
  Snapshot snapshot(long nowNanos, Config config);

  /**
   * Returns a new in-memory state: a small lock around a ring of outcomes or a ring of buckets, no
   * allocation per call after the first. It takes its window from the first call and then refuses
   * another.
   *
   * @return a new state, closed, with an empty window
   */
  static CircuitBreakerState inMemory() {
    return new InMemoryCircuitBreakerState();
  }

  /**
   * The reference function: whether a closed breaker opens after an outcome.
   *
   * @param calls the calls in the window, including that outcome
   * @param failures the failures among them
   * @param config the threshold and minimum
   * @return {@code calls >= minimumCalls && failures * 100.0 >= failureRateThreshold * calls}, in
   *     double arithmetic (multiplying rather than dividing, so exact at the boundary for
   *     whole-number thresholds)
   */
  static boolean shouldOpen(long calls, long failures, Config config) {
    return calls >= config.minimumCalls()
        && failures * 100.0 >= config.failureRateThreshold() * calls;
  }

  /**
   * The reference function: how long an open breaker still refuses calls.
   *
   * @param openedAtNanos when it opened
   * @param nowNanos the caller's ticker reading
   * @param config the open duration
   * @return {@code openDuration - (now - openedAt)} while that is positive, otherwise 0
   */
  static long openNanosLeft(long openedAtNanos, long nowNanos, Config config) {
    long elapsed = nowNanos - openedAtNanos;
    long duration = config.openDurationNanos();
    return elapsed >= duration ? 0 : duration - elapsed;
  }

  /** A transition made by an operation; shared constants, so returning one allocates nothing. */
  enum Change {
    /** The window went over the threshold. */
    CLOSED_TO_OPEN(Phase.CLOSED, Phase.OPEN),
    /** The open period ended (made lazily, by the first operation that notices). */
    OPEN_TO_HALF_OPEN(Phase.OPEN, Phase.HALF_OPEN),
    /** Every probe needed succeeded; the window was cleared. */
    HALF_OPEN_TO_CLOSED(Phase.HALF_OPEN, Phase.CLOSED),
    /** A probe failed; a new open period started. */
    HALF_OPEN_TO_OPEN(Phase.HALF_OPEN, Phase.OPEN);

    private final Phase from;
    private final Phase to;

    Change(Phase from, Phase to) {
      this.from = from;
      this.to = to;
    }

    /**
     * Returns the state before.
     *
     * @return the state before
     */
    public Phase from() {
      return from;
    }

    /**
     * Returns the state after.
     *
     * @return the state after
     */
    public Phase to() {
      return to;
    }
  }

  /**
   * The state as one operation saw it.
   *
   * @param state the mode
   * @param calls the calls in the window (frozen while not closed)
   * @param failures the failures among them
   * @param probesInFlight half-open probes permitted and not yet reported
   * @param probesSucceeded half-open probes that succeeded in this half-open period
   * @param change {@link Change#OPEN_TO_HALF_OPEN} if this snapshot made that transition, otherwise
   *     {@code null}
   * @param openNanosLeft while open, the nanos until the open period ends ({@link #openNanosLeft},
   *     &gt; 0); otherwise 0
   */
  record Snapshot(
      Phase state,
      long calls,
      long failures,
      int probesInFlight,
      int probesSucceeded,
      Change change,
      long openNanosLeft) {}

  /**
   * The settings of one breaker, passed with every call so that a store needs no configuration of
   * its own. Exactly one kind of window is set: {@code windowCalls > 0} with no buckets (a count
   * window), or {@code windowCalls == 0} with buckets (a time window).
   *
   * @param windowCalls the length of a count window in calls, or 0 for a time window
   * @param bucketNanos the width of one bucket of a time window, or 0 for a count window
   * @param buckets the number of buckets of a time window, or 0 for a count window
   * @param minimumCalls the calls the window must hold before the rate is judged, &ge; 1
   * @param failureRateThreshold the failure rate that opens the breaker, in percent, in {@code (0,
   *     100]}
   * @param openDurationNanos how long the breaker stays open, &gt; 0
   * @param halfOpenProbes how many probes must succeed to close, and may be in flight, &ge; 1
   */
  record Config(
      int windowCalls,
      long bucketNanos,
      int buckets,
      int minimumCalls,
      double failureRateThreshold,
      long openDurationNanos,
      int halfOpenProbes) {
    /**
     * Validates the values.
     *
     * @throws IllegalArgumentException if a value is out of range, or if neither or both kinds of
     *     window are set
     */
    public Config {
      if (windowCalls < 0) {
        throw new IllegalArgumentException("windowCalls must be >= 0: " + windowCalls + " calls");
      }
      if (bucketNanos < 0) {
        throw new IllegalArgumentException("bucketNanos must be >= 0: " + bucketNanos + " ns");
      }
      if (buckets < 0) {
        throw new IllegalArgumentException("buckets must be >= 0: " + buckets);
      }
      boolean timeWindow = bucketNanos > 0 || buckets > 0;
      if ((windowCalls > 0) == timeWindow || timeWindow && (bucketNanos == 0 || buckets == 0)) {
        throw new IllegalArgumentException(
            "exactly one window must be set, windowCalls ("
                + windowCalls
                + ") or bucketNanos ("
                + bucketNanos
                + ") with buckets ("
                + buckets
                + ")");
      }
      if (minimumCalls < 1) {
        throw new IllegalArgumentException("minimumCalls must be >= 1: " + minimumCalls + " calls");
      }
      if (!(failureRateThreshold > 0 && failureRateThreshold <= 100)) {
        throw new IllegalArgumentException(
            "failureRateThreshold must be > 0 and <= 100: " + failureRateThreshold + " %");
      }
      if (openDurationNanos <= 0) {
        throw new IllegalArgumentException(
            "openDurationNanos must be > 0: " + openDurationNanos + " ns");
      }
      if (halfOpenProbes < 1) {
        throw new IllegalArgumentException("halfOpenProbes must be >= 1: " + halfOpenProbes);
      }
    }

    /**
     * Returns whether the window is the last {@link #windowCalls()} outcomes.
     *
     * @return {@code true} for a count window, {@code false} for a time window
     */
    public boolean isCountWindow() {
      return windowCalls > 0;
    }
  }
}
