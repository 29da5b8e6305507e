package dev.relent;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The settings of a {@link RetryPolicy}, frozen: every field is final and every list an immutable
 * copy. Thread-safe.
 *
 * @param <R> the result type
 */
public final class RetryPolicyConfig<R> {
  /** Default most retries after the first attempt. */
  public static final int DEFAULT_MAX_RETRIES = 5;

  /** Default total deadline of one operation. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  /** Default time limit of one attempt. */
  public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

  /** Default random spread on top of a server-requested wait, as a fraction of it. */
  public static final double DEFAULT_SERVER_WAIT_SPREAD = 0.1;

  private final int maxRetries;
  private final Backoff backoff;
  private final Duration deadline;
  private final Duration attemptTimeout;
  private final Duration maxServerWait;
  private final double hintSpread;
  private final OutcomeClassifier<R> classifier;
  private final HintExtractor<R> hints;
  private final OutcomeDescriber<R> describer;
  private final List<Class<? extends Throwable>> retryOn;
  private final List<Class<? extends Throwable>> abortOn;
  private final List<Predicate<? super Throwable>> retryOnFailure;
  private final List<Predicate<? super Throwable>> abortOnFailure;
  private final List<Predicate<? super R>> retryIf;
  private final List<Predicate<? super R>> abortIf;

  private RetryPolicyConfig() {
    maxRetries = DEFAULT_MAX_RETRIES;
    backoff = Backoff.ofDefaults();
    deadline = DEFAULT_DEADLINE;
    attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;
    maxServerWait = null;
    hintSpread = DEFAULT_SERVER_WAIT_SPREAD;
    classifier = null;
    hints = null;
    describer = RetryPolicyConfig::describeType;
    retryOn = List.of();
    abortOn = List.of();
    retryOnFailure = List.of();
    abortOnFailure = List.of();
    retryIf = List.of();
    abortIf = List.of();
  }

  RetryPolicyConfig(RetryPolicy.Builder<R> b) {
    maxRetries = b.maxRetries;
    backoff = b.backoff;
    deadline = b.deadline;
    attemptTimeout = b.attemptTimeout;
    maxServerWait = b.maxServerWait;
    hintSpread = b.hintSpread;
    classifier = b.classifier;
    hints = b.hints;
    describer = b.describer;
    retryOn = List.copyOf(b.retryOn);
    abortOn = List.copyOf(b.abortOn);
    retryOnFailure = List.copyOf(b.retryOnFailure);
    abortOnFailure = List.copyOf(b.abortOnFailure);
    retryIf = List.copyOf(b.retryIf);
    abortIf = List.copyOf(b.abortIf);
  }

  static <R> RetryPolicyConfig<R> defaults() {
    return new RetryPolicyConfig<>();
  }

  private static String describeType(Object result, Throwable failure) {
    if (failure != null) {
      return failure.getClass().getSimpleName();
    }
    return result == null ? "null result" : result.getClass().getSimpleName() + " result";
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
   * @return the deadline
   */
  public Duration deadline() {
    return deadline;
  }

  /**
   * Returns the time one attempt may take.
   *
   * @return the attempt timeout
   */
  public Duration attemptTimeout() {
    return attemptTimeout;
  }

  /**
   * Returns the longest server-requested wait accepted, if set apart from the deadline.
   *
   * @return the maximum, or empty when the deadline is the limit
   */
  public Optional<Duration> maxServerWait() {
    return Optional.ofNullable(maxServerWait);
  }

  /**
   * Returns the random spread on top of a server-requested wait, as a fraction of it.
   *
   * @return a fraction in [0, 1]
   */
  public double hintSpread() {
    return hintSpread;
  }

  /**
   * Returns the classifier that replaces the conditions, if one was set.
   *
   * @return the classifier or empty
   */
  public Optional<OutcomeClassifier<R>> classifier() {
    return Optional.ofNullable(classifier);
  }

  /**
   * Returns the server hint extractor, if one was set.
   *
   * @return the extractor or empty
   */
  public Optional<HintExtractor<R>> hintExtractor() {
    return Optional.ofNullable(hints);
  }

  /**
   * Returns how outcomes are described in messages.
   *
   * @return the describer
   */
  public OutcomeDescriber<R> describer() {
    return describer;
  }

  /**
   * Returns the exception types retried.
   *
   * @return an immutable list
   */
  public List<Class<? extends Throwable>> retryOn() {
    return retryOn;
  }

  /**
   * Returns the exception types never retried.
   *
   * @return an immutable list
   */
  public List<Class<? extends Throwable>> abortOn() {
    return abortOn;
  }

  /**
   * Returns the predicates on failures that mean retry.
   *
   * @return an immutable list
   */
  public List<Predicate<? super Throwable>> retryOnFailure() {
    return retryOnFailure;
  }

  /**
   * Returns the predicates on failures that mean stop.
   *
   * @return an immutable list
   */
  public List<Predicate<? super Throwable>> abortOnFailure() {
    return abortOnFailure;
  }

  /**
   * Returns the predicates on results that mean retry.
   *
   * @return an immutable list
   */
  public List<Predicate<? super R>> retryIf() {
    return retryIf;
  }

  /**
   * Returns the predicates on results that mean stop.
   *
   * @return an immutable list
   */
  public List<Predicate<? super R>> abortIf() {
    return abortIf;
  }
}
