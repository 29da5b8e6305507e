package dev.relent;

import dev.relent.time.Durations;
import java.time.Duration;
import java.util.Optional;

/**
 * Something the executor did or decided, for logs, metrics and tests: an attempt finished, a retry
 * was scheduled, a wait for the pacer began, the operation succeeded or gave up.
 *
 * <p>Events are created only when a listener is registered. Immutable and thread-safe.
 *
 * @param <R> the result type
 */
public final class RelentEvent<R> {
  /** What happened. */
  public enum Type {
    /** An attempt finished; {@link #verdict()} judged its outcome. */
    ATTEMPT,
    /** A retry was decided; {@link #waitNanos()} is the wait chosen before it. */
    RETRY,
    /** The pacer asked for a wait before the next start; {@link #waitNanos()} says how long. */
    PACED,
    /** The operation returned a result. */
    SUCCESS,
    /** The operation gave up; {@link #exception()} says why. */
    FAILURE
  }

  private final Type type;
  private final int attempt;
  private final long elapsedNanos;
  private final R result;
  private final Throwable failure;
  private final Verdict verdict;
  private final long waitNanos;
  private final ServerHint hint;
  private final RelentException exception;

  RelentEvent(
      Type type,
      int attempt,
      long elapsedNanos,
      R result,
      Throwable failure,
      Verdict verdict,
      long waitNanos,
      ServerHint hint,
      RelentException exception) {
    this.type = type;
    this.attempt = attempt;
    this.elapsedNanos = elapsedNanos;
    this.result = result;
    this.failure = failure;
    this.verdict = verdict;
    this.waitNanos = waitNanos;
    this.hint = hint;
    this.exception = exception;
  }

  /**
   * Returns what happened.
   *
   * @return the type
   */
  public Type type() {
    return type;
  }

  /**
   * Returns the attempt number the event belongs to: the attempt that finished, or the last one
   * made before a decision.
   *
   * @return 1 or more; 0 if the operation gave up before any attempt
   */
  public int attempt() {
    return attempt;
  }

  /**
   * Returns the time since the operation began.
   *
   * @return the elapsed time
   */
  public Duration elapsed() {
    return Duration.ofNanos(elapsedNanos);
  }

  /**
   * Returns the attempt's result, for {@link Type#ATTEMPT} and {@link Type#SUCCESS} events of
   * attempts that returned.
   *
   * @return the result, or null
   */
  public R result() {
    return result;
  }

  /**
   * Returns the attempt's failure, for {@link Type#ATTEMPT} events of attempts that threw.
   *
   * @return the failure, or null
   */
  public Throwable failure() {
    return failure;
  }

  /**
   * Returns the verdict on the last outcome and the rule that fired.
   *
   * @return the verdict, or null before any attempt
   */
  public Verdict verdict() {
    return verdict;
  }

  /**
   * Returns the wait chosen, for {@link Type#RETRY} and {@link Type#PACED} events.
   *
   * @return nanoseconds, or -1 when the event has no wait
   */
  public long waitNanos() {
    return waitNanos;
  }

  /**
   * Returns the server's hint read from the outcome, if any.
   *
   * @return the hint, or empty
   */
  public Optional<ServerHint> hint() {
    return Optional.ofNullable(hint);
  }

  /**
   * Returns why the operation gave up, for {@link Type#FAILURE} events.
   *
   * @return the exception, or null
   */
  public RelentException exception() {
    return exception;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder().append(type).append(" #").append(attempt);
    if (verdict != null) {
      s.append(' ').append(verdict);
    }
    if (waitNanos >= 0) {
      s.append(" wait ").append(Durations.format(waitNanos));
    }
    if (hint != null) {
      s.append(" hint ").append(hint.source());
    }
    if (exception != null) {
      s.append(' ').append(exception.reason());
    }
    return s.toString();
  }
}
