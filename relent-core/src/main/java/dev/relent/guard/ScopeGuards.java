package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The guards of one {@link Scope}, handed out by a {@link GuardRegistry}: the scope's pacer,
 * concurrency limit, retry budget and circuit breaker (each present when the registry has a factory
 * for the scope's kind), and the scope's pause with its cause.
 *
 * <p>The pause is the scope's own, apart from its pacer, so that it can be inspected (until when,
 * caused by which request and which answer) and ended from the API ({@link #resume()}). A pause is
 * never shortened by a later one, only by {@link #resume()}.
 *
 * <p>Time: {@link #pausedUntilNanos()} and {@link #pauseUntil(long, long, String)} are the
 * executor's API and take or give readings of the executor's ticker; the inspection methods read
 * the registry's {@linkplain GuardRegistry.Builder#withTime time source}. Thread-safe: the pause
 * changes under this object's monitor; {@link #pausedUntilNanos()} reads a volatile field.
 */
public final class ScopeGuards {
  private static final int MAX_NARROWER = 64;

  private final Scope scope;
  private final Pacer pacer;
  private final ConcurrencyLimit limit;
  private final RetryBudget budget;
  private final CircuitBreaker breaker;
  private final TimeSource time;

  private volatile long pausedUntil = Long.MIN_VALUE;
  private long askedNanos;
  private String cause;
  private String lastCause;
  private long pauses;
  private volatile long lastUsed;

  /** Narrower scopes paused recently while this one governed their requests, with the time. */
  private final Map<Scope, Long> narrowerPauses = new LinkedHashMap<>();

  ScopeGuards(
      Scope scope,
      Pacer pacer,
      ConcurrencyLimit limit,
      RetryBudget budget,
      CircuitBreaker breaker,
      TimeSource time,
      long nowNanos) {
    this.scope = scope;
    this.pacer = pacer;
    this.limit = limit;
    this.budget = budget;
    this.breaker = breaker;
    this.time = time;
    this.lastUsed = nowNanos;
  }

  /**
   * Returns the scope.
   *
   * @return the scope
   */
  public Scope scope() {
    return scope;
  }

  /**
   * Returns the scope's pacer.
   *
   * @return the pacer, empty if the registry makes none for this kind
   */
  public Optional<Pacer> pacer() {
    return Optional.ofNullable(pacer);
  }

  /**
   * Returns the scope's concurrency limit.
   *
   * @return the limit, empty if the registry makes none for this kind
   */
  public Optional<ConcurrencyLimit> concurrencyLimit() {
    return Optional.ofNullable(limit);
  }

  /**
   * Returns the scope's retry budget.
   *
   * @return the budget, empty if the registry makes none for this kind
   */
  public Optional<RetryBudget> retryBudget() {
    return Optional.ofNullable(budget);
  }

  /**
   * Returns the scope's circuit breaker.
   *
   * @return the breaker, empty if the registry makes none for this kind
   */
  public Optional<CircuitBreaker> circuitBreaker() {
    return Optional.ofNullable(breaker);
  }

  // ------------------------------------------------------------------ the executor's API

  /**
   * Returns when the pause ends, as a reading of the executor's ticker.
   *
   * @return the reading before which nothing governed by this scope starts; {@link Long#MIN_VALUE}
   *     if never paused
   */
  public long pausedUntilNanos() {
    return pausedUntil;
  }

  /**
   * Pauses the scope: nothing it governs starts before {@code untilNanos}. Never shortens a pause;
   * a longer one replaces the cause. When the scope's pacer keeps its state where other processes
   * share it ({@link Pacer#sharesState()}, e.g. on Redis), the pause is written there too, so that
   * it holds for every process; {@link #resume()} then ends only this process's hold.
   *
   * @param untilNanos a reading of the executor's ticker
   * @param askedNanos how long the server asked for, which may be more than the pause (it is capped
   *     at the caller's longest wait), 0 or more
   * @param cause the request and the answer that caused it, e.g. {@code HTTP 429 from GET
   *     https://api.example.com/v1/items/7 (Retry-After: 86400)}; never a secret
   * @return whether the pause was raised
   * @throws NullPointerException if {@code cause} is null
   */
  public boolean pauseUntil(long untilNanos, long askedNanos, String cause) {
    Objects.requireNonNull(cause, "cause cannot be null");
    synchronized (this) {
      if (untilNanos <= pausedUntil) {
        return false;
      }
      this.pausedUntil = untilNanos;
      this.askedNanos = Math.max(0L, askedNanos);
      this.cause = cause;
      this.lastCause = cause;
      pauses++;
    }
    if (pacer != null && pacer.sharesState()) {
      // Every process pacing on the shared state waits for it too (a round trip: out of the lock).
      pacer.pauseUntil(untilNanos);
    }
    return true;
  }

  // ------------------------------------------------------------------ inspection

  /**
   * Pauses the scope for {@code duration} from now, read with the registry's time source, as the
   * executor does after a {@code 429}; for an operator who knows better than the server.
   *
   * @param duration how long, more than zero
   * @param cause why, for messages and logs; never a secret
   * @return whether the pause was raised (an existing longer pause stays)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code duration} is not positive
   */
  public boolean pause(Duration duration, String cause) {
    long nanos = Nanos.positiveNanos("duration", duration);
    return pauseUntil(Nanos.saturatedAdd(time.ticker().read(), nanos), nanos, cause);
  }

  /**
   * Ends the pause now, whoever caused it. A pause written to a shared pacer state ({@link
   * #pauseUntil}) runs its course there: shared pauses are never shortened, so the other processes,
   * and this one's pacer, still wait for it.
   *
   * @return whether the scope was paused
   */
  public synchronized boolean resume() {
    boolean paused = pauseNanosLeft() > 0;
    pausedUntil = Long.MIN_VALUE;
    askedNanos = 0;
    cause = null;
    narrowerPauses.clear();
    return paused;
  }

  /**
   * Returns whether the scope is paused now.
   *
   * @return true while a pause lasts
   */
  public boolean isPaused() {
    return pauseNanosLeft() > 0;
  }

  /**
   * Returns when the pause ends.
   *
   * @return the instant before which nothing governed by this scope starts; empty if not paused now
   */
  public Optional<Instant> pausedUntil() {
    long left = pauseNanosLeft();
    return left == 0 ? Optional.empty() : Optional.of(time.clock().instant().plusNanos(left));
  }

  /**
   * Returns how long the pause lasts from now.
   *
   * @return the time left; {@link Duration#ZERO} if not paused now
   */
  public Duration pauseRemaining() {
    return Duration.ofNanos(pauseNanosLeft());
  }

  /**
   * Returns what caused the current pause: the request and the answer.
   *
   * @return the cause, e.g. {@code HTTP 429 from GET https://api.example.com/v1/items/7
   *     (Retry-After: 86400)}; empty if not paused now
   */
  public synchronized Optional<String> pauseCause() {
    return pauseNanosLeft() == 0 ? Optional.empty() : Optional.ofNullable(cause);
  }

  /**
   * Returns how many times the scope was paused (or a pause made longer) since the registry made
   * it.
   *
   * @return the count, 0 or more
   */
  public synchronized long pauseCount() {
    return pauses;
  }

  /**
   * Returns what caused the latest pause, even after it ended or was resumed: for a summary.
   *
   * @return the cause, empty if the scope was never paused
   */
  public synchronized Optional<String> lastPauseCause() {
    return Optional.ofNullable(lastCause);
  }

  /**
   * Returns how long the server asked for when it caused the current pause; more than the pause
   * itself when the pause was capped at the caller's longest wait.
   *
   * @return the wait asked; {@link Duration#ZERO} if not paused now
   */
  public synchronized Duration pauseAsked() {
    return pauseNanosLeft() == 0 ? Duration.ZERO : Duration.ofNanos(askedNanos);
  }

  private long pauseNanosLeft() {
    long until = pausedUntil;
    long now = time.ticker().read();
    return until == Long.MIN_VALUE || until - now <= 0 ? 0 : until - now;
  }

  /**
   * Returns {@code endpoint GET api.example.com/v1/items/{id}: paused 59.9 s more by HTTP 429 from
   * …}, or {@code account api.example.com: not paused}.
   */
  @Override
  public synchronized String toString() {
    long left = pauseNanosLeft();
    return scope
        + (left == 0 ? ": not paused" : ": paused " + Durations.format(left) + " more by " + cause);
  }

  // ------------------------------------------------------------------ the registry's bookkeeping

  void touch(long nowNanos) {
    if (lastUsed != nowNanos) {
      lastUsed = nowNanos;
    }
  }

  long lastUsed() {
    return lastUsed;
  }

  /** Whether a pause still lasts at {@code nowNanos} (the executor's or the registry's reading). */
  boolean pausedAt(long nowNanos) {
    long until = pausedUntil;
    return until != Long.MIN_VALUE && until - nowNanos > 0;
  }

  /**
   * Notes that {@code narrower}, governed by this scope, was paused at {@code nowNanos}; returns
   * the distinct narrower scopes paused within {@code windowNanos}, this one included.
   */
  synchronized List<Scope> narrowerPaused(Scope narrower, long nowNanos, long windowNanos) {
    narrowerPauses.remove(narrower);
    narrowerPauses.put(narrower, nowNanos);
    if (narrowerPauses.size() > MAX_NARROWER) {
      // Bounded: a flood of endpoints keeps only the newest.
      Iterator<Scope> oldest = narrowerPauses.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    for (Iterator<Long> it = narrowerPauses.values().iterator(); it.hasNext(); ) {
      if (nowNanos - it.next() > windowNanos) {
        it.remove();
      }
    }
    return new ArrayList<>(narrowerPauses.keySet());
  }
}
