package dev.relent.internal.exec;

import dev.relent.AsyncSupplier;
import dev.relent.RelentListener;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Scope;
import dev.relent.time.Durations;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * An asynchronous operation: the decisions of {@link Execution}, driven by callbacks. No thread
 * blocks: waits are {@link dev.relent.time.Scheduler} tasks, a concurrency slot is awaited as a
 * future, the attempt's timeout is a scheduled task that completes the attempt's future.
 *
 * <p>Cancellation: {@link #promise} may be completed or cancelled by the caller at any time, from
 * any thread. Every resource the operation holds (breaker permit, concurrency slot, pacer
 * reservation, pending timer, attempt in flight) is recorded under {@code this} lock, and {@link
 * #cleanUp()} frees all of them under the same lock; each step checks the promise after taking a
 * resource, so a resource taken while a cancellation runs is freed by whichever comes second.
 */
final class AsyncExecution<R> extends Execution<R> {
  private final AsyncSupplier<? extends R> supplier;
  private final CompletableFuture<R> promise = new CompletableFuture<>();

  private Future<?> timer;
  private CompletableFuture<ConcurrencyLimit.Permit> slotWaiter;
  private CompletableFuture<? extends R> inFlight;
  private long reservedStart = Long.MIN_VALUE;

  /** Whether the start reserved was held by a pause of the request's scopes: reserve again. */
  private boolean heldByPause;

  AsyncExecution(
      RelentExecutorImpl<R> executor,
      long now,
      AsyncSupplier<? extends R> supplier,
      RelentListener<R> listener,
      List<Scope> scopes) {
    super(executor, now);
    callListener = listener;
    scoped = scopes == null ? CallScopes.NONE : new CallScopes(guards, settings, scopes, now);
    this.supplier = supplier;
  }

  CompletableFuture<R> start() {
    next(startNanos);
    // The caller cannot cancel the promise before it is returned, so the clean-up is registered
    // only now: an operation that ended already (every attempt completed at once) is cleaned up
    // here, without a callback stage. Otherwise a completion from now on, on whichever thread,
    // runs it (at once if the operation ends between the check and the registration).
    if (promise.isDone()) {
      cleanUp();
    } else {
      // handle, not whenComplete: on a failed future whenComplete wraps the failure in a new
      // CompletionException for its dependent, and filling in that stack trace costs microseconds.
      promise.handle(
          (r, t) -> {
            cleanUp();
            return null;
          });
    }
    return promise;
  }

  /** One pass through the guards, then the attempt. */
  private void next(long now) {
    if (promise.isDone()) {
      return;
    }
    synchronized (this) {
      if (!admit(now)) {
        finish(failure);
        return;
      }
    }
    if (!guards.limit().tryAcquireSlot()) {
      awaitSlot(now);
      return;
    }
    holdSlotThenPace(now, null);
  }

  private void awaitSlot(long now) {
    awaitSlot(
        guards.limit(),
        now,
        () -> concurrencyRefusal(settings.ticker.read()),
        permit -> holdSlotThenPace(settings.ticker.read(), permit));
  }

  /**
   * Waits without a thread for a slot of {@code limit}, then hands the permit to {@code granted};
   * at the deadline gives up with {@code refusal}, holding nothing.
   */
  private void awaitSlot(
      ConcurrencyLimit limit,
      long now,
      Supplier<GiveUp> refusal,
      Consumer<ConcurrencyLimit.Permit> granted) {
    CompletableFuture<ConcurrencyLimit.Permit> waiter = limit.acquireAsync();
    Future<?> timeout =
        settings.scheduler.schedule(
            () -> {
              if (waiter.cancel(false)) {
                synchronized (this) {
                  releaseGuards();
                }
                finish(giveUp(refusal.get()));
              }
            },
            deadlineAt - now);
    synchronized (this) {
      slotWaiter = waiter;
      timer = timeout;
    }
    waiter.whenComplete(
        (permit, t) -> {
          if (t == null) {
            timeout.cancel(false);
            granted.accept(permit);
          }
        });
  }

  /**
   * Goes on holding the slot: {@code permit} if it was awaited, otherwise the one taken at once.
   */
  private void holdSlotThenPace(long now, ConcurrencyLimit.Permit permit) {
    synchronized (this) {
      slot = permit != null ? permit : TAKEN_AT_ONCE;
      slotWaiter = null;
    }
    holdScopeSlotsThenPace(now);
  }

  /**
   * Takes a slot of every scope's concurrency limit, waiting without a thread for each that has
   * none free, in the scopes' order; then paces. A wait past the deadline gives up, holding none.
   */
  private void holdScopeSlotsThenPace(long now) {
    int missing;
    synchronized (this) {
      if (promise.isDone()) {
        releaseGuards();
        return;
      }
      missing = scoped.tryAcquireSlots();
    }
    if (missing < 0) {
      paceHoldingSlot(now);
      return;
    }
    awaitSlot(
        scoped.limit(missing),
        now,
        () -> {
          scoped.refusedSlot(missing);
          return scopeSlotRefusal(settings.ticker.read());
        },
        permit -> {
          synchronized (this) {
            slotWaiter = null;
            scoped.holdSlot(missing, permit);
          }
          holdScopeSlotsThenPace(settings.ticker.read());
        });
  }

  /** Reserves a start while holding the slot, then attempts at once or when the start comes. */
  private void paceHoldingSlot(long now) {
    paceHoldingSlot(now, false);
  }

  /**
   * Reserves a start while holding the slot ({@code rest}: with the pacers left after a wait, see
   * {@link #paceRest}), then attempts at once or when the start comes.
   */
  private void paceHoldingSlot(long now, boolean rest) {
    long wait;
    synchronized (this) {
      if (promise.isDone()) {
        releaseGuards();
        return;
      }
      wait = rest ? paceRest(now) : pace(now);
      if (wait > 0) {
        reservedStart = deferred ? Long.MIN_VALUE : now + wait;
        timer = settings.scheduler.schedule(this::attemptAfterPacing, wait);
      }
    }
    if (wait == FAILED) {
      finish(failure);
    } else if (wait == 0) {
      attempt(now);
    }
  }

  private void attemptAfterPacing() {
    long now = settings.ticker.read();
    long paused;
    synchronized (this) {
      reservedStart = Long.MIN_VALUE;
      if (promise.isDone()) {
        return;
      }
      // A pause of the request's scopes that began during the pacer wait is waited out too, and
      // the start reserved again after it (see the synchronous loop).
      paused = pauseLeft(now);
      if (paused > 0) {
        heldByPause = true;
        timer = settings.scheduler.schedule(this::attemptAfterPacing, paused);
      }
    }
    if (paused == FAILED) {
      finish(failure);
    } else if (paused == 0) {
      boolean held;
      synchronized (this) {
        held = heldByPause;
        heldByPause = false;
      }
      if (held || deferred || pausedSinceReserved(now)) {
        paceHoldingSlot(now); // an adaptive pacer holds a start reserved before its pause
        return;
      }
      if (scoped.pacing()) {
        paceHoldingSlot(now, true); // the pacers after the one that asked for this wait
        return;
      }
      attempt(now);
    }
  }

  private void attempt(long now) {
    if (promise.isDone()) {
      return;
    }
    begin(now);
    CompletableFuture<? extends R> stage;
    try {
      CompletionStage<? extends R> started = supplier.get(this);
      if (started == null) {
        throw new NullPointerException("the attempt returned a null CompletionStage");
      }
      stage = started.toCompletableFuture();
    } catch (Exception e) {
      complete(null, e, now);
      return;
    } catch (Error e) {
      synchronized (this) {
        releaseGuards();
      }
      finish(e);
      return;
    }
    if (stage.isDone() && !stage.isCompletedExceptionally()) {
      // Already answered (a cache hit, a stub, a fast path): nothing to time, to cancel or to wait
      // for, so no timer and no callback stage.
      complete(stage.getNow(null), null, now);
      return;
    }
    int attemptNumber = attempts;
    long limitNanos = attemptTimeoutNanos;
    // A stage that already failed needs no timer either: scheduling and cancelling one would be
    // most of the cost of such an attempt.
    Future<?> timeout =
        stage.isDone()
            ? null
            : settings.scheduler.schedule(
                () ->
                    stage.completeExceptionally(
                        new TimeoutException(
                            "attempt "
                                + attemptNumber
                                + " timed out after "
                                + Durations.format(limitNanos))),
                limitNanos);
    synchronized (this) {
      inFlight = stage;
      timer = timeout;
    }
    if (promise.isDone()) {
      stage.cancel(true);
    }
    // handle, not whenComplete, for the same reason as in start().
    stage.handle(
        (result, thrown) -> {
          if (timeout != null) {
            timeout.cancel(false);
          }
          synchronized (this) {
            inFlight = null;
          }
          complete(result, unwrap(thrown), now);
          return null;
        });
  }

  private void complete(R result, Throwable thrown, long attemptStart) {
    long next;
    synchronized (this) {
      if (promise.isDone()) {
        releaseGuards();
        return;
      }
      try {
        next = onOutcome(result, thrown, attemptStart);
      } finally {
        // Only now: the next caller waiting for the slot sees the pause this answer brought.
        releaseSlot();
      }
      if (next >= 0) {
        timer = settings.scheduler.schedule(() -> next(settings.ticker.read()), next);
      }
    }
    if (next == DONE) {
      promise.complete(result);
    } else if (next == FAILED) {
      finish(failure);
    }
  }

  private void finish(Throwable error) {
    promise.completeExceptionally(error);
  }

  /** Frees everything the operation holds; runs once the promise is complete, however. */
  private synchronized void cleanUp() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (slotWaiter != null) {
      slotWaiter.cancel(false);
      slotWaiter = null;
    }
    if (inFlight != null) {
      inFlight.cancel(true);
      inFlight = null;
    }
    if (reservedStart != Long.MIN_VALUE) {
      if (scoped.named()) {
        scoped.refund();
      } else {
        guards.pacer().refund(reservedStart);
      }
      reservedStart = Long.MIN_VALUE;
    }
    releaseGuards();
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
