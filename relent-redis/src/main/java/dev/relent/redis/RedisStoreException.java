package dev.relent.redis;

/**
 * Redis did not answer in time, refused a command, or could not be reached. The message names the
 * Redis URI without any user name or password, and the key the operation was for.
 *
 * <p>What a guard does when its state is unavailable (fail open, fall back to an in-memory state,
 * fail the call) is not decided here yet: every Redis-backed state throws this exception from the
 * call that failed and leaves the policy to its caller.
 */
public final class RedisStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed, with the redacted URI
   * @param cause the client's exception
   */
  public RedisStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
