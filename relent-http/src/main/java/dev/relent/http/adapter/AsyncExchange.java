package dev.relent.http.adapter;

import java.util.concurrent.CompletableFuture;

/**
 * An adapter's glue for one asynchronous call, handed to {@link HttpCallLoop#executeAsync}: how to
 * start one attempt. The adapter buffers, inside the attempt, the body of a response the table
 * retries or holds back ({@link HttpCallLoop#needsBuffer}), so that no connection is held while the
 * executor waits.
 *
 * @param <R> the client's response type
 */
@FunctionalInterface
public interface AsyncExchange<R> {

  /**
   * Starts one attempt; must not block.
   *
   * @param timeoutNanos what the attempt may take; the loop also cancels the stage when it is up
   * @return a stage completing with the response, in the form the adapter's {@link ResponseAccess}
   *     reads, or exceptionally with the client's failure; cancelling it must abort the exchange
   */
  CompletableFuture<? extends R> send(long timeoutNanos);
}
