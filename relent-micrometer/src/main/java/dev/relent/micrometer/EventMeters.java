package dev.relent.micrometer;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The meters events feed, made on first use and cached by their tags in fixed arrays, so that an
 * event costs an array read and a counter increment or a timer record.
 *
 * <p>Every tag combination has one slot: calls by (outcome and reason) times retried, attempts by
 * kind, attempt timers by kind times verdict. A slot is filled at most once in effect: two threads
 * racing to fill it register the same meter id, and Micrometer returns the same meter to both. The
 * arrays are {@link AtomicReferenceArray}s so that a meter is published safely to other threads.
 */
final class EventMeters {
  private static final RelentException.Reason[] REASONS = RelentException.Reason.values();
  private static final Verdict.Kind[] VERDICTS = Verdict.Kind.values();

  /** The slot of the calls that succeeded; a failure's slot is 1 + its reason's ordinal. */
  private static final int SUCCESS = 0;

  private final MeterRegistry registry;
  private final Tags tags;

  /** (1 + reasons) × retried. */
  private final AtomicReferenceArray<Counter> calls =
      new AtomicReferenceArray<>((1 + REASONS.length) * 2);

  /** success, failure. */
  private final AtomicReferenceArray<Timer> callTimers = new AtomicReferenceArray<>(2);

  /** first, retry. */
  private final AtomicReferenceArray<Counter> attempts = new AtomicReferenceArray<>(2);

  /** kind × verdict. */
  private final AtomicReferenceArray<Timer> attemptTimers =
      new AtomicReferenceArray<>(2 * VERDICTS.length);

  private volatile Timer retryWait;
  private volatile Timer pacerWait;

  EventMeters(MeterRegistry registry, Tags tags) {
    this.registry = registry;
    this.tags = tags;
  }

  MeterRegistry registry() {
    return registry;
  }

  /**
   * Records one event.
   *
   * @return whether the event ended a call
   */
  boolean record(RelentEvent<?> event) {
    switch (event.type()) {
      case ATTEMPT_STARTED:
        attemptCounter(event.isRetry() ? 1 : 0).increment();
        return false;
      case ATTEMPT:
        {
          Verdict verdict = event.verdict().orElse(null);
          int v = verdict == null ? Verdict.Kind.ABORT.ordinal() : verdict.kind().ordinal();
          attemptTimer((event.isRetry() ? 1 : 0) * VERDICTS.length + v)
              .record(event.attemptDurationNanos(), TimeUnit.NANOSECONDS);
          return false;
        }
      case RETRY:
        retryWait().record(event.waitNanos(), TimeUnit.NANOSECONDS);
        return false;
      case PACED:
        pacerWait().record(event.waitNanos(), TimeUnit.NANOSECONDS);
        return false;
      case SUCCESS:
        endCall(SUCCESS, event);
        return true;
      case FAILURE:
        {
          RelentException e = event.exception().orElse(null);
          // An unchecked failure the policy does not retry is rethrown as it is: not retryable.
          RelentException.Reason reason =
              e == null ? RelentException.Reason.NOT_RETRYABLE : e.reason();
          endCall(1 + reason.ordinal(), event);
          return true;
        }
      default:
        return false;
    }
  }

  private void endCall(int slot, RelentEvent<?> event) {
    int i = slot * 2 + (event.attempt() > 1 ? 1 : 0);
    Counter c = calls.get(i);
    if (c == null) {
      c = newCallCounter(slot, event.attempt() > 1);
      calls.set(i, c);
    }
    c.increment();
    int outcome = slot == SUCCESS ? 0 : 1;
    Timer t = callTimers.get(outcome);
    if (t == null) {
      t =
          Timer.builder("relent.call.duration")
              .description(
                  "Time from an operation's start to its end, its retries and waits included")
              .tags(tags)
              .tag("outcome", outcome == 0 ? "success" : "failure")
              .register(registry);
      callTimers.set(outcome, t);
    }
    t.record(event.elapsedNanos(), TimeUnit.NANOSECONDS);
  }

  private Counter newCallCounter(int slot, boolean retried) {
    return Counter.builder("relent.calls")
        .description("Operations that ended, by outcome and give-up reason")
        .baseUnit("calls")
        .tags(tags)
        .tag("outcome", slot == SUCCESS ? "success" : "failure")
        .tag("reason", slot == SUCCESS ? RelentMetrics.NONE : REASONS[slot - 1].slug())
        .tag("retried", Boolean.toString(retried))
        .register(registry);
  }

  private Counter attemptCounter(int kind) {
    Counter c = attempts.get(kind);
    if (c == null) {
      c =
          Counter.builder("relent.attempts")
              .description("Attempts started: first attempts and retries")
              .baseUnit("attempts")
              .tags(tags)
              .tag("kind", kind == 0 ? "first" : "retry")
              .register(registry);
      attempts.set(kind, c);
    }
    return c;
  }

  private Timer attemptTimer(int i) {
    Timer t = attemptTimers.get(i);
    if (t == null) {
      t =
          Timer.builder("relent.attempt.duration")
              .description("Time each attempt took, by kind and by the verdict on its outcome")
              .tags(tags)
              .tag("kind", i / VERDICTS.length == 0 ? "first" : "retry")
              .tag("verdict", VERDICTS[i % VERDICTS.length].name().toLowerCase(Locale.ROOT))
              .register(registry);
      attemptTimers.set(i, t);
    }
    return t;
  }

  private Timer retryWait() {
    Timer t = retryWait;
    if (t == null) {
      t =
          Timer.builder("relent.retry.wait")
              .description("Wait chosen before each retry: backoff, or the server's hint")
              .tags(tags)
              .register(registry);
      retryWait = t;
    }
    return t;
  }

  private Timer pacerWait() {
    Timer t = pacerWait;
    if (t == null) {
      t =
          Timer.builder("relent.pacer.wait")
              .description("Wait before a start that a pacer or a scope's pause asked for")
              .tags(tags)
              .register(registry);
      pacerWait = t;
    }
    return t;
  }
}
