package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.spi.CircuitBreakerState;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Stops calling a downstream that keeps failing, then tests its recovery with a few probes. One
 * breaker per downstream.
 *
 * <p>{@link State#CLOSED}: calls are permitted and their outcomes recorded in the window; the
 * breaker opens when the window holds at least {@code minimumCalls} calls and {@code failures * 100
 * >= threshold * calls}. {@link State#OPEN}: calls are refused until {@code openDuration} has
 * passed, then the breaker becomes half-open, lazily. {@link State#HALF_OPEN}: up to {@code
 * halfOpenProbes} probes; when all succeed it closes with an empty window, the first failure opens
 * it again.
 *
 * <p>It counts calls, not attempts: the executor asks for a permission before every attempt, but
 * reports one outcome per call, and an attempt that is retried gives its permission back ({@link
 * #releasePermission()}). A failure is a call that ended on a downstream failure ({@link
 * dev.relent.Verdict#isDownstreamFailure()}); a 4xx-style abort and an answer that {@linkplain
 * dev.relent.ServerHint#pausesAll() pauses every caller} (a 429) count neither way.
 *
 * <p>Defaults ({@link #ofDefaults()}): failure rate threshold <b>50 %</b>, count window of the last
 * <b>100</b> calls, at least <b>20</b> calls before the rate is judged, open for <b>30 s</b>,
 * <b>3</b> half-open probes.
 *
 * <p>Thread-safe: each method is one atomic operation on its {@link CircuitBreakerState} (by
 * default a new in-memory one; {@link Builder#withState} shares one between processes) and, on the
 * success path, allocates nothing. It never waits: the decision methods ({@link
 * #tryAcquirePermission}, {@link #onSuccess}, {@link #onFailure}) take the executor's {@code now};
 * the inspection methods without an argument read the breaker's own {@linkplain Builder#withTime
 * time source}. The states, what is counted, the listeners and the windows: docs/core.md, sections
 * "How a circuit breaker moves" and "What a circuit breaker counts".
 */
public interface CircuitBreaker {

  /** The state of a breaker. */
  enum State {
    /** Calls go through and their outcomes are counted. */
    CLOSED,
    /** Calls are refused until the open period is over. */
    OPEN,
    /** A few probe calls test whether the downstream has recovered. */
    HALF_OPEN;

    private static final State[] BY_PHASE = values();

    static State of(CircuitBreakerState.Phase phase) {
      return BY_PHASE[phase.ordinal()];
    }
  }

  /**
   * Returns a new breaker with the defaults: 50 % of the last 100 calls, at least 20 calls, open 30
   * s, 3 probes.
   *
   * @return a new breaker
   */
  static CircuitBreaker ofDefaults() {
    return builder().build();
  }

  /**
   * Returns a builder with the defaults.
   *
   * @return a new builder
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Asks to make a call.
   *
   * @param nowNanos the executor's ticker reading
   * @return 0 if the call is permitted (half-open: a probe slot is taken, to be given back by an
   *     outcome or {@link #releasePermission()}); &gt; 0 if refused: the nanos until the next probe
   *     may be tried (&ge; 1)
   */
  long tryAcquirePermission(long nowNanos);

  /**
   * Reports that a permitted call succeeded.
   *
   * @param nowNanos the executor's ticker reading
   */
  void onSuccess(long nowNanos);

  /**
   * Reports that a permitted call failed.
   *
   * @param nowNanos the executor's ticker reading
   */
  void onFailure(long nowNanos);

  /**
   * Reports that a permitted call was not made, or ended with an outcome that is neither success
   * nor failure (for example cancelled): frees its half-open probe slot and records nothing.
   */
  void releasePermission();

  /**
   * Returns the state, after the lazy open to half-open transition if it is due.
   *
   * @param nowNanos the executor's ticker reading
   * @return the state
   */
  State state(long nowNanos);

  /**
   * Returns a snapshot of the state and counts, after the lazy open to half-open transition if it
   * is due.
   *
   * @param nowNanos the executor's ticker reading
   * @return a new snapshot
   */
  Metrics metrics(long nowNanos);

  /**
   * Returns the state now, read with the {@linkplain Builder#withTime time source}.
   *
   * @return the state
   */
  State state();

  /**
   * Returns a snapshot of the state and counts now, read with the {@linkplain Builder#withTime time
   * source}.
   *
   * @return a new snapshot
   */
  Metrics metrics();

  /**
   * Returns how long the breaker stays open from now, read with the {@linkplain Builder#withTime
   * time source}: the wait before the next probe may be tried. While half-open with every probe
   * slot taken, calls are refused too, but this returns empty.
   *
   * @return the time left; empty if the breaker is not open
   */
  Optional<Duration> nextProbeIn();

  /**
   * Returns when the open period ends: {@link #nextProbeIn()} as an instant of the {@linkplain
   * Builder#withTime time source}'s clock.
   *
   * @return the instant the next probe may be tried; empty if the breaker is not open
   */
  Optional<Instant> openUntil();

  /**
   * A change of state.
   *
   * @param from the state before
   * @param to the state after
   * @param at when the call that made it was measured, on the clock of the breaker's {@linkplain
   *     Builder#withTime time source} (exact when that source is the executor's, as its javadoc
   *     asks)
   */
  record Transition(State from, State to, Instant at) {}

  /**
   * A snapshot of a breaker.
   *
   * @param state the state
   * @param calls the calls in the window (frozen while not closed)
   * @param failures the failures among them
   * @param failureRate {@code 100 * failures / calls}, in percent; 0 without calls
   * @param probesInFlight half-open probes permitted and not yet reported
   * @param probesSucceeded half-open probes that succeeded in this half-open period
   */
  record Metrics(
      State state,
      long calls,
      long failures,
      double failureRate,
      int probesInFlight,
      int probesSucceeded) {}

  /**
   * Builds a {@link CircuitBreaker}. Mutable and not thread-safe; {@link #build()} may be called
   * repeatedly.
   */
  final class Builder {
    static final int TIME_WINDOW_BUCKETS = 10;

    double failureRateThreshold = 50.0;
    int countWindow = 100;
    long timeWindowNanos;
    int minimumCalls = 20;
    long openDurationNanos = 30_000_000_000L;
    int halfOpenProbes = 3;
    final List<Consumer<Transition>> listeners = new ArrayList<>();
    CircuitBreakerState state;
    TimeSource time = TimeSource.system();

    Builder() {}

    /**
     * Sets the failure rate at or above which the breaker opens; default 50.
     *
     * @param percent in {@code (0, 100]}
     * @return this builder
     * @throws IllegalArgumentException if {@code percent} is outside {@code (0, 100]}
     */
    public Builder withFailureRateThreshold(double percent) {
      if (!(percent > 0 && percent <= 100)) {
        throw new IllegalArgumentException(
            "failureRateThreshold must be > 0 and <= 100: " + percent + " %");
      }
      this.failureRateThreshold = percent;
      return this;
    }

    /**
     * Judges the failure rate over the last {@code calls} calls; the default (100). Replaces a time
     * window set before.
     *
     * @param calls &ge; 1
     * @return this builder
     * @throws IllegalArgumentException if {@code calls} &lt; 1
     */
    public Builder withCountWindow(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("countWindow must be >= 1: " + calls + " calls");
      }
      this.countWindow = calls;
      this.timeWindowNanos = 0;
      return this;
    }

    /**
     * Judges the failure rate over the calls of the last {@code window} (10 buckets of a tenth of
     * it each). Replaces a count window, including the default one.
     *
     * @param window at least 1 ms
     * @return this builder
     * @throws NullPointerException if {@code window} is null
     * @throws IllegalArgumentException if {@code window} is shorter than 1 ms
     */
    public Builder withTimeWindow(Duration window) {
      long nanos = Nanos.positiveNanos("timeWindow", window);
      if (nanos < 1_000_000L) {
        throw new IllegalArgumentException(
            "timeWindow must be >= 1 ms: " + Durations.exact(window));
      }
      this.timeWindowNanos = nanos;
      this.countWindow = 0;
      return this;
    }

    /**
     * Sets how many calls the window must hold before the failure rate is judged; default 20.
     *
     * @param calls &ge; 1, and at most the count window if one is used
     * @return this builder
     * @throws IllegalArgumentException if {@code calls} &lt; 1
     */
    public Builder withMinimumCalls(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("minimumCalls must be >= 1: " + calls + " calls");
      }
      this.minimumCalls = calls;
      return this;
    }

    /**
     * Sets how long the breaker stays open before probing; default 30 s.
     *
     * @param duration &gt; 0
     * @return this builder
     * @throws NullPointerException if {@code duration} is null
     * @throws IllegalArgumentException if {@code duration} is not positive
     */
    public Builder withOpenDuration(Duration duration) {
      this.openDurationNanos = Nanos.positiveNanos("openDuration", duration);
      return this;
    }

    /**
     * Sets how many probe calls must succeed in the half-open state to close the breaker, and how
     * many may be in flight at once; default 3.
     *
     * @param probes &ge; 1
     * @return this builder
     * @throws IllegalArgumentException if {@code probes} &lt; 1
     */
    public Builder withHalfOpenProbes(int probes) {
      if (probes < 1) {
        throw new IllegalArgumentException("halfOpenProbes must be >= 1: " + probes);
      }
      this.halfOpenProbes = probes;
      return this;
    }

    /**
     * Adds a listener called after each transition, outside any lock, one transition at a time in
     * the order they happened, on the thread of a call that made one. A listener that throws is
     * logged and does not affect the breaker.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder onStateChange(Consumer<Transition> listener) {
      listeners.add(Objects.requireNonNull(listener, "listener cannot be null"));
      return this;
    }

    /**
     * Keeps the mode, the window and the probe counts in the given state, for example one shared
     * through Redis so that every process sees the same breaker; default: a new in-memory state for
     * each breaker built. Breakers built with the same state share one breaker and must have the
     * same settings; each delivers to its own listeners the transitions made by its own calls.
     *
     * @param state where the mode, window and probe counts live
     * @return this builder
     * @throws NullPointerException if {@code state} is null
     */
    public Builder withState(CircuitBreakerState state) {
      this.state = Objects.requireNonNull(state, "state cannot be null");
      return this;
    }

    /**
     * Sets the time source the inspection methods read ({@link CircuitBreaker#state()}, {@link
     * CircuitBreaker#metrics()}, {@link CircuitBreaker#openUntil()}); default {@link
     * TimeSource#system()}. Give it the executor's time source, so that both read the same ticker:
     * the decision methods the executor calls take the executor's ticker reading instead of reading
     * one themselves.
     *
     * @param time the time source
     * @return this builder
     * @throws NullPointerException if {@code time} is null
     */
    public Builder withTime(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time cannot be null");
      return this;
    }

    /**
     * Builds the breaker.
     *
     * @return a new breaker, closed
     * @throws IllegalStateException if a count window is used and {@code minimumCalls} exceeds it
     *     (the breaker could never open)
     */
    public CircuitBreaker build() {
      if (countWindow > 0 && minimumCalls > countWindow) {
        throw new IllegalStateException(
            "minimumCalls ("
                + minimumCalls
                + ") must be <= countWindow ("
                + countWindow
                + "): the breaker could never open");
      }
      CircuitBreakerState.Config config =
          new CircuitBreakerState.Config(
              countWindow,
              countWindow > 0 ? 0 : timeWindowNanos / TIME_WINDOW_BUCKETS,
              countWindow > 0 ? 0 : TIME_WINDOW_BUCKETS,
              minimumCalls,
              failureRateThreshold,
              openDurationNanos,
              halfOpenProbes);
      return new CircuitBreakerImpl(
          config, state == null ? CircuitBreakerState.inMemory() : state, listeners, time);
    }
  }
}
