package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.ConcurrencyLimit.Permit;
import dev.relent.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ConcurrencyLimit} on a state that keeps the queue of waiters ({@link QueueingState}): two
 * limits on one state stand for two processes. Waiters are served first come, first served across
 * both, a release goes to the oldest waiter of either, never to a local waiter ahead of it, and a
 * waiter is woken by the state, not by polling: the poll interval here is an hour, and the wake-ups
 * run on a scheduler the test drives.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FleetQueueConcurrencyLimitTest {
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  private final QueueingState state = new QueueingState();

  /** A scheduler that runs every task scheduled at once on the caller's thread; drops the polls. */
  private static final class Inline implements Scheduler {
    final AtomicInteger polls = new AtomicInteger();

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
      if (delayNanos <= 0) {
        task.run();
      } else {
        polls.incrementAndGet();
      }
      return new CompletableFuture<Void>();
    }
  }

  private ConcurrencyLimit process(int max, Scheduler scheduler) {
    return new SharedConcurrencyLimit(max, state, HOUR, scheduler);
  }

  @Test
  void aReleaseGoesToTheOldestWaiterOfTheFleetNotToALocalOne() {
    Inline scheduler = new Inline();
    ConcurrencyLimit a = process(1, scheduler);
    ConcurrencyLimit b = process(1, scheduler);
    Permit held = a.tryAcquire().orElseThrow();

    CompletableFuture<Permit> fromB = b.acquireAsync(); // first in the queue
    CompletableFuture<Permit> fromA = a.acquireAsync(); // after it, in the process that releases
    assertThat(state.queued()).isEqualTo(2);

    held.release();
    assertThat(fromB).as("the oldest waiter, in the other process").isCompleted();
    assertThat(fromA).isNotDone();

    fromB.join().release();
    assertThat(fromA).isCompleted();
    fromA.join().release();
    assertThat(state.inUse()).isZero();
    assertThat(state.queued()).isZero();
    assertThat(scheduler.polls).as("no poll was needed").hasValueLessThanOrEqualTo(2);
  }

  @Test
  void aFreeSlotIsNotTakenAheadOfAQueuedTicket() {
    Inline inline = new Inline();
    ConcurrencyLimit a = process(1, inline);
    ConcurrencyLimit b = process(1, (task, delay) -> new CompletableFuture<Void>());
    // b's wake-ups are lost: its ticket stays queued after the release.
    Permit held = a.tryAcquire().orElseThrow();
    CompletableFuture<Permit> fromB = b.acquireAsync();
    held.release();
    assertThat(fromB).isNotDone();
    assertThat(state.inUse()).isZero();

    assertThat(a.tryAcquire()).as("the free slot is the ticket's").isEmpty();
    assertThat(a.acquireAsync()).as("queued behind it").isNotDone();
    assertThat(state.queued()).isEqualTo(2);
  }

  @Test
  void blockedThreadsOfTwoProcessesAreServedInArrivalOrder() throws Exception {
    Inline scheduler = new Inline();
    ConcurrencyLimit a = process(1, scheduler);
    ConcurrencyLimit b = process(1, scheduler);
    Permit held = a.tryAcquire().orElseThrow();
    List<String> order = new CopyOnWriteArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      String[] names = {"b1", "a1", "b2", "a2"};
      for (String name : names) {
        ConcurrencyLimit limit = name.startsWith("a") ? a : b;
        int before = state.queued();
        done.add(
            threads.submit(
                () -> {
                  Optional<Permit> p = limit.acquire(Duration.ofSeconds(20));
                  order.add(name);
                  p.orElseThrow().release();
                  return null;
                }));
        while (state.queued() == before) {
          Thread.onSpinWait();
        }
      }
      held.release();
      for (Future<?> f : done) {
        f.get(20, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(order).containsExactly("b1", "a1", "b2", "a2");
    assertThat(state.inUse()).isZero();
  }

  @Test
  void aWaiterThatGivesUpOrIsCancelledTakesItsTicketOutAndTheNextGetsTheSlot() throws Exception {
    Inline scheduler = new Inline();
    ConcurrencyLimit a = process(1, scheduler);
    ConcurrencyLimit b = process(1, scheduler);
    Permit held = a.tryAcquire().orElseThrow();

    assertThat(b.acquire(Duration.ofMillis(20))).as("timed out").isEmpty();
    assertThat(state.queued()).isZero();

    CompletableFuture<Permit> cancelled = b.acquireAsync();
    CompletableFuture<Permit> next = a.acquireAsync();
    assertThat(cancelled.cancel(false)).isTrue();
    assertThat(state.queued()).isEqualTo(1);

    held.release();
    assertThat(next).isCompleted();
    next.join().release();
    assertThat(state.inUse()).isZero();
    assertThat(a.waiting() + b.waiting()).isZero();
  }

  @Test
  void aFutureCompletedElsewhereLeavesTheQueueAndTheNextGetsTheSlot() {
    Inline scheduler = new Inline();
    ConcurrencyLimit a = process(1, scheduler);
    ConcurrencyLimit b = process(1, scheduler);
    Permit held = a.tryAcquire().orElseThrow();
    CompletableFuture<Permit> first = b.acquireAsync();
    CompletableFuture<Permit> second = a.acquireAsync();
    // Completed by someone else: its ticket is still queued until its callback runs, which here
    // it does at once; either way the slot is never lost.
    first.complete(null);

    held.release();
    assertThat(second).isCompleted();
    second.join().release();
    assertThat(state.inUse()).isZero();
    assertThat(state.queued()).isZero();
  }

  @Test
  void aLostWakeUpIsMadeUpForByThePoll() throws Exception {
    ConcurrencyLimit a = process(1, new Inline());
    ConcurrencyLimit b =
        new SharedConcurrencyLimit(1, state, TimeUnit.MILLISECONDS.toNanos(20), new Inline());
    Permit held = a.tryAcquire().orElseThrow();
    state.wakeUps = false;
    CompletableFuture<Optional<Permit>> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return b.acquire(Duration.ofSeconds(20));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    while (state.queued() == 0) {
      Thread.onSpinWait();
    }
    held.release();
    Permit got = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
    got.release();
    assertThat(state.inUse()).isZero();
  }

  @Test
  void manyThreadsOfThreeProcessesNeverExceedTheLimitAndAllGetThrough() throws Exception {
    Scheduler system = Scheduler.system();
    List<ConcurrencyLimit> processes =
        List.of(process(2, system), process(2, system), process(2, system));
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(9);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int t = 0; t < 9; t++) {
        ConcurrencyLimit limit = processes.get(t % 3);
        boolean async = t % 2 == 0;
        all.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 300; i++) {
                    Permit p =
                        async
                            ? limit.acquireAsync().get(20, TimeUnit.SECONDS)
                            : limit.acquire(Duration.ofSeconds(20)).orElseThrow();
                    int now = inFlight.incrementAndGet();
                    most.accumulateAndGet(now, Math::max);
                    inFlight.decrementAndGet();
                    p.release();
                    done.incrementAndGet();
                  }
                  return null;
                }));
      }
      for (Future<?> f : all) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(done).hasValue(9 * 300);
    assertThat(most.get()).isLessThanOrEqualTo(2);
    assertThat(state.inUse()).isZero();
    assertThat(state.queued()).isZero();
  }
}
