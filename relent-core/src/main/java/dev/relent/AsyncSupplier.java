package dev.relent;

import java.util.concurrent.CompletionStage;

/**
 * One attempt of an asynchronous operation. It must not block: it starts the work and returns a
 * stage that completes with the outcome.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface AsyncSupplier<T> {
  /**
   * Starts one attempt.
   *
   * @param context the attempt number and its time limit
   * @return a stage completing with the outcome; if it has not completed by {@link
   *     AttemptContext#timeoutNanos()} the attempt fails with a {@link
   *     java.util.concurrent.TimeoutException} and the stage is cancelled
   * @throws Exception a failure thrown while starting, classified by the policy
   */
  CompletionStage<? extends T> get(AttemptContext context) throws Exception;
}
