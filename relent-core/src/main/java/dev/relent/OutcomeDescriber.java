package dev.relent;

/**
 * Describes an outcome for exception messages and logs, e.g. {@code "HTTP 503"} or {@code
 * "ConnectException"}, and names the class it belongs to for meters and dashboards. The description
 * must never contain secrets or personal content: the default names only the result's or the
 * exception's type.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface OutcomeDescriber<R> {
  /** The {@link #outcomeClass} of an outcome that has no class of its own: {@value}. */
  String NO_CLASS = "none";

  /**
   * Describes an outcome.
   *
   * @param result the result, when {@code failure} is null
   * @param failure the exception the attempt threw, or null
   * @return a short description without secrets
   */
  String describe(R result, Throwable failure);

  /**
   * Names the class of an outcome, for a meter's tag: one of a small fixed set, so that tags stay
   * few. The HTTP adapters' describer answers with the status class, {@code 1xx}, {@code 2xx},
   * {@code 3xx}, {@code 4xx}, {@code 429} (apart from the other 4xx: the server pacing the caller)
   * or {@code 5xx}, {@code other} for a status outside 100-599, {@code io} for a network fault (no
   * answer), and {@value #NO_CLASS} for a failure that is not the network's. Called once per event
   * that follows an attempt, only when a listener is registered; it must be cheap, must not throw
   * and should return constants.
   *
   * @param result the result, when {@code failure} is null
   * @param failure the exception the attempt threw, or null
   * @return the class; by default {@value #NO_CLASS}
   */
  default String outcomeClass(R result, Throwable failure) {
    return NO_CLASS;
  }
}
