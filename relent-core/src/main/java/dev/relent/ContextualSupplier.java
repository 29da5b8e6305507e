package dev.relent;

/**
 * One attempt of an operation that wants to know which attempt it is and how long it may take.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface ContextualSupplier<T> {
  /**
   * Makes one attempt.
   *
   * @param context the attempt number and its time limit; valid only during this call
   * @return the outcome, classified by the policy
   * @throws Exception a failure, classified by the policy
   */
  T get(AttemptContext context) throws Exception;
}
