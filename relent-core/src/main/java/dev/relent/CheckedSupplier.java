package dev.relent;

/**
 * One attempt of an operation that may throw any exception.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface CheckedSupplier<T> {
  /**
   * Makes one attempt.
   *
   * @return the outcome, classified by the policy
   * @throws Exception a failure, classified by the policy
   */
  T get() throws Exception;
}
