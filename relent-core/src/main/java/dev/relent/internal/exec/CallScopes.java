package dev.relent.internal.exec;

import dev.relent.PauseTarget;
import dev.relent.ServerHint;
import dev.relent.Verdict;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import dev.relent.internal.Nanos;
import dev.relent.internal.chain.GuardChain;
import dev.relent.time.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The scopes of one call: the guards of each (a {@link ScopeGuards} per scope), taken from the
 * executor's {@link GuardRegistry} when the operation starts (a scope evicted meanwhile keeps
 * serving it), with what the operation holds of them.
 *
 * <p>Pacing with several pacers (each scope's, narrowest first, then the executor's own): every
 * pause is waited out first, then a start is reserved with one pacer after the other, each at the
 * time the waits before it are over, never ahead of it ({@link #reserve}, then {@link #reserveRest}
 * after each wait). A pacer's schedule is one line of reserved starts (GCRA), so a start reserved
 * in the future holds every caller after it: a call waiting for its scope's pause or pacer must
 * hold no start of a pacer that other scopes share (the executor's, an account's) until that wait
 * is over, or the other scopes' calls queue behind it. Each start is reserved no later than it
 * happens, so the starts may be slower than the slowest pacer, never faster. A refusal refunds
 * every reservation made.
 *
 * <p>Learning: an answer's quota and throttle go to the pacer of the scope the answer belongs to
 * (the one it would pause), an answer that is not a throttle to the pacer of every scope of the
 * call, so that an adaptive pacer of a scope learns that scope's rate and no other's.
 *
 * <p>Allocated per operation, only for a call with scopes; confined like its {@link Execution}. A
 * call that names no scope has {@link #NONE}, the one {@link None}: it holds nothing, finds nothing
 * to take, refuse, pause or feed, and is shared (it has no state to write).
 */
sealed class CallScopes permits CallScopes.None {
  /** The scopes of a call that names none. */
  static final CallScopes NONE = new None();

  private final ExecutionSettings<?> settings;
  private final List<Scope> scopes;
  private final ScopeGuards[] guards;
  private final Pacer[] pacers;

  /** The scope of each pacer, null for the executor's own: named only when a message needs it. */
  private final Scope[] pacerScopes;

  /** Each scope's pacer, by the scope's index; null where a scope has none. */
  private final Pacer[] scopePacers;

  private final long[] reserved;

  /**
   * The first pacer not yet reserved for the coming attempt; {@code pacers.length} when all are.
   */
  private int next;

  private final CircuitBreaker[] breakers;
  private final boolean[] permits;
  private final RetryBudget[] budgets;
  private final ConcurrencyLimit[] limits;
  private final Scope[] limitScopes;
  private final boolean[] slotsAtOnce;
  private final ConcurrencyLimit.Permit[] slotPermits;
  private int refusingLimit = -1;

  /** Why the last {@link #reserve} refused: the scope's pause, or a pacer's wait. */
  private ScopeGuards refusingPause;

  private int refusingPacer = -1;
  private long refusedWait;

  /** The scopes this call paused, for its own give-up message; null if none. */
  List<Scope> pausedByThisCall;

  /** How long this call paused {@link #pausedByThisCall} for. */
  long pausedForNanos;

  /** For {@link None}: no scope, nothing held. */
  private CallScopes() {
    settings = null;
    scopes = List.of();
    guards = new ScopeGuards[0];
    pacers = new Pacer[0];
    pacerScopes = new Scope[0];
    scopePacers = new Pacer[0];
    reserved = new long[0];
    breakers = new CircuitBreaker[0];
    permits = new boolean[0];
    budgets = new RetryBudget[0];
    limits = new ConcurrencyLimit[0];
    limitScopes = new Scope[0];
    slotsAtOnce = new boolean[0];
    slotPermits = new ConcurrencyLimit.Permit[0];
  }

  CallScopes(GuardChain chain, ExecutionSettings<?> settings, List<Scope> scopes, long now) {
    this.settings = settings;
    this.scopes = scopes;
    int n = scopes.size();
    guards = new ScopeGuards[n];
    int pacerCount = chain.paced() ? 1 : 0;
    int breakerCount = 0;
    int budgetCount = 0;
    int limitCount = 0;
    for (int i = 0; i < n; i++) {
      guards[i] = settings.registry.guards(scopes.get(i), now);
      pacerCount += guards[i].pacer().isPresent() ? 1 : 0;
      breakerCount += guards[i].circuitBreaker().isPresent() ? 1 : 0;
      budgetCount += guards[i].retryBudget().isPresent() ? 1 : 0;
      limitCount += guards[i].concurrencyLimit().isPresent() ? 1 : 0;
    }
    limits = new ConcurrencyLimit[limitCount];
    limitScopes = new Scope[limitCount];
    slotsAtOnce = new boolean[limitCount];
    slotPermits = new ConcurrencyLimit.Permit[limitCount];
    pacers = new Pacer[pacerCount];
    pacerScopes = new Scope[pacerCount];
    reserved = new long[pacerCount];
    breakers = new CircuitBreaker[breakerCount];
    permits = new boolean[breakerCount];
    budgets = new RetryBudget[budgetCount];
    scopePacers = new Pacer[n];
    int p = 0;
    int c = 0;
    int b = 0;
    int l = 0;
    for (int i = n - 1; i >= 0; i--) {
      // Narrowest first: an endpoint's pacer is the likeliest to wait, and is reserved before the
      // broader ones that other endpoints share.
      if (guards[i].pacer().isPresent()) {
        scopePacers[i] = guards[i].pacer().get();
        pacers[p] = scopePacers[i];
        pacerScopes[p++] = guards[i].scope();
      }
    }
    if (chain.paced()) {
      pacers[p] = chain.pacer();
    }
    next = pacers.length;
    for (ScopeGuards g : guards) {
      if (g.circuitBreaker().isPresent()) {
        breakers[c++] = g.circuitBreaker().get();
      }
      if (g.retryBudget().isPresent()) {
        budgets[b++] = g.retryBudget().get();
      }
      if (g.concurrencyLimit().isPresent()) {
        limits[l] = g.concurrencyLimit().get();
        limitScopes[l++] = g.scope();
      }
    }
    Arrays.fill(reserved, Long.MIN_VALUE);
  }

  // ---------------------------------------------------------------- breakers

  /** Takes a permit of every scope's breaker: 0, or the refusing breaker's wait (all released). */
  long admit(long now) {
    for (int i = 0; i < breakers.length; i++) {
      long refusal = breakers[i].tryAcquirePermission(now);
      if (refusal != 0) {
        release();
        return refusal;
      }
      permits[i] = true;
    }
    return 0;
  }

  /**
   * Reports the call's outcome ({@link Execution#CALL_SUCCEEDED}, {@link Execution#CALL_FAILED}) to
   * the breakers whose permits this attempt holds, or frees them ({@link Execution#CALL_NEUTRAL}).
   */
  void record(int outcome, long attemptStart) {
    for (int i = 0; i < breakers.length; i++) {
      if (!permits[i]) {
        continue;
      }
      permits[i] = false;
      if (outcome == Execution.CALL_SUCCEEDED) {
        breakers[i].onSuccess(attemptStart);
      } else if (outcome == Execution.CALL_FAILED) {
        breakers[i].onFailure(attemptStart);
      } else {
        breakers[i].releasePermission();
      }
    }
  }

  /** Gives back the breaker permits of an attempt that will not be made. */
  void release() {
    for (int i = 0; i < breakers.length; i++) {
      if (permits[i]) {
        permits[i] = false;
        breakers[i].releasePermission();
      }
    }
  }

  /** The scope whose breaker refused, for the message; null if none is open any more. */
  Scope refusingBreaker() {
    for (ScopeGuards g : guards) {
      if (g.circuitBreaker().isPresent() && g.circuitBreaker().get().nextProbeIn().isPresent()) {
        return g.scope();
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- concurrency limits

  /**
   * Takes a slot of every scope's concurrency limit, in the order of the scopes (broadest first, as
   * every call names them, so that two calls never wait for each other's slots), waiting for each
   * in turn within {@code maxWait} in all.
   *
   * @return whether every slot is held; if not, none is, and {@link #slotRefusal} says which
   * @throws InterruptedException if interrupted while waiting; then none is held
   */
  boolean acquireSlots(long now, long maxWait) throws InterruptedException {
    long until = now + maxWait;
    for (int i = 0; i < limits.length; i++) {
      if (limits[i].tryAcquireSlot()) {
        slotsAtOnce[i] = true;
        continue;
      }
      long left = until - settings.ticker.read();
      Optional<ConcurrencyLimit.Permit> permit;
      try {
        permit = left > 0 ? limits[i].acquire(Duration.ofNanos(left)) : Optional.empty();
      } catch (InterruptedException e) {
        releaseSlots();
        throw e;
      }
      if (permit.isEmpty()) {
        refusingLimit = i;
        releaseSlots();
        return false;
      }
      slotPermits[i] = permit.get();
    }
    return true;
  }

  /**
   * Takes every scope slot that is free now, from the first not yet held, without waiting.
   *
   * @return -1 if every slot is held, else the index of the limit with none free
   */
  int tryAcquireSlots() {
    for (int i = 0; i < limits.length; i++) {
      if (slotsAtOnce[i] || slotPermits[i] != null) {
        continue;
      }
      if (!limits[i].tryAcquireSlot()) {
        return i;
      }
      slotsAtOnce[i] = true;
    }
    return -1;
  }

  /**
   * Whether the call names scopes: then the executor's pacer is reserved, and a pause for everyone
   * set, through them; without, the execution asks the executor's pacer itself.
   */
  boolean named() {
    return true;
  }

  /** Whether any scope of the call has a concurrency limit. */
  boolean hasLimits() {
    return limits.length > 0;
  }

  /** The limit at {@code i}, to wait for a slot of it. */
  ConcurrencyLimit limit(int i) {
    return limits[i];
  }

  /** Holds the permit a wait for limit {@code i} was granted. */
  void holdSlot(int i, ConcurrencyLimit.Permit permit) {
    slotPermits[i] = permit;
  }

  /** Marks limit {@code i} as the one whose slot did not come free in time. */
  void refusedSlot(int i) {
    refusingLimit = i;
  }

  /** Gives back every scope slot held; safe to call when none is. */
  void releaseSlots() {
    for (int i = 0; i < limits.length; i++) {
      if (slotsAtOnce[i]) {
        slotsAtOnce[i] = false;
        limits[i].releaseSlot();
      } else if (slotPermits[i] != null) {
        ConcurrencyLimit.Permit held = slotPermits[i];
        slotPermits[i] = null;
        held.release();
      }
    }
  }

  /** Gives up naming the scope whose limit had no slot free in time. */
  GiveUp slotRefusal(GiveUp.Facts facts, long deadlineNanos) {
    int i = Math.max(0, refusingLimit);
    return GiveUp.noScopeSlot(facts, limitScopes[i], limits[i].maxConcurrent(), deadlineNanos);
  }

  // ---------------------------------------------------------------- budgets

  void recordFirstAttempt(long now) {
    for (RetryBudget b : budgets) {
      b.recordFirstAttempt(now);
    }
  }

  /** Draws a retry from every scope's budget; null if all allowed, else the one that refused. */
  RetryBudget tryAcquireRetry(long now) {
    for (RetryBudget b : budgets) {
      if (!b.tryAcquireRetry(now)) {
        return b;
      }
    }
    return null;
  }

  /** The scope of a budget, for the message. */
  Scope scopeOf(RetryBudget budget) {
    for (ScopeGuards g : guards) {
      if (g.retryBudget().orElse(null) == budget) {
        return g.scope();
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- pauses and pacers

  /**
   * Begins the pacing of an attempt: waits out every pause, then reserves a start with the pacers
   * in turn, as {@link #reserveRest} does.
   *
   * @return the wait before the start (&ge; 0), or minus the wait that would have been needed when
   *     it exceeds {@code maxWait}; then {@link #refusal} says why
   */
  long reserve(long now, long maxWait) {
    // Reservations of an earlier attempt were used by it: never refund them.
    Arrays.fill(reserved, Long.MIN_VALUE);
    next = 0;
    return reserveRest(now, maxWait);
  }

  /**
   * Goes on pacing after a wait that {@link #reserve} or this method asked for: reserves a start at
   * {@code now} with each pacer not reserved yet, and stops at the first that asks to wait (the
   * others are asked when that wait is over). Before any, a pause of the scopes is waited out with
   * nothing reserved.
   *
   * @return 0 when every pacer has a start now; else the wait before the next step (&gt; 0), or
   *     minus the wait that would have been needed when it exceeds {@code maxWait}; then {@link
   *     #refusal} says why, and nothing stays reserved
   */
  long reserveRest(long now, long maxWait) {
    refusingPause = null;
    refusingPacer = -1;
    if (next == 0) {
      long paused = pauseLeft(now);
      if (paused > 0) {
        return paused > maxWait ? -paused : paused;
      }
      refusingPause = null;
    }
    while (next < pacers.length) {
      long wait = pacers[next].tryAcquire(now, Math.max(0L, maxWait));
      if (wait < 0) {
        refund();
        refusingPacer = next;
        refusedWait = -wait;
        next = pacers.length;
        return wait;
      }
      reserved[next++] = now + wait;
      if (wait > 0) {
        return wait;
      }
    }
    return 0;
  }

  /** Whether pacers are left to reserve once the wait {@link #reserve} asked for is over. */
  boolean pacing() {
    return next < pacers.length;
  }

  /**
   * Whether an adaptive pacer whose start this attempt reserved has paused since ({@link
   * Pacer#holdsReservedStarts()}): the attempt then reserves again after the pause, so that the
   * starts the pause held go spread out at the pacer's rate.
   */
  boolean pausedSinceReserved(long now) {
    for (int i = 0; i < pacers.length; i++) {
      if (reserved[i] != Long.MIN_VALUE
          && pacers[i].holdsReservedStarts()
          && pacers[i].pausedUntilNanos() > now) {
        return true;
      }
    }
    return false;
  }

  /** The longest {@link Pacer#deferNanos} of the scopes' pacers at {@code now}; 0 if none. */
  long deferNanos(long now) {
    long defer = 0;
    for (Pacer p : pacers) {
      defer = Math.max(defer, p.deferNanos(now));
    }
    return defer;
  }

  /**
   * How long the longest pause of the scopes lasts from {@code now}; 0 if none. The scope paused
   * longest is kept for {@link #refusal}; with no pause nothing is written.
   */
  long pauseLeft(long now) {
    long left = 0;
    for (ScopeGuards g : guards) {
      long until = g.pausedUntilNanos();
      if (until != Long.MIN_VALUE && until - now > left) {
        left = until - now;
        refusingPause = g;
      }
    }
    return left;
  }

  /** Gives back every reservation made (best effort, as {@link Pacer#refund} is). */
  void refund() {
    for (int i = 0; i < pacers.length; i++) {
      if (reserved[i] != Long.MIN_VALUE) {
        pacers[i].refund(reserved[i]);
        reserved[i] = Long.MIN_VALUE;
      }
    }
  }

  /**
   * Gives up naming what made {@link #reserve} refuse: the scope and what paused it, or the pacer
   * whose next start lies past the deadline, {@code left} away.
   */
  GiveUp refusal(GiveUp.Facts facts, long left, Instant retryAt) {
    if (refusingPause != null) {
      return GiveUp.scopePausedPastDeadline(facts, refusingPause, left, retryAt);
    }
    return GiveUp.scopePacerPastDeadline(
        facts,
        refusingPacer >= 0,
        refusingPacer < 0 ? null : pacerScopes[refusingPacer],
        refusedWait,
        left,
        retryAt);
  }

  /**
   * Pauses the scope the answer belongs to: until an exhausted quota resets (waiting a while will
   * not renew it, so every call fails at once, saying when), or for a rate limit's wait capped at
   * the longest server wait allowed, so that a hostile or mistaken wait never stalls the scope's
   * calls longer than they would wait anyway. The wait counts from now, when the answer came
   * (called as it comes): the server counts it from when it answered, not from when the attempt
   * began.
   */
  <R> void pause(R result, Throwable thrown, Verdict verdict, ServerHint hint, long attemptStart) {
    int at = target(result, thrown, hint);
    if (verdict.kind() != Verdict.Kind.RETRY
        && !hint.isQuotaExhausted()
        && scopePacers[at] != null
        && scopePacers[at].holdsEmptyWindows()) {
      return; // a success with none left: the scope's pacer holds its starts to the window itself
    }
    long answeredAt = settings.ticker.read();
    long asked = hint.waitNanos();
    long pause = hint.isQuotaExhausted() ? asked : Math.min(asked, settings.maxServerWaitNanos);
    if (pause <= 0) {
      return; // a 429 without a wait pauses nothing: the backoff of this call alone decides
    }
    @SuppressWarnings("unchecked")
    ExecutionSettings<R> typed = (ExecutionSettings<R>) settings;
    Scope target = scopes.get(at);
    String cause = typed.describer.describe(result, thrown) + " (" + hint.source() + ")";
    if (asked > pause) {
      cause +=
          "; the server asked for "
              + Durations.format(asked)
              + ", the pause is capped at the "
              + Durations.format(pause)
              + " allowed";
    }
    long until = Nanos.saturatedAdd(answeredAt, pause);
    List<Scope> paused = settings.registry.pause(scopes, target, until, asked, cause, attemptStart);
    if (!paused.isEmpty()) {
      pausedByThisCall = paused;
      pausedForNanos = pause;
    }
  }

  /**
   * The index of the scope an answer belongs to: the first of the kind the executor's {@link
   * PauseTarget} names, else the narrowest.
   */
  private <R> int target(R result, Throwable thrown, ServerHint hint) {
    @SuppressWarnings("unchecked")
    ExecutionSettings<R> typed = (ExecutionSettings<R>) settings;
    Scope.Kind kind = typed.pauseTarget.kindOf(result, thrown, hint);
    if (kind != null) {
      for (int i = 0; i < scopes.size(); i++) {
        if (scopes.get(i).kind() == kind) {
          return i;
        }
      }
    }
    return scopes.size() - 1;
  }

  /**
   * Tells the scopes' pacers what the attempt said, as the executor tells its own: the quota, and a
   * throttle (a rate-limit hint on an outcome to retry), to the pacer of the scope the answer
   * belongs to; an answer that is not retried, to the pacer of every scope of the call. A
   * fixed-rate pacer ignores all of it.
   */
  <R> void feed(R result, Throwable thrown, Verdict verdict, ServerHint hint, long attemptStart) {
    if (verdict.kind() != Verdict.Kind.RETRY) {
      for (Pacer p : scopePacers) {
        if (p != null) {
          p.onAccepted(attemptStart);
        }
      }
    }
    if (hint == null) {
      return;
    }
    boolean quota = settings.reportsQuota(hint);
    boolean throttled =
        verdict.kind() == Verdict.Kind.RETRY && hint.pausesAll() && !hint.isQuotaExhausted();
    if (!quota && !throttled) {
      return;
    }
    Pacer p = scopePacers[target(result, thrown, hint)];
    if (p == null) {
      return;
    }
    if (quota) {
      settings.observeQuota(p, attemptStart, hint);
    }
    if (throttled) {
      p.onThrottled(attemptStart, settings.ticker.read());
    }
  }

  /**
   * The scopes of a call that names none: every guard of a scope is absent, so each method answers
   * as the checks it stands for would with nothing to check; the executor's own guards are asked by
   * the execution itself.
   */
  static final class None extends CallScopes {
    private None() {}

    @Override
    boolean named() {
      return false;
    }

    @Override
    long admit(long now) {
      return 0;
    }

    @Override
    void record(int outcome, long attemptStart) {}

    @Override
    void release() {}

    @Override
    boolean hasLimits() {
      return false;
    }

    @Override
    int tryAcquireSlots() {
      return -1;
    }

    @Override
    void releaseSlots() {}

    @Override
    void recordFirstAttempt(long now) {}

    @Override
    RetryBudget tryAcquireRetry(long now) {
      return null;
    }

    @Override
    boolean pacing() {
      return false;
    }

    @Override
    boolean pausedSinceReserved(long now) {
      return false;
    }

    @Override
    long deferNanos(long now) {
      return 0;
    }

    @Override
    long pauseLeft(long now) {
      return 0;
    }

    @Override
    void refund() {}

    @Override
    <R> void pause(
        R result, Throwable thrown, Verdict verdict, ServerHint hint, long attemptStart) {}

    @Override
    <R> void feed(
        R result, Throwable thrown, Verdict verdict, ServerHint hint, long attemptStart) {}
  }
}
