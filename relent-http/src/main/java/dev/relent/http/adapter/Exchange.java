package dev.relent.http.adapter;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * An adapter's glue for one synchronous call, handed to {@link HttpCallLoop#execute}: how to send
 * one attempt with a time limit, how to keep a response that will be retried or held back without
 * holding its connection, and whether the call was cancelled. Everything else (key, table,
 * executor, outcome translation, records, logging) is the loop's.
 *
 * <p>Used by one thread at a time, the call's.
 *
 * @param <R> the client's response type
 * @param <X> a checked exception the client may throw besides {@code IOException}, passed through
 *     as it is ({@code InterruptedException} for the JDK, {@code HttpException} for HttpClient 5)
 */
public interface Exchange<R, X extends Exception> {

  /**
   * Sends one attempt, with every client timeout bounded by {@code timeoutNanos}.
   *
   * @param timeoutNanos what the attempt may take: the attempt timeout or what is left of the
   *     deadline, whichever is shorter
   * @return the response, in the form the adapter's {@link ResponseAccess} reads
   * @throws IOException a network failure; the loop wraps it for the decision table
   * @throws X a non-network failure the client reports checked; it ends the call as it is
   */
  R send(long timeoutNanos) throws IOException, X;

  /**
   * Reads what is needed of a response's body into memory (at most {@link
   * HttpCallLoop#maxBufferedBody()} bytes) and releases its connection: called for a response the
   * table retries or holds back, before the executor waits. Default: the response as it is, for
   * clients whose body handler buffered already.
   *
   * @param response the response {@link #send} returned
   * @return a response with the same status and headers whose body needs no connection
   * @throws IOException if reading the body failed
   */
  default R buffer(R response) throws IOException {
    return response;
  }

  /**
   * Returns whether the caller cancelled the call; checked before each attempt and after a failed
   * one. Default false.
   *
   * @return true to stop with {@link #cancellation()}
   */
  default boolean cancelled() {
    return false;
  }

  /**
   * Returns what a cancelled call throws, in the client's own convention. Default {@code
   * InterruptedIOException("Canceled")}.
   *
   * @return a new exception
   */
  default IOException cancellation() {
    return new InterruptedIOException("Canceled");
  }
}
