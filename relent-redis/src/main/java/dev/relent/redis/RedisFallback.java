package dev.relent.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What the guards of one {@link RelentRedis} do while Redis does not answer: the declared local
 * policy. Set with {@link RelentRedis.Builder#withFallback}.
 *
 * <p>The default, {@link #localShare(int) localShare(1)}, keeps every guard working in memory at a
 * conservative share of its limit: a pacer starts at {@code 1/n} of its rate and a concurrency
 * limit admits {@code max/n} calls (at least one), where {@code n} is the larger of the expected
 * instances declared here and the number of processes seen sharing that guard on Redis in the last
 * minute. A retry budget keeps its ratio over this process's own attempts, and a circuit breaker
 * judges this process's own outcomes. It is never unlimited, and a call never waits for Redis
 * longer than the command timeout: once a call has found Redis away, the others go straight to
 * memory, and one call at a time tries Redis again every {@linkplain #withRetryInterval retry
 * interval} (default 1 s). When Redis answers again, every guard goes back to it; a pacer then
 * starts without a burst, so the starts made in memory and those made on Redis never add up to more
 * than one burst. The idempotency store has no fallback: a record kept in one process's memory
 * would let another process run the same request twice, so it throws {@link RedisStoreException}
 * whatever the policy.
 *
 * <p>{@link #none()} keeps the old behaviour: every operation throws {@link RedisStoreException}
 * while Redis is away, and the caller decides.
 *
 * <p>Each change between Redis and memory is logged once (WARN when Redis is lost, INFO when it is
 * back, through SLF4J under {@code dev.relent.redis.RelentRedis}) and reported to the {@linkplain
 * #withListener listener}. Only failures of availability count: a timeout, a refused or lost
 * connection, or a server that says it is loading, busy or read-only. A script's error is a bug,
 * and is thrown.
 *
 * <p>Immutable and thread-safe.
 */
public final class RedisFallback {

  /** The default interval between two tries of Redis while in memory. */
  public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofSeconds(1);

  private static final Consumer<Event> NO_LISTENER = e -> {};

  private final int expectedInstances;
  private final Duration retryInterval;
  private final Consumer<Event> listener;

  private RedisFallback(int expectedInstances, Duration retryInterval, Consumer<Event> listener) {
    this.expectedInstances = expectedInstances;
    this.retryInterval = retryInterval;
    this.listener = listener;
  }

  /**
   * Falls back to in-memory guards at {@code 1/n} of each limit, {@code n} the larger of {@code
   * expectedInstances} and the processes seen sharing the guard in the last minute.
   *
   * @param expectedInstances how many processes share each guard, at least; &ge; 1
   * @return a policy with the default retry interval and no listener
   * @throws IllegalArgumentException if {@code expectedInstances} is below 1
   */
  public static RedisFallback localShare(int expectedInstances) {
    if (expectedInstances < 1) {
      throw new IllegalArgumentException(
          "expectedInstances must be >= 1 (the processes that share each guard): "
              + expectedInstances);
    }
    return new RedisFallback(expectedInstances, DEFAULT_RETRY_INTERVAL, NO_LISTENER);
  }

  /**
   * No fallback: while Redis is away every operation throws {@link RedisStoreException}.
   *
   * @return the policy
   */
  public static RedisFallback none() {
    return new RedisFallback(0, DEFAULT_RETRY_INTERVAL, NO_LISTENER);
  }

  /**
   * Returns this policy with another interval between two tries of Redis while in memory.
   *
   * @param interval &gt; 0; default 1 s
   * @return a new policy
   * @throws IllegalArgumentException if not positive
   */
  public RedisFallback withRetryInterval(Duration interval) {
    Objects.requireNonNull(interval, "retryInterval cannot be null");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("retryInterval must be > 0: " + interval);
    }
    return new RedisFallback(expectedInstances, interval, listener);
  }

  /**
   * Returns this policy with a listener told of every change between Redis and memory. It runs on
   * the thread of the call that noticed the change, once per change; an exception it throws is
   * logged and swallowed.
   *
   * @param listener the listener
   * @return a new policy
   * @throws NullPointerException if {@code listener} is null
   */
  public RedisFallback withListener(Consumer<Event> listener) {
    return new RedisFallback(
        expectedInstances,
        retryInterval,
        Objects.requireNonNull(listener, "listener cannot be null"));
  }

  /**
   * Returns whether the guards fall back to memory; false for {@link #none()}.
   *
   * @return whether there is a local policy
   */
  public boolean fallsBack() {
    return expectedInstances > 0;
  }

  /**
   * Returns the expected instances: the least {@code n} of the {@code 1/n} share.
   *
   * @return &ge; 1, or 0 for {@link #none()}
   */
  public int expectedInstances() {
    return expectedInstances;
  }

  /**
   * Returns the interval between two tries of Redis while in memory.
   *
   * @return the interval
   */
  public Duration retryInterval() {
    return retryInterval;
  }

  Consumer<Event> listener() {
    return listener;
  }

  @Override
  public String toString() {
    return fallsBack()
        ? "RedisFallback[localShare(" + expectedInstances + "), retry every " + retryInterval + "]"
        : "RedisFallback[none]";
  }

  /** Where the guards keep their state now. */
  public enum Mode {
    /** On Redis, shared with the fleet. */
    SHARED,
    /** In this process's memory, at a share of each limit. */
    LOCAL
  }

  /**
   * A change between Redis and memory.
   *
   * @param mode where the guards keep their state from now on
   * @param uri the Redis URI, without user name or password
   * @param reason why: the failure that sent the guards to memory, or that Redis answered again
   */
  public record Event(Mode mode, String uri, String reason) {}
}
