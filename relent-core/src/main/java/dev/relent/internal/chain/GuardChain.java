package dev.relent.internal.chain;

import dev.relent.guard.AdaptiveThrottle;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.time.RandomSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The guards of one executor, in the order an attempt passes them (breaker, throttle, concurrency
 * limit, pacer; the retry budget between attempts). Each is present: a guard the executor was not
 * given is a no-op that lets everything through, records nothing and never refuses, so that the
 * executor asks every guard the same way and the no-op answers exactly what the absent guard's
 * missing check used to.
 *
 * <p>Only the methods the executor calls mean anything on a no-op; its inspection methods answer as
 * an unlimited guard would (closed, nothing counted, no pause). A no-op never leaves this object's
 * users: the executor's accessors return the guards it was given.
 *
 * <p>Immutable and thread-safe; the no-ops hold no state, so the success path allocates nothing.
 */
public final class GuardChain {
  private final CircuitBreaker breaker;
  private final AdaptiveThrottle throttle;
  private final ConcurrencyLimit limit;
  private final Pacer pacer;
  private final RetryBudget budget;
  private final boolean paced;

  /**
   * Creates the chain of an executor's guards.
   *
   * @param breaker the circuit breaker, or null
   * @param throttle the adaptive throttle, or null
   * @param limit the concurrency limit, or null
   * @param pacer the pacer, or null
   * @param budget the retry budget, or null
   */
  public GuardChain(
      CircuitBreaker breaker,
      AdaptiveThrottle throttle,
      ConcurrencyLimit limit,
      Pacer pacer,
      RetryBudget budget) {
    this.breaker = breaker != null ? breaker : NoBreaker.INSTANCE;
    this.throttle = throttle != null ? throttle : NoThrottle.INSTANCE;
    this.limit = limit != null ? limit : NoLimit.INSTANCE;
    this.pacer = pacer != null ? pacer : NoPacer.INSTANCE;
    this.budget = budget != null ? budget : NoBudget.INSTANCE;
    this.paced = pacer != null;
  }

  /**
   * Returns the circuit breaker; a no-op permits every attempt.
   *
   * @return the breaker, never null
   */
  public CircuitBreaker breaker() {
    return breaker;
  }

  /**
   * Returns the adaptive throttle; a no-op refuses nothing.
   *
   * @return the throttle, never null
   */
  public AdaptiveThrottle throttle() {
    return throttle;
  }

  /**
   * Returns the concurrency limit; a no-op always has a slot free at once.
   *
   * @return the limit, never null
   */
  public ConcurrencyLimit limit() {
    return limit;
  }

  /**
   * Returns the pacer; a no-op lets every start go now.
   *
   * @return the pacer, never null
   */
  public Pacer pacer() {
    return pacer;
  }

  /**
   * Returns the retry budget; a no-op allows every retry.
   *
   * @return the budget, never null
   */
  public RetryBudget budget() {
    return budget;
  }

  /**
   * Whether the executor was given a pacer of its own: only then does a call with scopes reserve a
   * start with it after its scopes' pacers, and name it in a refusal.
   *
   * @return whether {@link #pacer()} is not the no-op
   */
  public boolean paced() {
    return paced;
  }

  private enum NoBreaker implements CircuitBreaker {
    INSTANCE;

    private static final Metrics NONE = new Metrics(State.CLOSED, 0, 0, 0.0, 0, 0);

    @Override
    public long tryAcquirePermission(long nowNanos) {
      return 0;
    }

    @Override
    public void onSuccess(long nowNanos) {}

    @Override
    public void onFailure(long nowNanos) {}

    @Override
    public void releasePermission() {}

    @Override
    public State state(long nowNanos) {
      return State.CLOSED;
    }

    @Override
    public Metrics metrics(long nowNanos) {
      return NONE;
    }

    @Override
    public State state() {
      return State.CLOSED;
    }

    @Override
    public Metrics metrics() {
      return NONE;
    }

    @Override
    public Optional<Duration> nextProbeIn() {
      return Optional.empty();
    }

    @Override
    public Optional<Instant> openUntil() {
      return Optional.empty();
    }
  }

  private enum NoThrottle implements AdaptiveThrottle {
    INSTANCE;

    @Override
    public boolean tryAcquire(long nowNanos, RandomSource random) {
      return true;
    }

    @Override
    public void onAccepted(long nowNanos) {}

    @Override
    public double rejectionProbability(long nowNanos) {
      return 0.0;
    }

    @Override
    public String describe(long nowNanos) {
      return "no adaptive throttling";
    }
  }

  private enum NoLimit implements ConcurrencyLimit {
    INSTANCE;

    private static final Permit NO_PERMIT = () -> {};
    private static final Optional<Permit> PERMIT = Optional.of(NO_PERMIT);

    @Override
    public Optional<Permit> tryAcquire() {
      return PERMIT;
    }

    @Override
    public Optional<Permit> acquire(Duration timeout) {
      return PERMIT;
    }

    @Override
    public CompletableFuture<Permit> acquireAsync() {
      return CompletableFuture.completedFuture(NO_PERMIT);
    }

    @Override
    public boolean tryAcquireSlot() {
      return true;
    }

    @Override
    public void releaseSlot() {}

    @Override
    public int available() {
      return Integer.MAX_VALUE;
    }

    @Override
    public int maxConcurrent() {
      return Integer.MAX_VALUE;
    }

    @Override
    public int waiting() {
      return 0;
    }
  }

  private enum NoPacer implements Pacer {
    INSTANCE;

    @Override
    public long tryAcquire(long nowNanos, long maxWaitNanos) {
      return 0;
    }

    @Override
    public void refund(long reservedAtNanos) {}

    @Override
    public void pauseUntil(long untilNanos) {}

    @Override
    public Duration interval() {
      return Duration.ZERO;
    }

    @Override
    public int burst() {
      return Integer.MAX_VALUE;
    }

    @Override
    public Optional<Instant> pausedUntil() {
      return Optional.empty();
    }

    @Override
    public Duration pauseRemaining() {
      return Duration.ZERO;
    }
  }

  private enum NoBudget implements RetryBudget {
    INSTANCE;

    @Override
    public void recordFirstAttempt(long nowNanos) {}

    @Override
    public boolean tryAcquireRetry(long nowNanos) {
      return true;
    }

    @Override
    public long available(long nowNanos) {
      return Long.MAX_VALUE;
    }

    @Override
    public long limit(long nowNanos) {
      return Long.MAX_VALUE;
    }

    @Override
    public long available() {
      return Long.MAX_VALUE;
    }

    @Override
    public long limit() {
      return Long.MAX_VALUE;
    }
  }
}
