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
import java.util.function.IntFunction;

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

  /** The slots of {@link #waits}. */
  private static final int RETRY_WAIT = 0;

  private static final int PACER_WAIT = 1;

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

  /** {@link #RETRY_WAIT}, {@link #PACER_WAIT}. */
  private final AtomicReferenceArray<Timer> waits = new AtomicReferenceArray<>(2);

  // The meters' makers, bound once so that an event allocates nothing.
  private final IntFunction<Counter> newCallCounter = this::newCallCounter;
  private final IntFunction<Timer> newCallTimer = this::newCallTimer;
  private final IntFunction<Counter> newAttemptCounter = this::newAttemptCounter;
  private final IntFunction<Timer> newAttemptTimer = this::newAttemptTimer;
  private final IntFunction<Timer> newWaitTimer = this::newWaitTimer;

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
    int retry = event.isRetry() ? 1 : 0;
    switch (event.type()) {
      case ATTEMPT_STARTED:
        meter(attempts, retry, newAttemptCounter).increment();
        return false;
      case ATTEMPT:
        {
          Verdict verdict = event.verdict().orElse(null);
          int v = verdict == null ? Verdict.Kind.ABORT.ordinal() : verdict.kind().ordinal();
          meter(attemptTimers, retry * VERDICTS.length + v, newAttemptTimer)
              .record(event.attemptDurationNanos(), TimeUnit.NANOSECONDS);
          return false;
        }
      case RETRY:
        meter(waits, RETRY_WAIT, newWaitTimer).record(event.waitNanos(), TimeUnit.NANOSECONDS);
        return false;
      case PACED:
        meter(waits, PACER_WAIT, newWaitTimer).record(event.waitNanos(), TimeUnit.NANOSECONDS);
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
    meter(calls, slot * 2 + (event.isRetry() ? 1 : 0), newCallCounter).increment();
    meter(callTimers, slot == SUCCESS ? 0 : 1, newCallTimer)
        .record(event.elapsedNanos(), TimeUnit.NANOSECONDS);
  }

  /** The meter in slot {@code i}, made by {@code make} on first use. */
  private static <M> M meter(AtomicReferenceArray<M> slots, int i, IntFunction<M> make) {
    M m = slots.get(i);
    if (m == null) {
      m = make.apply(i);
      slots.set(i, m);
    }
    return m;
  }

  /** Slot {@code i} of {@link #calls}: (1 + reason) × 2 + retried. */
  private Counter newCallCounter(int i) {
    int slot = i / 2;
    return Counter.builder("relent.calls")
        .description("Operations that ended, by outcome and give-up reason")
        .baseUnit("calls")
        .tags(tags)
        .tag("outcome", slot == SUCCESS ? "success" : "failure")
        .tag("reason", slot == SUCCESS ? RelentMetrics.NONE : REASONS[slot - 1].slug())
        .tag("retried", Boolean.toString(i % 2 == 1))
        .register(registry);
  }

  private Timer newCallTimer(int outcome) {
    return Timer.builder("relent.call.duration")
        .description("Time from an operation's start to its end, its retries and waits included")
        .tags(tags)
        .tag("outcome", outcome == 0 ? "success" : "failure")
        .register(registry);
  }

  private Counter newAttemptCounter(int kind) {
    return Counter.builder("relent.attempts")
        .description("Attempts started: first attempts and retries")
        .baseUnit("attempts")
        .tags(tags)
        .tag("kind", kind == 0 ? "first" : "retry")
        .register(registry);
  }

  /** Slot {@code i} of {@link #attemptTimers}: kind × verdict. */
  private Timer newAttemptTimer(int i) {
    return Timer.builder("relent.attempt.duration")
        .description("Time each attempt took, by kind and by the verdict on its outcome")
        .tags(tags)
        .tag("kind", i / VERDICTS.length == 0 ? "first" : "retry")
        .tag("verdict", VERDICTS[i % VERDICTS.length].name().toLowerCase(Locale.ROOT))
        .register(registry);
  }

  private Timer newWaitTimer(int which) {
    boolean retry = which == RETRY_WAIT;
    return Timer.builder(retry ? "relent.retry.wait" : "relent.pacer.wait")
        .description(
            retry
                ? "Wait chosen before each retry: backoff, or the server's hint"
                : "Wait before a start that a pacer or a scope's pause asked for")
        .tags(tags)
        .register(registry);
  }
}
