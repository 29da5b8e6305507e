package dev.relent;

import dev.relent.internal.Nanos;
import dev.relent.time.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * When to retry and how long to wait: the number of retries, the backoff, the total deadline, the
 * per-attempt timeout, the longest server-requested wait accepted, and how outcomes are classified.
 *
 * <p>Defaults ({@link #ofDefaults()}): at most {@value RetryPolicyConfig#DEFAULT_MAX_RETRIES}
 * retries; {@link Backoff#ofDefaults() backoff} base 500 ms, cap 30 s, full jitter; a total
 * deadline of 30 s; 10 s per attempt; a server may ask for waits up to the deadline; every
 * exception is retried except interruption and cancellation, every result is a success.
 *
 * <p>A policy is immutable and thread-safe: build it once and share it. It does nothing on its own;
 * a {@link RelentExecutor} runs operations under it.
 *
 * @param <R> the result type of the operations it governs
 */
public interface RetryPolicy<R> {

  /**
   * Returns a builder with every setting at its default.
   *
   * @param <R> the result type
   * @return a new builder
   */
  static <R> Builder<R> builder() {
    return new Builder<>(RetryPolicyConfig.defaults());
  }

  /**
   * Returns a builder that starts from an existing configuration.
   *
   * @param config the settings to start from
   * @param <R> the result type
   * @return a new builder
   * @throws NullPointerException if {@code config} is null
   */
  static <R> Builder<R> builder(RetryPolicyConfig<R> config) {
    return new Builder<>(Objects.requireNonNull(config, "config cannot be null"));
  }

  /**
   * Returns a policy with every setting at its default.
   *
   * @param <R> the result type
   * @return a policy
   */
  static <R> RetryPolicy<R> ofDefaults() {
    return RetryPolicy.<R>builder().build();
  }

  /**
   * Returns this policy's settings.
   *
   * @return the immutable configuration
   */
  RetryPolicyConfig<R> config();

  /**
   * Classifies an attempt's outcome under this policy's rules.
   *
   * @param result the result, when {@code failure} is null
   * @param failure the failure, or null
   * @return the verdict naming the rule that fired
   */
  Verdict classify(R result, Throwable failure);

  /**
   * Builds a {@link RetryPolicy}. Mutable and not thread-safe; {@link #build()} copies every
   * setting, so a builder can be reused.
   *
   * @param <R> the result type
   */
  final class Builder<R> {
    int maxRetries;
    Backoff backoff;
    Duration deadline;
    Duration attemptTimeout;
    Duration maxServerWait;
    double hintSpread;
    OutcomeClassifier<R> classifier;
    HintExtractor<R> hints;
    OutcomeDescriber<R> describer;
    final List<Class<? extends Throwable>> retryOn = new ArrayList<>();
    final List<Class<? extends Throwable>> abortOn = new ArrayList<>();
    final List<Predicate<? super Throwable>> retryOnFailure = new ArrayList<>();
    final List<Predicate<? super Throwable>> abortOnFailure = new ArrayList<>();
    final List<Predicate<? super R>> retryIf = new ArrayList<>();
    final List<Predicate<? super R>> abortIf = new ArrayList<>();

    Builder(RetryPolicyConfig<R> from) {
      maxRetries = from.maxRetries();
      backoff = from.backoff();
      deadline = from.deadline();
      attemptTimeout = from.attemptTimeout();
      maxServerWait = from.maxServerWait().orElse(null);
      hintSpread = from.hintSpread();
      classifier = from.classifier().orElse(null);
      hints = from.hintExtractor().orElse(null);
      describer = from.describer();
      retryOn.addAll(from.retryOn());
      abortOn.addAll(from.abortOn());
      retryOnFailure.addAll(from.retryOnFailure());
      abortOnFailure.addAll(from.abortOnFailure());
      retryIf.addAll(from.retryIf());
      abortIf.addAll(from.abortIf());
    }

    /**
     * Sets the most retries after the first attempt. Default 5.
     *
     * @param maxRetries zero or more; zero means one attempt only
     * @return this builder
     * @throws IllegalArgumentException if {@code maxRetries} is negative
     */
    public Builder<R> withMaxRetries(int maxRetries) {
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
    public Builder<R> withBackoff(Backoff backoff) {
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
    public Builder<R> withDeadline(Duration deadline) {
      this.deadline = Nanos.requirePositive(deadline, "deadline");
      return this;
    }

    /**
     * Sets the time one attempt may take; each attempt gets the smaller of this and what is left of
     * the deadline. Asynchronous executions enforce it; synchronous ones hand it to the attempt
     * through {@link AttemptContext#timeoutNanos()}. Default 10 s.
     *
     * @param attemptTimeout more than zero
     * @return this builder
     * @throws NullPointerException if {@code attemptTimeout} is null
     * @throws IllegalArgumentException if {@code attemptTimeout} is zero or negative
     */
    public Builder<R> withAttemptTimeout(Duration attemptTimeout) {
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
    public Builder<R> withMaxServerWait(Duration maxServerWait) {
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
    public Builder<R> withServerWaitSpread(double fraction) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new IllegalArgumentException("server wait spread must be in [0, 1]: " + fraction);
      }
      this.hintSpread = fraction;
      return this;
    }

    /**
     * Retries failures of these types (and their subtypes). Once any is given, other exceptions are
     * no longer retried. Default: every exception but interruption and cancellation.
     *
     * @param types exception types
     * @return this builder
     * @throws NullPointerException if {@code types} or an element is null
     */
    @SafeVarargs
    public final Builder<R> retryOn(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> type : types) {
        retryOn.add(Objects.requireNonNull(type, "type cannot be null"));
      }
      return this;
    }

    /**
     * Retries failures that match the predicate. Once any retry condition on failures is given,
     * other exceptions are no longer retried.
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> retryOn(Predicate<? super Throwable> predicate) {
      retryOnFailure.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Never retries failures of these types; they win over every retry condition.
     *
     * @param types exception types
     * @return this builder
     * @throws NullPointerException if {@code types} or an element is null
     */
    @SafeVarargs
    public final Builder<R> abortOn(Class<? extends Throwable>... types) {
      for (Class<? extends Throwable> type : types) {
        abortOn.add(Objects.requireNonNull(type, "type cannot be null"));
      }
      return this;
    }

    /**
     * Never retries failures that match the predicate.
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> abortOn(Predicate<? super Throwable> predicate) {
      abortOnFailure.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Retries results that match the predicate (for example an HTTP 503 response).
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> retryIf(Predicate<? super R> predicate) {
      retryIf.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Stops at results that match the predicate and returns them; wins over {@link
     * #retryIf(Predicate)}.
     *
     * @param predicate a thread-safe test
     * @return this builder
     * @throws NullPointerException if {@code predicate} is null
     */
    public Builder<R> abortIf(Predicate<? super R> predicate) {
      abortIf.add(Objects.requireNonNull(predicate, "predicate cannot be null"));
      return this;
    }

    /**
     * Replaces every retry and abort condition with one classifier that names its rules (the HTTP
     * module's decision table is one).
     *
     * @param classifier a thread-safe classifier
     * @return this builder
     * @throws NullPointerException if {@code classifier} is null
     */
    public Builder<R> withClassifier(OutcomeClassifier<R> classifier) {
      this.classifier = Objects.requireNonNull(classifier, "classifier cannot be null");
      return this;
    }

    /**
     * Reads server hints ({@code Retry-After}, rate-limit headers, quotas) from outcomes. Default:
     * none.
     *
     * @param extractor a thread-safe extractor
     * @return this builder
     * @throws NullPointerException if {@code extractor} is null
     */
    public Builder<R> withHints(HintExtractor<R> extractor) {
      this.hints = Objects.requireNonNull(extractor, "extractor cannot be null");
      return this;
    }

    /**
     * Sets how outcomes are described in exception messages and events. It must not reveal secrets.
     * Default: the type of the result or of the exception.
     *
     * @param describer a thread-safe describer
     * @return this builder
     * @throws NullPointerException if {@code describer} is null
     */
    public Builder<R> withOutcomeDescriber(OutcomeDescriber<R> describer) {
      this.describer = Objects.requireNonNull(describer, "describer cannot be null");
      return this;
    }

    /**
     * Builds an immutable policy from the current settings.
     *
     * @return a new policy
     * @throws IllegalStateException if the settings conflict: a classifier together with retry or
     *     abort conditions, or a maximum server wait longer than the deadline
     */
    public RetryPolicy<R> build() {
      boolean conditions =
          !(retryOn.isEmpty()
              && abortOn.isEmpty()
              && retryOnFailure.isEmpty()
              && abortOnFailure.isEmpty()
              && retryIf.isEmpty()
              && abortIf.isEmpty());
      if (classifier != null && conditions) {
        throw new IllegalStateException(
            "classifier and retryOn/abortOn/retryIf/abortIf cannot be combined: the classifier"
                + " decides alone; fold the conditions into it");
      }
      if (maxServerWait != null && maxServerWait.compareTo(deadline) > 0) {
        throw new IllegalStateException(
            "maxServerWait ("
                + Durations.exact(maxServerWait)
                + ") cannot exceed deadline ("
                + Durations.exact(deadline)
                + "): a wait past the deadline always fails");
      }
      return new DefaultRetryPolicy<>(new RetryPolicyConfig<>(this));
    }
  }
}
