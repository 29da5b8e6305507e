package dev.relent.okhttp;

import dev.relent.RelentException;
import java.io.IOException;
import java.util.Objects;

/**
 * The executor gave up (retries used, deadline, server wait too long, quota, open breaker, spent
 * budget, pacer wait past the deadline): the {@link RelentException} it threw, as the {@code
 * IOException} OkHttp interceptors may throw. OkHttp hands an interceptor's unchecked exception to
 * an asynchronous call's thread instead of its {@code Callback}, so the interceptor reports every
 * give-up this way. The message is the executor's; {@link #relentException()} has the details
 * (reason, attempts, last outcome, server wait, retry time).
 *
 * <p>Immutable once thrown.
 */
public class RelentIOException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * Wraps the executor's exception.
   *
   * @param cause the give-up
   * @throws NullPointerException if {@code cause} is null
   */
  public RelentIOException(RelentException cause) {
    super(Objects.requireNonNull(cause, "cause cannot be null").getMessage(), cause);
  }

  /**
   * Returns the executor's exception: {@code RetriesExhaustedException}, {@code
   * ServerWaitTooLongException}, {@code QuotaExhaustedException}, … with its facts as fields.
   *
   * @return the cause
   */
  public RelentException relentException() {
    return (RelentException) getCause();
  }
}
