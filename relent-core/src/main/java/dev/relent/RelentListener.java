package dev.relent;

/**
 * Observes an executor's events. Called synchronously on the thread that made the decision, so it
 * must be fast and must not block; an exception it throws is ignored, so that observing can never
 * change the outcome of an operation. Implementations must be thread-safe.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface RelentListener<R> {
  /**
   * Receives one event.
   *
   * @param event what happened
   */
  void onEvent(RelentEvent<R> event);
}
