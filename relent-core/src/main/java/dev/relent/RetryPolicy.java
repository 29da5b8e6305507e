package dev.relent;

import dev.relent.internal.Nanos;
import dev.relent.internal.exec.RetryPolicyImpl;
import dev.relent.time.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How often to try and how long to wait: the number of retries, the backoff, the total deadline,
 * the per-attempt timeout, the longest server-requested wait accepted and the spread added on top
 * of it. It knows nothing of the result type: which outcomes are retried is the executor's
 * classification ({@link RelentExecutor.Builder#retryOn}, {@link
 * RelentExecutor.Builder#withClassifier}, or an HTTP adapter's decision table), so one policy can
 * serve every executor and every HTTP adapter.
 *
 * <p>Defaults ({@link #ofDefaults()}): at most {@value RetryPolicyConfig#DEFAULT_MAX_RETRIES}
 * retries; {@link Backoff#ofDefaults() backoff} base 500 ms, cap 30 s, full jitter; a total
 * deadline of 30 s; 10 s per attempt; a server may ask for waits up to the deadline, with a random
 * spread of 10 % on top.
 *
 * <p>A policy is immutable and thread-safe: build it once and share it. Its {@code toString()}
 * lists its settings.
 */
public interface RetryPolicy {

  /**
   * Returns a builder with every setting at its default.
   *
   * @return a new builder
   */
  static Builder builder() {
    return new Builder(RetryPolicyConfig.DEFAULTS);
  }

  /**
   * Returns a builder that starts from an existing configuration.
   *
   * @param config the settings to start from
   * @return a new builder
   * @throws NullPointerException if {@code config} is null
   */
  static Builder builder(RetryPolicyConfig config) {
    return new Builder(Objects.requireNonNull(config, "config cannot be null"));
  }

  /**
   * Returns a policy with every setting at its default.
   *
   * @return the shared default policy
   */
  static RetryPolicy ofDefaults() {
    return Builder.DEFAULT;
  }

  /**
   * Returns this policy's settings.
   *
   * @return the immutable configuration
   */
  RetryPolicyConfig config();

  /**
   * Builds a {@link RetryPolicy}. Mutable and not thread-safe; {@link #build()} copies every
   * setting, so a builder can be reused.
   */
  final class Builder {
    /** The shared default policy, {@link RetryPolicy#ofDefaults()}. */
    static final RetryPolicy DEFAULT = new RetryPolicyImpl(RetryPolicyConfig.DEFAULTS);

    int maxRetries;
    Backoff backoff;
    Duration deadline;
    Duration attemptTimeout;
    Duration maxServerWait;
    double serverWaitSpread;

    Builder(RetryPolicyConfig from) {
      maxRetries = from.maxRetries();
      backoff = from.backoff();
      deadline = from.deadline();
      attemptTimeout = from.attemptTimeout();
      maxServerWait = from.maxServerWait().orElse(null);
      serverWaitSpread = from.serverWaitSpread();
    }

    /**
     * Sets the most retries after the first attempt. Default 5.
     *
     * @param maxRetries zero or more; zero means one attempt only
     * @return this builder
     * @throws IllegalArgumentException if {@code maxRetries} is negative
     */
    public Builder withMaxRetries(int maxRetries) {
      if (maxRetries < 0) {
        throw new IllegalArgumentException("maxRetries must be >= 0: " + maxRetries);
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /**
     * Sets the backoff between attempts. Default {@link Backoff#ofDefaults()}: base 500 ms, cap 30
     * s, full jitter.
     *
     * @param backoff the backoff
     * @return this builder
     * @throws NullPointerException if {@code backoff} is null
     */
    public Builder withBackoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff cannot be null");
      return this;
    }

    /**
     * Sets the total time one operation may take, every attempt and wait included. A wait that
     * would pass it is not begun: the operation fails at once. Default 30 s.
     *
     * @param deadline more than zero
     * @return this builder
     * @throws NullPointerException if {@code deadline} is null
     * @throws IllegalArgumentException if {@code deadline} is zero or negative
     */
    public Builder withDeadline(Duration deadline) {
      this.deadline = Nanos.requirePositive(deadline, "deadline");
      return this;
    }

    /**
     * Sets the time limit of one attempt; the executor hands {@code min(attempt timeout, deadline
     * left)} to each attempt. Default 10 s.
     *
     * @param attemptTimeout more than zero
     * @return this builder
     * @throws NullPointerException if {@code attemptTimeout} is null
     * @throws IllegalArgumentException if {@code attemptTimeout} is zero or negative
     */
    public Builder withAttemptTimeout(Duration attemptTimeout) {
      this.attemptTimeout = Nanos.requirePositive(attemptTimeout, "attemptTimeout");
      return this;
    }

    /**
     * Sets the longest wait a server may ask for ({@code Retry-After}, a rate-limit reset). A
     * longer one fails the operation at once, saying how long the server asked for and when a retry
     * may be made; it is never shortened. Default: the deadline.
     *
     * @param maxServerWait zero or more
     * @return this builder
     * @throws NullPointerException if {@code maxServerWait} is null
     * @throws IllegalArgumentException if {@code maxServerWait} is negative
     */
    public Builder withMaxServerWait(Duration maxServerWait) {
      this.maxServerWait = Nanos.requireNonNegative(maxServerWait, "maxServerWait");
      return this;
    }

    /**
     * Sets the random spread added on top of a server-requested wait, as a fraction of that wait:
     * with 0.1 a {@code Retry-After: 10} becomes a wait between 10 and 11 s, so that clients
     * released together do not return together. Default 0.1.
     *
     * @param fraction from 0 to 1
     * @return this builder
     * @throws IllegalArgumentException if {@code fraction} is outside [0, 1] or NaN
     */
    public Builder withServerWaitSpread(double fraction) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new IllegalArgumentException("serverWaitSpread must be in [0, 1]: " + fraction);
      }
      this.serverWaitSpread = fraction;
      return this;
    }

    /**
     * Builds the policy.
     *
     * @return a new immutable policy
     * @throws IllegalStateException if {@code maxServerWait} exceeds {@code deadline}
     */
    public RetryPolicy build() {
      if (maxServerWait != null && maxServerWait.compareTo(deadline) > 0) {
        throw new IllegalStateException(
            "maxServerWait ("
                + Durations.exact(maxServerWait)
                + ") cannot exceed deadline ("
                + Durations.exact(deadline)
                + "): a wait past the deadline always fails");
      }
      return new RetryPolicyImpl(new RetryPolicyConfig(this));
    }
  }
}
