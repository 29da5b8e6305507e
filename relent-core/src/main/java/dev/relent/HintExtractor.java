package dev.relent;

/**
 * Reads what the server said about when to come back from an attempt's outcome: a {@code
 * Retry-After}, a rate-limit reset, a daily quota. The HTTP module plugs its header reading in
 * here. Called for every outcome, successes included (rate-limit headers on a success slow the
 * pacer before 429s happen), so an implementation should return null without allocating when there
 * is nothing to read.
 *
 * <p>Implementations must be thread-safe and must not throw.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface HintExtractor<R> {
  /**
   * Extracts a hint.
   *
   * @param result the result, when {@code failure} is null
   * @param failure the exception the attempt threw, or null
   * @return the hint, or null when the outcome carries none
   */
  ServerHint extract(R result, Throwable failure);
}
