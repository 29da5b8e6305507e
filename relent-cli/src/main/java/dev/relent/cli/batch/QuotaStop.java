package dev.relent.cli.batch;

import dev.relent.cli.common.Format;
import dev.relent.guard.Scope;
import dev.relent.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * A scope whose quota an answer said is exhausted, in this run or an earlier one of the journal:
 * its requests are not sent before the reset, and the other scopes go on. Thread-safe.
 */
final class QuotaStop {
  private final Scope scope;
  private final Instant until;
  private final String cause;
  private final int earlierRun;
  private final LongAdder notSent = new LongAdder();

  /**
   * @param scope the scope
   * @param until when the quota resets, or null if the server did not say; kept to the whole second
   *     ({@link Format#wholeSecond})
   * @param cause what said so, e.g. {@code HTTP 429 with Retry-After: 86400}; never a secret
   * @param earlierRun the run of the journal that was told, or 0 for this one
   */
  QuotaStop(Scope scope, Instant until, String cause, int earlierRun) {
    this.scope = scope;
    // One reset time per quota, to the whole second, in every text and record that names it.
    this.until = until == null ? null : Format.wholeSecond(until);
    this.cause = cause;
    this.earlierRun = earlierRun;
  }

  Scope scope() {
    return scope;
  }

  Optional<Instant> until() {
    return Optional.ofNullable(until);
  }

  String cause() {
    return cause;
  }

  /** The run of the journal that was told, or 0 when this run was. */
  int earlierRun() {
    return earlierRun;
  }

  /** Counts a request of this scope recorded as not sent. */
  void countNotSent() {
    notSent.increment();
  }

  /** How many of the scope's requests this run did not send because of it. */
  long notSent() {
    return notSent.sum();
  }

  /** {@code it resets at 2026-…Z (in 23 h 59 min)}, or that the server did not say. */
  String reset(Clock clock) {
    return until == null
        ? "the server did not say when it resets"
        : "it resets at "
            + until
            + " (in "
            + Format.span(Duration.ofMillis(Math.max(0L, until.toEpochMilli() - clock.millis())))
            + ")";
  }

  /**
   * {@code the quota of endpoint GET h/a/{id} is exhausted (HTTP 429 with Retry-After: 86400); it
   * resets at 2026-…Z (in 24 h 0 min)}.
   */
  String describe(Clock clock) {
    return "the quota of "
        + scope
        + " is exhausted ("
        + cause
        + (earlierRun > 0 ? "; run " + earlierRun + " of the journal was told" : "")
        + "); "
        + reset(clock);
  }
}
