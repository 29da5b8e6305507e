package dev.relent.guard;

import dev.relent.spi.CircuitBreakerState;
import dev.relent.spi.CircuitBreakerState.Change;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The {@link CircuitBreaker}: an immutable configuration in front of a {@link CircuitBreakerState},
 * which runs the state machine atomically, plus the delivery of transitions to listeners.
 *
 * <p>State machine (see the interface and the SPI): {@code CLOSED --rate over threshold--> OPEN
 * --open duration passed, lazily--> HALF_OPEN --all probes succeeded--> CLOSED}, and {@code
 * HALF_OPEN --a probe failed--> OPEN}.
 *
 * <p>Concurrency: without listeners the breaker is stateless: each method is one state operation,
 * and nothing is allocated on the success path. With listeners, each state operation and the
 * queueing of the transition it returned happen under {@code lock}, so that the queue holds
 * transitions in the order the state made them; they are delivered after the lock is released by
 * whichever thread finds no delivery in progress, so listeners see them one at a time and in order,
 * may call back into the breaker, and never run under the lock. (Without the lock, a thread could
 * queue an older transition after another thread delivered a newer one.) The cost is that the state
 * operations of one breaker with listeners do not overlap in this process: nothing for the
 * in-memory state, which locks anyway; one round trip at a time for a remote state.
 */
final class CircuitBreakerImpl implements CircuitBreaker {
  private static final System.Logger LOG = System.getLogger(CircuitBreaker.class.getName());

  private final CircuitBreakerState.Config config;
  private final CircuitBreakerState state;
  private final List<Consumer<Transition>> listeners;
  private final boolean notify;
  private final TimeSource time;

  // Used only with listeners.
  private final Object lock = new Object();
  private final ArrayDeque<Transition> pending = new ArrayDeque<>();
  private boolean delivering;

  CircuitBreakerImpl(
      CircuitBreakerState.Config config,
      CircuitBreakerState state,
      List<Consumer<Transition>> listeners,
      TimeSource time) {
    this.config = config;
    this.state = state;
    this.listeners = List.copyOf(listeners);
    this.notify = !this.listeners.isEmpty();
    this.time = time;
  }

  @Override
  public long tryAcquirePermission(long nowNanos) {
    if (!notify) {
      return Math.max(0L, state.tryAcquirePermission(nowNanos, config));
    }
    long result;
    synchronized (lock) {
      result = state.tryAcquirePermission(nowNanos, config);
      if (result != CircuitBreakerState.PERMITTED_AND_HALF_OPENED) {
        return result;
      }
      queue(Change.OPEN_TO_HALF_OPEN, nowNanos);
    }
    deliver();
    return 0;
  }

  @Override
  public void onSuccess(long nowNanos) {
    record(false, nowNanos);
  }

  @Override
  public void onFailure(long nowNanos) {
    record(true, nowNanos);
  }

  /** Records an outcome; with listeners, under the lock, queueing the transition it made. */
  private void record(boolean failure, long nowNanos) {
    if (!notify) {
      outcome(failure, nowNanos);
      return;
    }
    synchronized (lock) {
      if (!queue(outcome(failure, nowNanos), nowNanos)) {
        return;
      }
    }
    deliver();
  }

  private Change outcome(boolean failure, long nowNanos) {
    return failure ? state.onFailure(nowNanos, config) : state.onSuccess(nowNanos, config);
  }

  @Override
  public void releasePermission() {
    state.releasePermission(config);
  }

  @Override
  public State state(long nowNanos) {
    return State.of(snapshot(nowNanos).state());
  }

  @Override
  public Metrics metrics(long nowNanos) {
    CircuitBreakerState.Snapshot s = snapshot(nowNanos);
    double rate = s.calls() == 0 ? 0.0 : s.failures() * 100.0 / s.calls();
    return new Metrics(
        State.of(s.state()),
        s.calls(),
        s.failures(),
        rate,
        s.probesInFlight(),
        s.probesSucceeded());
  }

  @Override
  public State state() {
    return state(time.ticker().read());
  }

  @Override
  public Metrics metrics() {
    return metrics(time.ticker().read());
  }

  /** Reads the state only: an inspection never takes a probe slot, even for an instant. */
  @Override
  public Optional<Duration> nextProbeIn() {
    CircuitBreakerState.Snapshot s = snapshot(time.ticker().read());
    return s.state() == CircuitBreakerState.Phase.OPEN && s.openNanosLeft() > 0
        ? Optional.of(Duration.ofNanos(s.openNanosLeft()))
        : Optional.empty();
  }

  @Override
  public Optional<Instant> openUntil() {
    return nextProbeIn().map(wait -> time.clock().instant().plus(wait));
  }

  /**
   * Shows the state's own description (for the in-memory state, its mode as last left) and the
   * settings.
   */
  @Override
  public String toString() {
    String window =
        config.windowCalls() > 0
            ? config.windowCalls() + " calls"
            : Durations.format(config.bucketNanos() * config.buckets());
    return "CircuitBreaker["
        + state
        + ", failureRateThreshold="
        + config.failureRateThreshold()
        + " %, window="
        + window
        + ", minimumCalls="
        + config.minimumCalls()
        + ", openDuration="
        + Durations.format(config.openDurationNanos())
        + ", halfOpenProbes="
        + config.halfOpenProbes()
        + "]";
  }

  private CircuitBreakerState.Snapshot snapshot(long nowNanos) {
    if (!notify) {
      return state.snapshot(nowNanos, config);
    }
    CircuitBreakerState.Snapshot result;
    synchronized (lock) {
      result = state.snapshot(nowNanos, config);
      if (!queue(result.change(), nowNanos)) {
        return result;
      }
    }
    deliver();
    return result;
  }

  /**
   * Queues a transition for the listeners. Caller holds the lock.
   *
   * @return whether there was one
   */
  private boolean queue(Change change, long nowNanos) {
    if (change == null) {
      return false;
    }
    // The call's ticker reading, as an instant of the clock: now, less the time since it.
    Instant at = time.clock().instant().minusNanos(time.ticker().read() - nowNanos);
    pending.add(new Transition(State.of(change.from()), State.of(change.to()), at));
    return true;
  }

  /** Delivers queued transitions unless another thread (or an outer frame) already does. */
  private void deliver() {
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
