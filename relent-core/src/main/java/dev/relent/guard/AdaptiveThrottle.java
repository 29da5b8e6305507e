package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.time.RandomSource;
import java.time.Duration;

/**
 * Client-side adaptive throttling (Google, "Site Reliability Engineering", chapter 21, "Handling
 * Overload"): while the downstream rejects many requests, reject some here, before they are sent,
 * so that an overloaded service is not also flooded with requests it will refuse.
 *
 * <p>Over a sliding window the throttle counts {@code requests} (every attempt offered, including
 * those it rejected itself) and {@code accepts} (attempts the downstream accepted). A new attempt
 * is rejected with probability {@code max(0, (requests - K * accepts) / (requests + 1))}: nothing
 * is rejected while the downstream accepts at least one request in K; as it accepts fewer, more are
 * rejected, but never all, so that the throttle notices the recovery.
 *
 * <p>Defaults ({@link #ofDefaults()}): <b>K = 2</b>, a window of <b>2 minutes</b> (10 buckets of 12
 * s each, so that a request counts for between 1.8 and 2 minutes). A smaller K rejects earlier.
 *
 * <p>Time and chance: the decision methods take the executor's ticker reading and its {@link
 * RandomSource} (the executor's own, from its time source), and draw a number only when the
 * probability is above zero. Thread-safe (a short spin-locked section per call); nothing is
 * allocated but the text of {@link #describe}.
 */
public interface AdaptiveThrottle {

  /**
   * Returns a throttle with the defaults: K = 2 over 2 minutes.
   *
   * @return a new throttle
   */
  static AdaptiveThrottle ofDefaults() {
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
   * Counts one request and decides whether it may be sent.
   *
   * @param nowNanos the executor's ticker reading
   * @param random where the draw comes from when the rejection probability is above zero
   * @return true to send it; false to reject it here (it still counts as a request)
   */
  boolean tryAcquire(long nowNanos, RandomSource random);

  /**
   * Counts one request the downstream accepted (answered without a downstream failure).
   *
   * @param nowNanos the executor's ticker reading when the request was sent
   */
  void onAccepted(long nowNanos);

  /**
   * Returns the probability that a request is rejected now.
   *
   * @param nowNanos a ticker reading
   * @return {@code max(0, (requests - K * accepts) / (requests + 1))}, in [0, 1)
   */
  double rejectionProbability(long nowNanos);

  /**
   * Says what the throttle has seen, for a refusal's message: for example {@code "accepted 120 of
   * 900 requests in the last 2 min, K 2: rejecting 60 %"}.
   *
   * @param nowNanos a ticker reading
   * @return the description
   */
  String describe(long nowNanos);

  /** Builds an {@link AdaptiveThrottle}. Mutable and not thread-safe. */
  final class Builder {
    static final int BUCKETS = 10;
    private double k = 2;
    private Duration window = Duration.ofMinutes(2);

    Builder() {}

    /**
     * Sets K, how many requests per accepted one the downstream may refuse before the throttle
     * rejects any; default 2.
     *
     * @param k &ge; 1 (below 1 the throttle would reject requests a healthy downstream accepts)
     * @return this builder
     * @throws IllegalArgumentException if {@code k} is below 1 or not a number
     */
    public Builder withK(double k) {
      if (!(k >= 1) || Double.isInfinite(k)) {
        throw new IllegalArgumentException(
            "K must be a finite number >= 1 (2 is the usual choice; 1.1 rejects early): " + k);
      }
      this.k = k;
      return this;
    }

    /**
     * Sets the sliding window the requests and accepts are counted over; default 2 minutes.
     *
     * @param window at least 10 ns (10 buckets of at least 1 ns)
     * @return this builder
     * @throws NullPointerException if {@code window} is null
     * @throws IllegalArgumentException if {@code window} is shorter than 10 ns
     */
    public Builder withWindow(Duration window) {
      Nanos.requirePositive(window, "window");
      if (window.toNanos() < BUCKETS) {
        throw new IllegalArgumentException(
            "window must be at least " + BUCKETS + " ns, such as 1 min: " + window);
      }
      this.window = window;
      return this;
    }

    /**
     * Builds the throttle.
     *
     * @return a new throttle with empty counts
     */
    public AdaptiveThrottle build() {
      return new AdaptiveThrottleImpl(k, window);
    }
  }
}
