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
 * kind, attempt timers by kind times verdict times status class, retry waits by source. A slot is
 * filled at most once in effect: two threads racing to fill it register the same meter id, and
 * Micrometer returns the same meter to both. The arrays are {@link AtomicReferenceArray}s so that a
 * meter is published safely to other threads.
 */
final class EventMeters {
  private static final RelentException.Reason[] REASONS = RelentException.Reason.values();
  private static final Verdict.Kind[] VERDICTS = Verdict.Kind.values();

  /**
   * The values of the {@code status} tag: the outcome classes the HTTP adapters name, then {@code
   * none} (no class: an executor without HTTP, a failure that is not the network's) and {@code
   * other}, which any value not listed here becomes, so that the tag stays bounded.
   */
  static final String[] STATUS_CLASSES = {
    "1xx", "2xx", "3xx", "4xx", "429", "5xx", "io", RelentMetrics.NONE, "other"
  };

  private static final int OTHER_STATUS = STATUS_CLASSES.length - 1;

  /** The slot of the calls that succeeded; a failure's slot is 1 + its reason's ordinal. */
  private static final int SUCCESS = 0;

  /** The slots of {@link #waits}: a retry's wait the backoff chose, the server's, a pacer's. */
  private static final int BACKOFF_WAIT = 0;

  private static final int SERVER_WAIT = 1;

  private static final int PACER_WAIT = 2;

  private final MeterRegistry registry;
  private final Tags tags;

  /** (1 + reasons) × retried. */
  private final AtomicReferenceArray<Counter> calls =
      new AtomicReferenceArray<>((1 + REASONS.length) * 2);

  /** success, failure. */
  private final AtomicReferenceArray<Timer> callTimers = new AtomicReferenceArray<>(2);

  /** first, retry. */
  private final AtomicReferenceArray<Counter> attempts = new AtomicReferenceArray<>(2);

  /** kind × verdict × status class. */
  private final AtomicReferenceArray<Timer> attemptTimers =
      new AtomicReferenceArray<>(2 * VERDICTS.length * STATUS_CLASSES.length);

  /** {@link #BACKOFF_WAIT}, {@link #SERVER_WAIT}, {@link #PACER_WAIT}. */
  private final AtomicReferenceArray<Timer> waits = new AtomicReferenceArray<>(3);

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
          int slot = (retry * VERDICTS.length + v) * STATUS_CLASSES.length;
          meter(attemptTimers, slot + statusClass(event.outcomeClass()), newAttemptTimer)
              .record(event.attemptDurationNanos(), TimeUnit.NANOSECONDS);
          return false;
        }
      case RETRY:
        meter(waits, event.isServerWait() ? SERVER_WAIT : BACKOFF_WAIT, newWaitTimer)
            .record(event.waitNanos(), TimeUnit.NANOSECONDS);
        return false;
      case PACED:
        meter(waits, PACER_WAIT, newWaitTimer).record(event.waitNanos(), TimeUnit.NANOSECONDS);
        return false;
      case SUCCESS:
        endCall(SUCCESS, event);
        return true;
      case FAILURE:
        endCall(1 + event.giveUpReason().orElseThrow().ordinal(), event);
        return true;
      default:
        return false;
    }
  }

  private void endCall(int slot, RelentEvent<?> event) {
    meter(calls, slot * 2 + (event.isRetry() ? 1 : 0), newCallCounter).increment();
    meter(callTimers, slot == SUCCESS ? 0 : 1, newCallTimer)
        .record(event.elapsedNanos(), TimeUnit.NANOSECONDS);
  }

  /** The slot of an outcome class in {@link #STATUS_CLASSES}; {@code other} if not listed. */
  static int statusClass(String outcomeClass) {
    switch (outcomeClass) {
      case "1xx":
        return 0;
      case "2xx":
        return 1;
      case "3xx":
        return 2;
      case "4xx":
        return 3;
      case "429":
        return 4;
      case "5xx":
        return 5;
      case "io":
        return 6;
      case RelentMetrics.NONE:
        return 7;
      default:
        return OTHER_STATUS;
    }
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

  /** Slot {@code i} of {@link #attemptTimers}: (kind × verdict) × status class. */
  private Timer newAttemptTimer(int i) {
    int kindAndVerdict = i / STATUS_CLASSES.length;
    return Timer.builder("relent.attempt.duration")
        .description(
            "Time each attempt took, by kind, by the verdict on its outcome and by the outcome's"
                + " status class")
        .tags(tags)
        .tag("kind", kindAndVerdict / VERDICTS.length == 0 ? "first" : "retry")
        .tag("verdict", VERDICTS[kindAndVerdict % VERDICTS.length].name().toLowerCase(Locale.ROOT))
        .tag("status", STATUS_CLASSES[i % STATUS_CLASSES.length])
        .register(registry);
  }

  private Timer newWaitTimer(int which) {
    if (which == PACER_WAIT) {
      return Timer.builder("relent.pacer.wait")
          .description("Wait before a start that a pacer or a scope's pause asked for")
          .tags(tags)
          .register(registry);
    }
    return Timer.builder("relent.retry.wait")
        .description(
            "Wait chosen before each retry, by its source: the backoff, or the server's hint when it"
                + " asked for longer")
        .tags(tags)
        .tag("source", which == SERVER_WAIT ? "server" : "backoff")
        .register(registry);
  }
}
