package dev.relent.http.adapter;

import dev.relent.RelentEvent;
import dev.relent.http.HttpFaultException;
import java.util.function.BiConsumer;

/**
 * Watches one logical call of an HTTP adapter and each physical request it sends, and may add
 * headers to each of those requests: what tracing needs (a span per call, a client span per
 * request, a {@code traceparent} header per request). Made per call by the {@link Factory} given to
 * the adapter's builder ({@code withCallObserver}), so that an observer knows which call every
 * callback belongs to without a {@code ThreadLocal}.
 *
 * <p>For one call the adapter calls, in this order: {@link Factory#create} before the first
 * attempt; for every request sent, {@link #attemptStarted} just before it goes to the client, then
 * {@link #attemptEnded} once its response or failure is known (a response the table retries has
 * been buffered by then); {@link #onEvent} with each of the executor's events for the call as it
 * happens (the retry decided and the wait chosen, a wait for the pacer, the give-up), interleaved
 * with the two above; and last {@link #callEnded}, with what the caller receives. A call refused
 * before any request (an open breaker) has no attempt callbacks. Every method has an empty default.
 *
 * <p>Callbacks run on the thread that does the work, which for an asynchronous call is a client or
 * scheduler thread, and a cancellation may overlap the end of the attempt in flight: an observer
 * must be thread-safe. It must be fast and must not block; an exception it throws is ignored, so
 * that observing never changes a call's outcome. An adapter built without an observer makes none
 * and the hook costs it a null check per attempt and per event, no allocation.
 */
public interface CallObserver {

  /** Makes the observer of each call. Thread-safe: one factory serves every call of the adapter. */
  @FunctionalInterface
  interface Factory {
    /**
     * Makes the observer of one call, before its first attempt.
     *
     * @param call the call: its method, its redacted {@link HttpCall#endpoint() endpoint}, its
     *     {@link HttpCall#redactor() redactor}; its unredacted {@link HttpCall#uri() URI} is for
     *     reading the host and port, never for writing down
     * @return the call's observer; {@link CallObserver#NONE} to leave the call alone
     */
    CallObserver create(HttpCall call);
  }

  /** An observer that does nothing. */
  CallObserver NONE = new CallObserver() {};

  /**
   * Called just before a physical request of the call is sent.
   *
   * @param attempt the attempt number: 1 for the first request, 2 for the first resend
   * @param headers sets a header ({@code name, value}) on this request only, replacing a value the
   *     request had; valid during this callback only. A null name or value throws {@code
   *     NullPointerException}; a header the client refuses (a restricted or malformed name) fails
   *     the request as the client's own request builder would
   */
  default void attemptStarted(int attempt, BiConsumer<String, String> headers) {}

  /**
   * Called when a physical request of the call has its answer or has failed.
   *
   * @param attempt the attempt number
   * @param status the response status, or -1 when there is none
   * @param failure null with a status; otherwise what failed: an {@link HttpFaultException} around
   *     the client's exception for a network fault, else the exception as thrown (a timeout of an
   *     asynchronous attempt, a cancellation)
   */
  default void attemptEnded(int attempt, int status, Throwable failure) {}

  /**
   * Called with each of the executor's events for this call ({@link RelentEvent.Type#RETRY} with
   * the rule, the wait chosen and the server's hint; {@link RelentEvent.Type#PACED}; {@link
   * RelentEvent.Type#FAILURE} with the reason for giving up; and the others).
   *
   * @param event the event; its result, if any, is the adapter's response type
   */
  default void onEvent(RelentEvent<?> event) {}

  /**
   * Called once when the call is over.
   *
   * @param status the status of the response the caller receives, or -1 when it receives none
   * @param failure null with a status; otherwise the exception the caller receives
   */
  default void callEnded(int status, Throwable failure) {}
}
