package dev.relent;

/**
 * Describes an outcome for exception messages and logs, e.g. {@code "HTTP 503"} or {@code
 * "ConnectException"}. The description must never contain secrets or personal content: the default
 * names only the result's or the exception's type.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface OutcomeDescriber<R> {
  /**
   * Describes an outcome.
   *
   * @param result the result, when {@code failure} is null
   * @param failure the exception the attempt threw, or null
   * @return a short description without secrets
   */
  String describe(R result, Throwable failure);
}
