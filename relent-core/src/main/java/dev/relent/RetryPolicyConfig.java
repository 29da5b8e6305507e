package dev.relent;

import dev.relent.time.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The settings of a {@link RetryPolicy}, frozen: every field is final. Immutable and thread-safe;
 * two configurations with the same settings are equal, and {@code toString()} lists them.
 */
public final class RetryPolicyConfig {
  /** Default most retries after the first attempt. */
  public static final int DEFAULT_MAX_RETRIES = 5;

  /** Default total deadline of one operation. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  /** Default time limit of one attempt. */
  public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

  /** Default random spread on top of a server-requested wait, as a fraction of it. */
  public static final double DEFAULT_SERVER_WAIT_SPREAD = 0.1;

  static final RetryPolicyConfig DEFAULTS = new RetryPolicyConfig();

  private final int maxRetries;
  private final Backoff backoff;
  private final Duration deadline;
  private final Duration attemptTimeout;
  private final Duration maxServerWait;
  private final double serverWaitSpread;

  private RetryPolicyConfig() {
    maxRetries = DEFAULT_MAX_RETRIES;
    backoff = Backoff.ofDefaults();
    deadline = DEFAULT_DEADLINE;
    attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;
    maxServerWait = null;
    serverWaitSpread = DEFAULT_SERVER_WAIT_SPREAD;
  }

  RetryPolicyConfig(RetryPolicy.Builder b) {
    maxRetries = b.maxRetries;
    backoff = b.backoff;
    deadline = b.deadline;
    attemptTimeout = b.attemptTimeout;
    maxServerWait = b.maxServerWait;
    serverWaitSpread = b.serverWaitSpread;
  }

  /**
   * Returns the most retries after the first attempt.
   *
   * @return zero or more
   */
  public int maxRetries() {
    return maxRetries;
  }

  /**
   * Returns the backoff between attempts.
   *
   * @return the backoff
   */
  public Backoff backoff() {
    return backoff;
  }

  /**
   * Returns the total time one operation may take.
   *
   * @return more than zero
   */
  public Duration deadline() {
    return deadline;
  }

  /**
   * Returns the time limit of one attempt.
   *
   * @return more than zero
   */
  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  /**
   * Returns the longest server-requested wait accepted, if one was set.
   *
   * @return the limit, or empty when it is the deadline
   */
  public Optional<Duration> maxServerWait() {
    return Optional.ofNullable(maxServerWait);
  }

  /**
   * Returns the random spread on top of a server-requested wait, as a fraction of it.
   *
   * @return from 0 to 1
   */
  public double serverWaitSpread() {
    return serverWaitSpread;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RetryPolicyConfig)) {
      return false;
    }
    RetryPolicyConfig that = (RetryPolicyConfig) o;
    return maxRetries == that.maxRetries
        && Double.compare(serverWaitSpread, that.serverWaitSpread) == 0
        && backoff.equals(that.backoff)
        && deadline.equals(that.deadline)
        && attemptTimeout.equals(that.attemptTimeout)
        && Objects.equals(maxServerWait, that.maxServerWait);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        maxRetries, backoff, deadline, attemptTimeout, maxServerWait, serverWaitSpread);
  }

  /**
   * Returns the settings as {@code RetryPolicyConfig[maxRetries=5, backoff=…, …]}; a policy lists
   * them the same way, under its own name.
   */
  @Override
  public String toString() {
    return "RetryPolicyConfig[maxRetries="
        + maxRetries
        + ", backoff="
        + backoff
        + ", deadline="
        + Durations.exact(deadline)
        + ", attemptTimeout="
        + Durations.exact(attemptTimeout)
        + ", maxServerWait="
        + (maxServerWait == null ? "deadline" : Durations.exact(maxServerWait))
        + ", serverWaitSpread="
        + serverWaitSpread
        + "]";
  }
}
