package dev.relent.bench;

import java.util.concurrent.CompletableFuture;

/**
 * The operation every library runs: it answers {@code "ok"} at once, or, with {@code failOnce},
 * fails its first attempt of each call with a preallocated exception and then answers. Nothing is
 * allocated per attempt, so that the only allocation a benchmark sees is the library's own.
 *
 * <p>Not thread-safe: one per benchmark thread. The attempt counter lets tests check that each
 * library made exactly the attempts the scenario asks for.
 */
final class Operation {
  static final String OK = "ok";

  /** A failure without a stack trace, so that throwing it costs only the throw. */
  static final Exception FAILURE = new TransientFailure();

  static final CompletableFuture<String> OK_STAGE = CompletableFuture.completedFuture(OK);
  static final CompletableFuture<String> FAILED_STAGE = CompletableFuture.failedFuture(FAILURE);

  private final boolean failOnce;
  private long attempts;

  Operation(boolean failOnce) {
    this.failOnce = failOnce;
  }

  boolean failOnce() {
    return failOnce;
  }

  /** One synchronous attempt. */
  String get() throws Exception {
    if (failOnce && (attempts++ & 1) == 0) {
      throw FAILURE;
    }
    if (!failOnce) {
      attempts++;
    }
    return OK;
  }

  /** One asynchronous attempt: an already completed stage, like a cache hit or a fast reply. */
  CompletableFuture<String> stage() {
    if (failOnce && (attempts++ & 1) == 0) {
      return FAILED_STAGE;
    }
    if (!failOnce) {
      attempts++;
    }
    return OK_STAGE;
  }

  long attempts() {
    return attempts;
  }

  /** The retryable failure of the first attempt. */
  static final class TransientFailure extends Exception {
    private static final long serialVersionUID = 1L;

    TransientFailure() {
      super("transient failure (benchmark)", null, false, false);
    }
  }
}
