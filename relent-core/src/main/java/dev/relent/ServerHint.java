package dev.relent;

import dev.relent.internal.Nanos;
import dev.relent.time.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a server said about when to come back: a minimum wait (from {@code Retry-After} or a
 * rate-limit reset), whether every caller sharing the pacer should pause, and whether the quota is
 * exhausted for longer than waiting can help (a daily quota).
 *
 * <p>The executor never retries earlier than {@link #waitNanos()}; it adds a small random spread so
 * that clients released together do not return together, and fails at once, without waiting, if the
 * wait is longer than the caller allows. Immutable and thread-safe.
 */
public final class ServerHint {
  private final long waitNanos;
  private final String source;
  private final boolean pauseAll;
  private final boolean quotaExhausted;
  private final Instant resetAt;
  private final long quotaRemaining;
  private final long quotaResetNanos;
  private final long policyQuota;
  private final long policyWindowNanos;

  private ServerHint(
      long waitNanos, String source, boolean pauseAll, boolean quotaExhausted, Instant resetAt) {
    this(waitNanos, source, pauseAll, quotaExhausted, resetAt, -1, -1, -1, -1);
  }

  private ServerHint(
      long waitNanos,
      String source,
      boolean pauseAll,
      boolean quotaExhausted,
      Instant resetAt,
      long quotaRemaining,
      long quotaResetNanos,
      long policyQuota,
      long policyWindowNanos) {
    this.waitNanos = waitNanos;
    this.source = source;
    this.pauseAll = pauseAll;
    this.quotaExhausted = quotaExhausted;
    this.resetAt = resetAt;
    this.quotaRemaining = quotaRemaining;
    this.quotaResetNanos = quotaResetNanos;
    this.policyQuota = policyQuota;
    this.policyWindowNanos = policyWindowNanos;
  }

  /**
   * Creates a hint that reports the server's quota: {@code remaining} more requests are allowed
   * until the window resets in {@code reset} (for example {@code RateLimit: remaining=40,
   * reset=20}). The executor hands it to an {@linkplain dev.relent.guard.Pacer#isAdaptive adaptive
   * pacer}, which starts no more than {@code remaining} before the reset and the next at it, before
   * any 429. With {@code remaining} 0 the hint also pauses every caller sharing the pacer until the
   * reset, as {@link #rateLimited} does; otherwise it asks for no wait.
   *
   * @param remaining requests left in the window, &ge; 0
   * @param reset the time until the window resets, &ge; 0
   * @param source where it came from, for messages and logs; must not contain secrets
   * @return a new hint
   * @throws NullPointerException if {@code reset} or {@code source} is null
   * @throws IllegalArgumentException if {@code remaining} or {@code reset} is negative
   */
  public static ServerHint quota(long remaining, Duration reset, String source) {
    long resetNanos = toNanos(reset);
    requireRemaining(remaining);
    boolean exhausted = remaining == 0;
    return new ServerHint(
        exhausted ? resetNanos : 0,
        requireSource(source),
        exhausted,
        false,
        null,
        remaining,
        resetNanos,
        -1,
        -1);
  }

  /**
   * Returns a copy of this hint that also reports the server's quota (see {@link #quota}), for
   * example a 429's {@code Retry-After} read together with its {@code RateLimit} headers.
   *
   * @param remaining requests left in the window, &ge; 0
   * @param reset the time until the window resets, &ge; 0
   * @return a new hint with the same wait, source and kind
   * @throws NullPointerException if {@code reset} is null
   * @throws IllegalArgumentException if {@code remaining} or {@code reset} is negative
   */
  public ServerHint withQuota(long remaining, Duration reset) {
    long resetNanos = toNanos(reset);
    requireRemaining(remaining);
    return withLimits(remaining, resetNanos, policyQuota, policyWindowNanos);
  }

  /**
   * Returns a copy of this hint that also states the server's policy: {@code quota} requests per
   * {@code window} (for example {@code RateLimit-Policy: 100;w=60}, or {@code X-RateLimit-Limit}
   * with a known window). An {@linkplain dev.relent.guard.Pacer#isAdaptive adaptive pacer} compares
   * it with its own starts: a server that counts more of the window's quota spent than this client
   * started, or refuses a start before this client spent the quota, serves another caller on the
   * same account, and the pacer leaves that caller room.
   *
   * @param quota the requests the policy allows per window, &gt; 0
   * @param window the policy's window, &gt; 0
   * @return a new hint with the same wait, source, kind and quota
   * @throws NullPointerException if {@code window} is null
   * @throws IllegalArgumentException if {@code quota} or {@code window} is not positive
   */
  public ServerHint withPolicy(long quota, Duration window) {
    long windowNanos = toNanos(window);
    if (windowNanos == 0) {
      throw new IllegalArgumentException("window must be > 0 (the policy's time window): 0 ms");
    }
    return withPolicyNanos(quota, windowNanos);
  }

  /**
   * Returns a copy of this hint that states the server's quota per window without the window (for
   * example {@code X-RateLimit-Limit: 100} alone). Compared as {@link #withPolicy(long, Duration)}
   * is, against every start this client remembers instead of those of one window.
   *
   * @param quota the requests the policy allows per window, &gt; 0
   * @return a new hint with the same wait, source, kind and quota
   * @throws IllegalArgumentException if {@code quota} is not positive
   */
  public ServerHint withPolicy(long quota) {
    return withPolicyNanos(quota, -1);
  }

  private ServerHint withPolicyNanos(long quota, long windowNanos) {
    if (quota <= 0) {
      throw new IllegalArgumentException(
          "quota must be > 0 (the requests the policy allows per window): " + quota);
    }
    return withLimits(quotaRemaining, quotaResetNanos, quota, windowNanos);
  }

  /** A copy with the same wait, source and kind, and these quota and policy figures. */
  private ServerHint withLimits(long remaining, long resetNanos, long quota, long windowNanos) {
    return new ServerHint(
        waitNanos,
        source,
        pauseAll,
        quotaExhausted,
        resetAt,
        remaining,
        resetNanos,
        quota,
        windowNanos);
  }

  private static void requireRemaining(long remaining) {
    if (remaining < 0) {
      throw new IllegalArgumentException(
          "remaining must be >= 0 (the requests the server still allows): " + remaining);
    }
  }

  /**
   * Creates a hint to wait at least the given time before retrying this operation.
   *
   * @param wait the minimum wait; zero means "no earlier than now" (the backoff still applies)
   * @param source where it came from, for messages and logs, e.g. {@code "Retry-After: 120"}; must
   *     not contain secrets
   * @return a new hint
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code wait} is negative
   */
  public static ServerHint retryAfter(Duration wait, String source) {
    return new ServerHint(toNanos(wait), requireSource(source), false, false, null);
  }

  /**
   * Creates a hint that the server is rate limiting: wait at least the given time, and pause every
   * caller that shares the pacer for as long (a 429, or rate-limit headers announcing no remaining
   * requests).
   *
   * @param wait the minimum wait
   * @param source where it came from, for messages and logs
   * @return a new hint
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code wait} is negative
   */
  public static ServerHint rateLimited(Duration wait, String source) {
    return new ServerHint(toNanos(wait), requireSource(source), true, false, null);
  }

  /**
   * Creates a hint that a quota is exhausted and will not come back by waiting a while: the
   * executor stops at once with a {@link QuotaExhaustedException}.
   *
   * @param wait how long until the quota resets, as far as the server said
   * @param resetAt the wall-clock time the quota resets, or null if unknown
   * @param source where it came from, for messages and logs
   * @return a new hint
   * @throws NullPointerException if {@code wait} or {@code source} is null
   * @throws IllegalArgumentException if {@code wait} is negative
   */
  public static ServerHint quotaExhausted(Duration wait, Instant resetAt, String source) {
    return new ServerHint(toNanos(wait), requireSource(source), true, true, resetAt);
  }

  private static long toNanos(Duration wait) {
    Objects.requireNonNull(wait, "wait cannot be null");
    if (wait.isNegative()) {
      throw new IllegalArgumentException("wait must be >= 0: " + wait.toMillis() + " ms");
    }
    return Nanos.saturatedNanos(wait);
  }

  private static String requireSource(String source) {
    return Objects.requireNonNull(source, "source cannot be null");
  }

  /**
   * Returns the minimum wait the server asked for, in nanoseconds.
   *
   * @return the wait, zero or more
   */
  public long waitNanos() {
    return waitNanos;
  }

  /**
   * Returns the minimum wait the server asked for.
   *
   * @return the wait
   */
  public Duration waitTime() {
    return Duration.ofNanos(waitNanos);
  }

  /**
   * Returns where the hint came from, e.g. {@code "Retry-After: 120"}.
   *
   * @return the source, never null
   */
  public String source() {
    return source;
  }

  /**
   * Returns whether every caller sharing the pacer should pause.
   *
   * @return true for rate limiting and quota hints
   */
  public boolean pausesAll() {
    return pauseAll;
  }

  /**
   * Returns whether the quota is exhausted beyond what waiting can fix.
   *
   * @return true for a quota hint
   */
  public boolean isQuotaExhausted() {
    return quotaExhausted;
  }

  /**
   * Returns when the quota resets, if the server said.
   *
   * @return the reset time, or empty
   */
  public Optional<Instant> resetAt() {
    return Optional.ofNullable(resetAt);
  }

  /**
   * Returns whether the hint reports the server's quota ({@link #quota}, {@link #withQuota}).
   *
   * @return true if {@link #quotaRemaining()} and {@link #quotaReset()} are present
   */
  public boolean hasQuota() {
    return quotaRemaining >= 0;
  }

  /**
   * Returns the requests the server still allows in its window.
   *
   * @return the remaining requests, or empty if the hint reports no quota
   */
  public OptionalLong quotaRemaining() {
    return hasQuota() ? OptionalLong.of(quotaRemaining) : OptionalLong.empty();
  }

  /**
   * Returns the time until the server's window resets.
   *
   * @return the time, or empty if the hint reports no quota
   */
  public Optional<Duration> quotaReset() {
    return hasQuota() ? Optional.of(Duration.ofNanos(quotaResetNanos)) : Optional.empty();
  }

  /**
   * Returns the requests the server's policy allows per window ({@link #withPolicy}).
   *
   * @return the quota per window, or empty if the hint states no policy
   */
  public OptionalLong policyQuota() {
    return policyQuota > 0 ? OptionalLong.of(policyQuota) : OptionalLong.empty();
  }

  /**
   * Returns the window of the server's policy ({@link #withPolicy(long, Duration)}).
   *
   * @return the window, or empty if the hint states no policy or a policy without its window
   */
  public Optional<Duration> policyWindow() {
    return policyWindowNanos > 0
        ? Optional.of(Duration.ofNanos(policyWindowNanos))
        : Optional.empty();
  }

  /** The policy's quota per window, -1 without a policy: for the executor. */
  long policyQuotaOrNegative() {
    return policyQuota;
  }

  /** The policy's window in nanoseconds, -1 when unknown: for the executor. */
  long policyWindowNanosOrNegative() {
    return policyWindowNanos;
  }

  /** The remaining requests, -1 without a quota: for the executor, which must not allocate. */
  long remainingOrNegative() {
    return quotaRemaining;
  }

  /** The time to the reset in nanoseconds, -1 without a quota: for the executor. */
  long resetNanosOrNegative() {
    return quotaResetNanos;
  }

  @Override
  public String toString() {
    return source + " (wait " + Durations.format(waitNanos) + ")";
  }
}
