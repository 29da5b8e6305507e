package dev.relent.redis;

/**
 * Redis did not answer in time, refused a command, or could not be reached. The message names the
 * Redis URI without any user name or password, and the key the operation was for.
 *
 * <p>The guards' states throw it only when their {@link RedisFallback} is {@link
 * RedisFallback#none()}, or for an error that is not one of availability (a script's error); the
 * idempotency store throws it whenever Redis is away.
 */
public final class RedisStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final boolean unavailable;

  /**
   * Creates the exception for a Redis that is away (a timeout, a lost connection).
   *
   * @param message what failed, with the redacted URI
   * @param cause the client's exception
   */
  public RedisStoreException(String message, Throwable cause) {
    this(message, cause, true);
  }

  RedisStoreException(String message, Throwable cause, boolean unavailable) {
    super(message, cause);
    this.unavailable = unavailable;
  }

  /**
   * Returns whether Redis was away (no answer in time, no connection, loading, busy or read-only)
   * rather than answering with an error: the failures a {@link RedisFallback} covers.
   *
   * @return whether this is a failure of availability
   */
  public boolean isUnavailable() {
    return unavailable;
  }
}
