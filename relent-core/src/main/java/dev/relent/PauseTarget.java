package dev.relent;

import dev.relent.guard.Scope;

/**
 * Says which of a request's scopes a rate-limit or quota answer pauses: the HTTP module reads it
 * from the response (a {@code RateLimit-Policy} partition, a configured rule). Called only for an
 * outcome whose hint pauses ({@link ServerHint#pausesAll()}), on an executor built {@code
 * withScopes}.
 *
 * <p>Implementations must be thread-safe and must not throw.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface PauseTarget<R> {
  /**
   * Returns the kind of scope the answer's limit belongs to.
   *
   * @param result the result, when {@code failure} is null
   * @param failure the exception the attempt threw, or null
   * @param hint the server's hint, never null
   * @return the kind: the request's first scope of that kind is paused; null (or a kind the request
   *     has no scope of) pauses its narrowest scope, the last of its list
   */
  Scope.Kind kindOf(R result, Throwable failure, ServerHint hint);
}
