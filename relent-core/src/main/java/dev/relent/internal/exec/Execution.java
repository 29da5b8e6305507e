package dev.relent.internal.exec;

import dev.relent.AttemptContext;
import dev.relent.CheckedSupplier;
import dev.relent.ContextualSupplier;
import dev.relent.OutcomeDescriber;
import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RelentListener;
import dev.relent.ServerHint;
import dev.relent.Verdict;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.internal.Nanos;
import dev.relent.internal.chain.GuardChain;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The state of one operation and every decision made about it. The synchronous loop lives here;
 * {@link AsyncExecution} drives the same decisions from callbacks.
 *
 * <p>Design: each phase is a method that returns a primitive decision, so that the success path
 * allocates nothing: {@link #admit} (deadline, breaker), {@link #pace} (pacer), {@link #begin}
 * (counts the attempt, fixes its timeout), {@link #onOutcome} (records the outcome in every guard,
 * classifies it, and plans the retry). A refusal is stored in {@link #failure} as the exception to
 * throw, built only then, by one of {@link GiveUp}'s factories.
 *
 * <p>What it decides by: the executor's guards as one {@link GuardChain}, in which a guard the
 * executor lacks is a no-op, and the call's scopes as {@link CallScopes} ({@link CallScopes#NONE}
 * for a call without), so that no guard is checked for null; the policy's limits, the judges of an
 * outcome and the time sources as {@link ExecutionSettings}. Where the call is counted and heard is
 * the executor's ({@link RelentExecutorImpl#emit}).
 *
 * <p>Circuit breakers count calls, not attempts: every attempt asks for a permit (an open breaker
 * stops a call's retries), but only the attempt that ends the call reports an outcome, the call's;
 * an attempt that is retried gives its permit back. So a call that succeeds after a 503 is one
 * success, and one that gives up after four 503s is one failure. An answer by which the server
 * paces the caller (a rate-limit hint: a 429, rate-limit headers with nothing left) is neither. The
 * outcome of an attempt is held in {@link #unsettled} until the executor knows whether the call
 * ends ({@link #settleBreakers}), which is always before the event that says so.
 *
 * <p>Not thread-safe: a synchronous execution is confined to its caller's thread; an asynchronous
 * one moves between threads only through future completions and scheduled tasks, which order the
 * accesses (happens-before). {@link AsyncExecution} locks around the fields a cancellation touches.
 */
class Execution<R> implements AttemptContext {
  /** {@link #onOutcome} result: return the result. */
  static final long DONE = -1;

  /**
   * Marks a slot taken with {@link ConcurrencyLimit#tryAcquireSlot()}, given back with {@link
   * ConcurrencyLimit#releaseSlot()}; never released itself.
   */
  static final ConcurrencyLimit.Permit TAKEN_AT_ONCE =
      () -> {
        throw new AssertionError("a slot taken at once is given back with releaseSlot()");
      };

  /** {@link #onOutcome} and {@link #pace} result: throw {@link #failure}. */
  static final long FAILED = -2;

  /** {@link #unsettled}: no attempt's outcome waits to be reported to the breakers. */
  static final int CALL_UNSETTLED_NONE = 0;

  /** A call's outcome for the breakers: it succeeded. */
  static final int CALL_SUCCEEDED = 1;

  /** A call's outcome for the breakers: it ended on a failure of the downstream. */
  static final int CALL_FAILED = 2;

  /** A call's outcome for the breakers: neither (a 4xx, a 429, a retried attempt): permit freed. */
  static final int CALL_NEUTRAL = 3;

  /**
   * The executor, where the call is counted and its events go; {@link #guards} and {@link
   * #settings} are the executor's, kept here so that a decision reads them in one step. Not final:
   * a synchronous execution, kept per thread, drops all three between calls ({@link #clear()}),
   * since a thread-local value that reaches its own thread-local keeps the executor alive as long
   * as the thread lives.
   */
  RelentExecutorImpl<R> executor;

  /** The executor's guards; an absent guard is a no-op, never null. */
  GuardChain guards;

  ExecutionSettings<R> settings;

  long startNanos;
  long deadlineAt;

  /** A synchronous execution is running on this object (see {@link #reuse}). */
  boolean busy;

  int attempts;
  long attemptTimeoutNanos;

  /** Whether the last {@link #pace} reserved nothing: a pacer deferred the booking. */
  boolean deferred;

  long prevDelayNanos;
  boolean permitHeld;
  // The concurrency slot held: TAKEN_AT_ONCE (taken with the allocation-free pair), the permit got
  // after a wait, or null. One field in place of the old flag, so that an asynchronous execution,
  // allocated per call, gains none.
  ConcurrencyLimit.Permit slot;

  R lastResult;
  Throwable lastFailure;
  Verdict lastVerdict;
  RuntimeException failure;

  /**
   * What the last attempt's outcome would tell the breakers if it ends the call ({@link
   * #CALL_SUCCEEDED}, {@link #CALL_FAILED}, {@link #CALL_NEUTRAL}), or {@link #CALL_UNSETTLED_NONE}
   * once reported. The attempt is the current one, begun at {@link #attemptStartNanos}: its outcome
   * is always settled before the next attempt begins (no field of its own for the time, so that an
   * asynchronous execution stays as small as it was).
   */
  int unsettled;

  /** Whether the wait {@link #planRetry} chose last is the server's, not the backoff's. */
  boolean serverWait;

  /** The listener of this call alone, or null. */
  RelentListener<R> callListener;

  /** The ticker reading when the current attempt began. */
  long attemptStartNanos;

  /**
   * The request's scopes, broadest first, and their guards; {@link CallScopes#NONE} when the call
   * names none, never null.
   */
  CallScopes scoped = CallScopes.NONE;

  Execution(RelentExecutorImpl<R> executor, long now) {
    this.executor = executor;
    this.guards = executor.guards;
    this.settings = executor.settings;
    this.startNanos = now;
    this.deadlineAt = Nanos.saturatedAdd(now, settings.deadlineNanos);
  }

  /**
   * Makes this object ready for a new synchronous operation starting at {@code now}. The executor
   * keeps one execution per thread and reuses it, so that a synchronous call that succeeds
   * allocates nothing; {@link #busy} guards against a nested call on the same thread, which gets a
   * fresh object instead.
   */
  final void reuse(
      RelentExecutorImpl<R> executor, long now, RelentListener<R> listener, List<Scope> scopes) {
    this.executor = executor;
    guards = executor.guards;
    settings = executor.settings;
    scoped = scopes == null ? CallScopes.NONE : new CallScopes(guards, settings, scopes, now);
    startNanos = now;
    callListener = listener;
    deadlineAt = Nanos.saturatedAdd(now, settings.deadlineNanos);
    attempts = 0;
    unsettled = CALL_UNSETTLED_NONE;
    attemptTimeoutNanos = 0;
    deferred = false;
    prevDelayNanos = 0;
    permitHeld = false;
    slot = null;
    busy = true;
  }

  /** Drops every reference to the caller's objects once the operation is over. */
  final void clear() {
    lastResult = null;
    lastFailure = null;
    lastVerdict = null;
    failure = null;
    callListener = null;
    scoped = CallScopes.NONE;
    executor = null;
    guards = null;
    settings = null;
    busy = false;
  }

  // ---------------------------------------------------------------- synchronous loop

  R run(CheckedSupplier<? extends R> plain, ContextualSupplier<? extends R> contextual) {
    long now = startNanos;
    while (true) {
      if (!admit(now)) {
        throw failure;
      }
      try {
        if (guards.limit().tryAcquireSlot()) {
          slot = TAKEN_AT_ONCE;
        } else {
          Duration wait = Duration.ofNanos(Math.max(0L, deadlineAt - now));
          slot = guards.limit().acquire(wait).orElse(null);
          if (slot == null) {
            throw giveUp(concurrencyRefusal(settings.ticker.read()));
          }
          now = settings.ticker.read();
        }
        if (scoped.hasLimits()) {
          if (!scoped.acquireSlots(now, Math.max(0L, deadlineAt - now))) {
            throw giveUp(scopeSlotRefusal(settings.ticker.read()));
          }
          now = settings.ticker.read();
        }
        long wait = pace(now);
        boolean held = false;
        while (wait > 0) {
          settings.sleeper.sleep(wait);
          now = settings.ticker.read();
          // A pause of the request's scopes that began during the wait is waited out too, and
          // the start reserved again after it, so that the callers it held start spread out at
          // the pacer's rate, not together; an adaptive pacer holds a start reserved before its
          // own pause the same way.
          long paused = pauseLeft(now);
          if (paused != 0) {
            wait = paused;
            held = true;
          } else {
            wait = held || deferred || pausedSinceReserved(now) ? pace(now) : paceRest(now);
            held = false;
          }
        }
        if (wait == FAILED) {
          throw failure;
        }
      } catch (InterruptedException e) {
        releaseGuards();
        Thread.currentThread().interrupt();
        throw giveUp(interrupted(settings.ticker.read()));
      } catch (RuntimeException e) {
        releaseGuards();
        throw e;
      }

      begin(now);
      R result = null;
      Throwable thrown = null;
      try {
        result = contextual != null ? contextual.get(this) : plain.get();
      } catch (Exception e) {
        thrown = e;
      } catch (Error e) {
        releaseGuards();
        throw e;
      }
      long next;
      try {
        next = onOutcome(result, thrown, now);
      } finally {
        // Only now: the next caller waiting for the slot sees the pause this answer brought.
        releaseSlot();
      }
      if (next == DONE) {
        return result;
      }
      if (next == FAILED) {
        throw failure;
      }
      try {
        settings.sleeper.sleep(next);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw giveUp(interrupted(settings.ticker.read()));
      }
      now = settings.ticker.read();
    }
  }

  // ---------------------------------------------------------------- shared decisions

  /** Deadline and breaker before an attempt; false means {@link #failure} is set. */
  final boolean admit(long now) {
    if (now - deadlineAt >= 0) {
      failure = giveUp(GiveUp.noTimeLeft(facts(now), settings.deadlineNanos));
      return false;
    }
    long refusal = guards.breaker().tryAcquirePermission(now);
    if (refusal != 0) {
      failure = giveUp(GiveUp.circuitOpen(facts(now), refusal, wallClockIn(refusal)));
      return false;
    }
    permitHeld = true;
    if (!guards.throttle().tryAcquire(now, settings.random)) {
      GiveUp g = GiveUp.throttled(facts(now), guards.throttle().describe(now));
      permitHeld = false;
      guards.breaker().releasePermission();
      failure = giveUp(g);
      return false;
    }
    refusal = scoped.admit(now);
    if (refusal != 0) {
      releaseGuards();
      failure =
          giveUp(
              GiveUp.scopeCircuitOpen(
                  facts(now), scoped.refusingBreaker(), refusal, wallClockIn(refusal)));
      return false;
    }
    return true;
  }

  /**
   * Reserves a start with the pacer: the wait before it, or {@link #FAILED}. When a pacer would
   * rather book this start later ({@link Pacer#deferNanos}), nothing is reserved yet: the wait is
   * until then, {@link #deferred} is set, and the caller asks again after it.
   */
  final long pace(long now) {
    long defer = Math.max(guards.pacer().deferNanos(now), scoped.deferNanos(now));
    deferred = defer > 0 && defer < deadlineAt - now;
    if (deferred) {
      return defer;
    }
    if (scoped.named()) {
      return paced(now, scoped.reserve(now, deadlineAt - now - 1));
    }
    long left = deadlineAt - now;
    long wait = guards.pacer().tryAcquire(now, left - 1);
    if (wait < 0) {
      GiveUp g = GiveUp.pacerPastDeadline(facts(now), -wait, left);
      releaseGuards();
      failure = giveUp(g);
      return FAILED;
    }
    if (wait > 0 && observed()) {
      emit(event(RelentEvent.Type.PACED, wait, null, null));
    }
    return wait;
  }

  /**
   * After a wait that {@link #pace} asked for: reserves the starts of the scopes' pacers not yet
   * reserved (each is asked only once the waits before it are over, see {@link CallScopes}); the
   * wait before the next step, 0 to start now, or {@link #FAILED}.
   */
  final long paceRest(long now) {
    if (!scoped.pacing()) {
      return 0;
    }
    return paced(now, scoped.reserveRest(now, deadlineAt - now - 1));
  }

  private long paced(long now, long wait) {
    if (wait < 0) {
      return scopeRefusal(now, -wait);
    }
    if (wait > 0 && observed()) {
      emit(event(RelentEvent.Type.PACED, wait, null, null));
    }
    return wait;
  }

  /**
   * After a pacer wait: how much longer a pause of the request's scopes that began meanwhile lasts,
   * so that no start goes while its scope is paused (the start reserved is used late, never early);
   * 0 if none, {@link #FAILED} if it outlasts the deadline.
   */
  final long pauseLeft(long now) {
    long left = scoped.pauseLeft(now);
    if (left <= 0) {
      return 0;
    }
    return left > deadlineAt - now - 1 ? scopeRefusal(now, left) : left;
  }

  private long scopeRefusal(long now, long neededNanos) {
    GiveUp g = scoped.refusal(facts(now), deadlineAt - now, wallClockIn(neededNanos));
    releaseGuards();
    failure = giveUp(g);
    return FAILED;
  }

  /**
   * Whether a start this execution waited for now falls inside a pause that came after it was
   * reserved; an adaptive pacer holds such starts too ({@link Pacer#holdsReservedStarts()}), so
   * that callers released by a pause start spread out at the learned rate, not together.
   */
  final boolean pausedSinceReserved(long now) {
    if (scoped.named()) {
      return scoped.pausedSinceReserved(now);
    }
    Pacer pacer = guards.pacer();
    return pacer.holdsReservedStarts() && pacer.pausedUntilNanos() > now;
  }

  /** Counts the attempt about to start and fixes its time limit. */
  final void begin(long now) {
    attempts++;
    if (attempts == 1) {
      executor.countFirstAttempt();
      guards.budget().recordFirstAttempt(now);
      scoped.recordFirstAttempt(now);
    } else {
      executor.countRetry();
    }
    attemptTimeoutNanos = Math.max(1L, Math.min(settings.attemptTimeoutNanos, deadlineAt - now));
    attemptStartNanos = now;
    if (observed()) {
      emit(event(RelentEvent.Type.ATTEMPT_STARTED, -1, null, null));
    }
  }

  /**
   * Records an outcome in every guard, classifies it and decides: {@link #DONE}, {@link #FAILED} or
   * the wait in nanoseconds before the next attempt.
   *
   * @param attemptStart the ticker reading taken when the attempt began, used for the guards'
   *     bookkeeping so that a success costs no further clock read
   */
  final long onOutcome(R result, Throwable thrown, long attemptStart) {
    Verdict verdict = settings.classifier.classify(result, thrown);
    ServerHint hint = settings.hints.extract(result, thrown);
    lastResult = result;
    lastFailure = thrown;
    lastVerdict = verdict;
    if (verdict.kind() == Verdict.Kind.SUCCESS) {
      unsettled = CALL_SUCCEEDED;
    } else if (verdict.isDownstreamFailure() && (hint == null || !hint.pausesAll())) {
      unsettled = CALL_FAILED;
    } else {
      // The caller's problem (a 4xx), or the server pacing the caller (a 429): not its failure.
      unsettled = CALL_NEUTRAL;
    }
    // The scopes' pacers read the answer first: one that holds its own starts for it (a window
    // with none left) needs no pause.
    scoped.feed(result, thrown, verdict, hint, attemptStart);
    if (hint != null && hint.pausesAll()) {
      // The scope the answer belongs to pauses, not every call of the executor; the server's wait
      // counts from its answer, which came after the attempt began.
      scoped.pause(result, thrown, verdict, hint, attemptStart);
    }
    feedPacer(verdict, hint, attemptStart);
    if (!verdict.isDownstreamFailure()) {
      guards.throttle().onAccepted(attemptStart);
    }
    if (observed()) {
      emit(event(RelentEvent.Type.ATTEMPT, -1, hint, null));
    }
    switch (verdict.kind()) {
      case SUCCESS:
        settleBreakers(true);
        executor.countSuccess();
        if (observed()) {
          emit(event(RelentEvent.Type.SUCCESS, -1, hint, null));
        }
        return DONE;
      case ABORT:
        return abort(thrown);
      default:
        return planRetry(hint);
    }
  }

  /**
   * Tells the pacer what the attempt said: the quota, the pause for everyone, and whether it was
   * throttled (a rate-limit hint on an outcome to retry) or accepted (any answer that is not
   * retried). A fixed-rate pacer ignores all but the pause; nothing here allocates.
   */
  private void feedPacer(Verdict verdict, ServerHint hint, long attemptStart) {
    Pacer pacer = guards.pacer();
    if (hint != null) {
      if (settings.reportsQuota(hint)) {
        settings.observeQuota(pacer, attemptStart, hint);
      }
      if (hint.pausesAll()
          && !scoped.named()
          && (verdict.kind() == Verdict.Kind.RETRY
              || hint.isQuotaExhausted()
              || !pacer.holdsEmptyWindows())) {
        // With scopes the answer pauses its scope instead (see onOutcome); the rate still learns.
        // A success with none left pauses nothing when the pacer holds to the window itself. The
        // server's wait counts from its answer.
        pacer.pauseUntil(Nanos.saturatedAdd(settings.ticker.read(), hint.waitNanos()));
      }
    }
    if (verdict.kind() != Verdict.Kind.RETRY) {
      pacer.onAccepted(attemptStart);
    } else if (hint != null && hint.pausesAll() && !hint.isQuotaExhausted()) {
      pacer.onThrottled(attemptStart, settings.ticker.read());
    }
  }

  /**
   * Reports the last attempt's outcome to the breakers whose permits it holds: as the call's, when
   * the call ends with it; as nothing (the permit freed) when the call goes on to a retry. Does
   * nothing when no outcome waits, so that a refusal between attempts leaves the breakers alone.
   */
  private void settleBreakers(boolean callEnds) {
    int outcome = unsettled;
    if (outcome == CALL_UNSETTLED_NONE) {
      return;
    }
    unsettled = CALL_UNSETTLED_NONE;
    if (!callEnds) {
      outcome = CALL_NEUTRAL;
    }
    if (permitHeld) {
      permitHeld = false;
      if (outcome == CALL_SUCCEEDED) {
        guards.breaker().onSuccess(attemptStartNanos);
      } else if (outcome == CALL_FAILED) {
        guards.breaker().onFailure(attemptStartNanos);
      } else {
        guards.breaker().releasePermission();
      }
    }
    scoped.record(outcome, attemptStartNanos);
  }

  private long abort(Throwable thrown) {
    settleBreakers(true);
    if (thrown == null && lastVerdict.rejectsResult()) {
      // A result that is not the answer: the call fails here, so that every observer hears the
      // outcome the caller gets; the exception carries the result.
      failure = giveUp(GiveUp.notRetryable(facts(settings.ticker.read())));
      return FAILED;
    }
    if (thrown == null) {
      // A result the policy stops at is handed back to the caller as it is.
      executor.countSuccess();
      if (observed()) {
        emit(event(RelentEvent.Type.SUCCESS, -1, null, null));
      }
      return DONE;
    }
    if (thrown instanceof RuntimeException) {
      executor.countPlainFailure();
      failure = (RuntimeException) thrown;
      if (observed()) {
        emit(event(RelentEvent.Type.FAILURE, -1, null, null));
      }
      return FAILED;
    }
    GiveUp g =
        thrown instanceof InterruptedException
            ? GiveUp.interruptedAttempt(facts(settings.ticker.read()))
            : GiveUp.notRetryable(facts(settings.ticker.read()));
    if (thrown instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    failure = giveUp(g);
    return FAILED;
  }

  /**
   * Step 3 of a call, for a retryable outcome (docs/core.md): the wait is {@code max(backoff,
   * server wait + spread)}. Before any waiting the call fails now if the retries are used up, the
   * quota is exhausted, the server asked for more than the longest server wait allowed or than the
   * deadline leaves, the wait would pass the deadline, or a retry budget is spent. Otherwise the
   * wait before the next attempt, the breakers' permits freed.
   */
  private long planRetry(ServerHint hint) {
    long now = settings.ticker.read();
    if (attempts > settings.maxRetries) {
      return fail(GiveUp.retriesExhausted(facts(now), settings.maxRetries));
    }
    if (hint != null && hint.isQuotaExhausted()) {
      return fail(GiveUp.quotaExhausted(facts(now), hint, resetAt(hint)));
    }
    long left = deadlineAt - now;
    long backoff = nextBackoff();
    if (hint != null && tooLong(hint.waitNanos(), left)) {
      return fail(
          GiveUp.serverWaitTooLong(
              facts(now), hint, settings.maxServerWaitNanos, left, wallClockIn(hint.waitNanos())));
    }
    long wait = hint == null ? backoff : Math.max(backoff, withSpread(hint.waitNanos(), left));
    if (wait >= left) {
      return fail(GiveUp.waitPastDeadline(facts(now), wait, settings.deadlineNanos, left));
    }
    if (!guards.budget().tryAcquireRetry(now)) {
      return fail(GiveUp.budgetSpent(facts(now), guards.budget(), now));
    }
    RetryBudget spent = scoped.tryAcquireRetry(now);
    if (spent != null) {
      return fail(GiveUp.scopeBudgetSpent(facts(now), scoped.scopeOf(spent), spent, now));
    }
    serverWait = wait > backoff;
    prevDelayNanos = backoff;
    settleBreakers(false);
    if (observed()) {
      emit(event(RelentEvent.Type.RETRY, wait, hint, null));
    }
    return wait;
  }

  /** The policy's backoff before the retry about to be planned; draws one random number. */
  private long nextBackoff() {
    return settings.backoff.delayNanos(attempts, prevDelayNanos, settings.random.nextDouble());
  }

  /** Whether a server wait is more than allowed, or does not fit in the {@code left} deadline. */
  private boolean tooLong(long askedNanos, long left) {
    return askedNanos > settings.maxServerWaitNanos || askedNanos >= left;
  }

  /**
   * A server's wait with the spread added: the server's wait is a minimum; the spread keeps clients
   * released together apart, but never pushes a wait that fits past the deadline. Draws one random
   * number.
   */
  private long withSpread(long askedNanos, long left) {
    long spread = (long) (askedNanos * settings.serverWaitSpread * settings.random.nextDouble());
    return Math.min(Nanos.saturatedAdd(askedNanos, spread), Math.max(askedNanos, left - 1));
  }

  /** When an exhausted quota resets: the server's time if it gave one, else its wait from now. */
  private Instant resetAt(ServerHint hint) {
    return hint.resetAt().orElseGet(() -> wallClockIn(hint.waitNanos()));
  }

  private long fail(GiveUp g) {
    failure = giveUp(g);
    return FAILED;
  }

  /** The facts every give-up shares: attempts, elapsed time, the last outcome and its rule. */
  final GiveUp.Facts facts(long now) {
    long elapsed = Math.max(0L, now - startNanos);
    if (lastVerdict == null) {
      return new GiveUp.Facts(attempts, elapsed, null, null, null, null);
    }
    return new GiveUp.Facts(
        attempts,
        elapsed,
        settings.describer.describe(lastResult, lastFailure),
        lastVerdict.toString(),
        lastResult,
        lastFailure);
  }

  /** Builds the exception, counts it and tells the listeners. */
  final RelentException giveUp(GiveUp g) {
    // A give-up decided on an attempt's outcome ends the call with it (before anyone hears of it).
    settleBreakers(true);
    if (scoped.pausedByThisCall != null) {
      g.alsoPaused(scoped.pausedByThisCall, scoped.pausedForNanos);
    }
    RelentException e = settings.api.exception(g);
    executor.countGiveUp(g.reason());
    if (observed()) {
      emit(event(RelentEvent.Type.FAILURE, -1, null, e));
    }
    return e;
  }

  /** The executor's concurrency limit had no slot free within the deadline. */
  final GiveUp concurrencyRefusal(long now) {
    return GiveUp.noSlot(facts(now), guards.limit().maxConcurrent(), settings.deadlineNanos);
  }

  /** A scope's concurrency limit had no slot free within the deadline. */
  final GiveUp scopeSlotRefusal(long now) {
    return scoped.slotRefusal(facts(now), settings.deadlineNanos);
  }

  /** The thread was interrupted while waiting. */
  final GiveUp interrupted(long now) {
    return GiveUp.interruptedWaiting(facts(now));
  }

  final Instant wallClockIn(long nanos) {
    long millis = TimeUnit.NANOSECONDS.toMillis(nanos);
    long base = settings.clock.millis();
    return Instant.ofEpochMilli(
        base > Long.MAX_VALUE - millis ? Long.MAX_VALUE / 2 : base + millis);
  }

  /** Whether anybody listens to this call: an executor-wide listener or the call's own. */
  final boolean observed() {
    return callListener != null || executor.observed();
  }

  final void emit(RelentEvent<R> event) {
    executor.emit(event, callListener);
  }

  final RelentEvent<R> event(
      RelentEvent.Type type, long waitNanos, ServerHint hint, RelentException exception) {
    long now = settings.ticker.read();
    boolean started = type == RelentEvent.Type.ATTEMPT_STARTED;
    String outcomeClass =
        started || lastVerdict == null
            ? OutcomeDescriber.NO_CLASS
            : settings.describer.outcomeClass(lastResult, lastFailure);
    return settings.api.event(
        type,
        attempts,
        Math.max(0L, now - startNanos),
        attempts == 0 ? -1 : Math.max(0L, attemptStartNanos - startNanos),
        type == RelentEvent.Type.ATTEMPT ? Math.max(0L, now - attemptStartNanos) : -1,
        started ? null : lastResult,
        started ? null : lastFailure,
        started ? null : lastVerdict,
        waitNanos,
        hint,
        exception,
        outcomeClass == null ? OutcomeDescriber.NO_CLASS : outcomeClass,
        type == RelentEvent.Type.RETRY && serverWait);
  }

  final void releaseSlot() {
    scoped.releaseSlots();
    ConcurrencyLimit.Permit held = slot;
    if (held == TAKEN_AT_ONCE) {
      slot = null;
      guards.limit().releaseSlot();
    } else if (held != null) {
      slot = null;
      held.release();
    }
  }

  /** Frees what an attempt that will not be made holds: its breaker permit and its slot. */
  void releaseGuards() {
    if (permitHeld) {
      permitHeld = false;
      guards.breaker().releasePermission();
    }
    scoped.release();
    releaseSlot();
  }

  // ---------------------------------------------------------------- AttemptContext

  @Override
  public final int attempt() {
    return attempts;
  }

  @Override
  public final long timeoutNanos() {
    return attemptTimeoutNanos;
  }

  @Override
  public final long elapsedNanos() {
    return Math.max(0L, settings.ticker.read() - startNanos);
  }
}
