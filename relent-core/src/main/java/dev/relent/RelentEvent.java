package dev.relent;

import dev.relent.time.Durations;
import java.time.Duration;
import java.util.Optional;

/**
 * Something the executor did or decided, for logs, metrics and tests: an attempt started or
 * finished, a retry was scheduled, a wait for the pacer began, the operation succeeded or gave up.
 *
 * <p>Every event of a call says how far into the call it happened ({@link #elapsed()}); events of
 * an attempt also say when that attempt began ({@link #attemptStart()}) and, once it finished, how
 * long it took ({@link #attemptDuration()}). Values an event does not have are empty, never null.
 *
 * <p>Events are created only when a listener is registered. Immutable and thread-safe.
 *
 * @param <R> the result type
 */
public final class RelentEvent<R> {
  /** What happened. */
  public enum Type {
    /** An attempt is about to be sent: every guard let it through. */
    ATTEMPT_STARTED,
    /** An attempt finished; {@link #verdict()} judged its outcome. */
    ATTEMPT,
    /** A retry was decided; {@link #waitTime()} is the wait chosen before it. */
    RETRY,
    /** The pacer asked for a wait before the next start; {@link #waitTime()} says how long. */
    PACED,
    /** The operation returned a result. */
    SUCCESS,
    /** The operation gave up; {@link #exception()} says why. */
    FAILURE
  }

  private final Type type;
  private final int attempt;
  private final long elapsedNanos;
  private final long attemptStartNanos;
  private final long attemptDurationNanos;
  private final R result;
  private final Throwable failure;
  private final Verdict verdict;
  private final long waitNanos;
  private final ServerHint hint;
  private final RelentException exception;
  private final String outcomeClass;
  private final boolean serverWait;

  RelentEvent(
      Type type,
      int attempt,
      long elapsedNanos,
      long attemptStartNanos,
      long attemptDurationNanos,
      R result,
      Throwable failure,
      Verdict verdict,
      long waitNanos,
      ServerHint hint,
      RelentException exception,
      String outcomeClass,
      boolean serverWait) {
    this.type = type;
    this.attempt = attempt;
    this.elapsedNanos = elapsedNanos;
    this.attemptStartNanos = attemptStartNanos;
    this.attemptDurationNanos = attemptDurationNanos;
    this.result = result;
    this.failure = failure;
    this.verdict = verdict;
    this.waitNanos = waitNanos;
    this.hint = hint;
    this.exception = exception;
    this.outcomeClass = outcomeClass;
    this.serverWait = serverWait;
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
   * Returns the attempt number the event belongs to: the attempt that started or finished, or the
   * last one made before a decision.
   *
   * @return 1 or more; 0 if the operation gave up before any attempt
   */
  public int attempt() {
    return attempt;
  }

  /**
   * Returns whether the attempt this event belongs to is a retry.
   *
   * @return true from the second attempt on
   */
  public boolean isRetry() {
    return attempt > 1;
  }

  /**
   * Returns the time from the operation's start to this event.
   *
   * @return the elapsed time
   */
  public Duration elapsed() {
    return Duration.ofNanos(elapsedNanos);
  }

  /**
   * Returns {@link #elapsed()} in nanoseconds, without allocating: for listeners on a hot path,
   * such as a meter registry's.
   *
   * @return the elapsed time, 0 or more
   */
  public long elapsedNanos() {
    return elapsedNanos;
  }

  /**
   * Returns when the attempt this event belongs to began, as time since the operation's start.
   *
   * @return the offset, or empty before any attempt
   */
  public Optional<Duration> attemptStart() {
    return attemptStartNanos < 0
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(attemptStartNanos));
  }

  /**
   * Returns how long the attempt took, for {@link Type#ATTEMPT} events.
   *
   * @return the attempt's duration, or empty for other events
   */
  public Optional<Duration> attemptDuration() {
    return attemptDurationNanos < 0
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(attemptDurationNanos));
  }

  /**
   * Returns {@link #attemptDuration()} in nanoseconds, without allocating.
   *
   * @return the attempt's duration (0 or more) for {@link Type#ATTEMPT} events, else -1
   */
  public long attemptDurationNanos() {
    return attemptDurationNanos;
  }

  /**
   * Returns the attempt's result, for {@link Type#ATTEMPT} and {@link Type#SUCCESS} events of
   * attempts that returned a non-null result.
   *
   * @return the result, or empty
   */
  public Optional<R> result() {
    return Optional.ofNullable(result);
  }

  /**
   * Returns the attempt's failure, for events after an attempt that threw.
   *
   * @return the failure, or empty
   */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  /**
   * Returns the verdict on the last outcome and the rule that fired.
   *
   * @return the verdict, or empty before any attempt finished
   */
  public Optional<Verdict> verdict() {
    return Optional.ofNullable(verdict);
  }

  /**
   * Returns the wait chosen, for {@link Type#RETRY} and {@link Type#PACED} events.
   *
   * @return the wait, or empty when the event has none
   */
  public Optional<Duration> waitTime() {
    return waitNanos < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(waitNanos));
  }

  /**
   * Returns {@link #waitTime()} in nanoseconds, without allocating.
   *
   * @return the wait (0 or more) for {@link Type#RETRY} and {@link Type#PACED} events, else -1
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
   * Returns why the operation gave up, for {@link Type#FAILURE} events that end in a {@link
   * RelentException} (an unchecked failure the policy does not retry is rethrown as it is and has
   * none).
   *
   * @return the exception, or empty
   */
  public Optional<RelentException> exception() {
    return Optional.ofNullable(exception);
  }

  /**
   * Returns why the call gave up, for {@link Type#FAILURE} events: the {@linkplain #exception()
   * exception's} reason, or {@link RelentException.Reason#NOT_RETRYABLE} for an unchecked failure
   * the policy does not retry, which is rethrown as it is. Meters, spans and log lines all spell
   * the reason as its {@link RelentException.Reason#slug() slug} from here, so that they agree.
   *
   * @return the reason, or empty for other events
   */
  public Optional<RelentException.Reason> giveUpReason() {
    if (type != Type.FAILURE) {
      return Optional.empty();
    }
    return Optional.of(
        exception == null ? RelentException.Reason.NOT_RETRYABLE : exception.reason());
  }

  /**
   * Returns the class of the last attempt's outcome, as the executor's {@link
   * OutcomeDescriber#outcomeClass} names it: through the HTTP adapters {@code 2xx}, {@code 4xx},
   * {@code 429}, {@code 5xx}, {@code io}, ...; {@value OutcomeDescriber#NO_CLASS} for events before
   * any attempt finished and for an executor whose describer names none.
   *
   * @return the class, never null
   */
  public String outcomeClass() {
    return outcomeClass;
  }

  /**
   * Returns whether the server chose the wait of a {@link Type#RETRY} event: its hint ({@code
   * Retry-After}, a rate-limit reset), with the spread, asked for longer than the backoff. False
   * when the backoff decided (also with a hint that asked for less), and for other events.
   *
   * @return true if the wait is the server's
   */
  public boolean isServerWait() {
    return serverWait;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder().append(type).append(" #").append(attempt);
    if (verdict != null) {
      s.append(' ').append(verdict);
    }
    if (attemptDurationNanos >= 0) {
      s.append(" took ").append(Durations.format(attemptDurationNanos));
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
