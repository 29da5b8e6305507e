package dev.relent;

/**
 * Decides what an attempt's outcome means. Exactly one of {@code result} and {@code failure} is
 * meaningful: {@code failure} is null when the attempt returned.
 *
 * <p>Implementations must be thread-safe, must not throw, and should return verdicts created once
 * (constants), so that classifying allocates nothing.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface OutcomeClassifier<R> {
  /**
   * Classifies an outcome.
   *
   * @param result the result, when {@code failure} is null (it may itself be null)
   * @param failure the exception the attempt threw, or null
   * @return the verdict, never null
   */
  Verdict classify(R result, Throwable failure);
}
