package dev.relent;

import dev.relent.internal.exec.GiveUp;

/**
 * The server asked for a wait longer than allowed (the maximum server wait, or what is left of the
 * deadline). The wait is never shortened and never slept: {@link #serverWait()}, {@link
 * #allowedWait()} and {@link #retryAt()} tell the caller when to reschedule.
 *
 * <p>Immutable once thrown.
 */
public final class ServerWaitTooLongException extends RelentException {
  private static final long serialVersionUID = 1L;

  ServerWaitTooLongException(GiveUp details) {
    super(details);
  }
}
