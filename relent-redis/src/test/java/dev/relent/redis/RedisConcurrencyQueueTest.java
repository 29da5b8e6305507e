package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.ConcurrencyLimit.Permit;
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
 * The queue of waiters of the shared concurrency limit, on the Redis on 127.0.0.1:6379: one
 * connection stands for one process. Waiters of every process are served first come, first served;
 * a release goes to the oldest ticket of the fleet, and its holder is woken through pub/sub, not a
 * poll (the limits here poll once an hour); a dead process's tickets leave with its lease.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisConcurrencyQueueTest {
  private static final Duration HOUR = Duration.ofHours(1);

  private static ConcurrencyLimit limit(int max, RedisConcurrencyLimitState state, Duration poll) {
    return ConcurrencyLimit.builder()
        .withMaxConcurrent(max)
        .withState(state)
        .withPollInterval(poll)
        .build();
  }

  @Test
  void aReleaseGoesToTheOldestWaiterOfTheFleetAndWakesItWithoutPolling() throws Exception {
    try (RelentRedis a = LocalRedis.connect();
        RelentRedis b = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("queue");
      RedisConcurrencyLimitState stateA = a.concurrencyLimitState(name);
      RedisConcurrencyLimitState stateB = b.concurrencyLimitState(name);
      ConcurrencyLimit inA = limit(1, stateA, HOUR);
      ConcurrencyLimit inB = limit(1, stateB, HOUR);
      Permit held = inA.tryAcquire().orElseThrow();

      CompletableFuture<Permit> fromB = inB.acquireAsync(); // first in the fleet's queue
      CompletableFuture<Permit> fromA = inA.acquireAsync(); // in the process that releases
      assertThat(stateA.queued() + stateB.queued()).isEqualTo(2);
      assertThat(inA.tryAcquire()).isEmpty();

      long released = System.nanoTime();
      held.release();
      Permit got = fromB.get(5, TimeUnit.SECONDS);
      Duration woken = Duration.ofNanos(System.nanoTime() - released);
      assertThat(fromA).as("the local waiter does not jump the fleet's queue").isNotDone();
      assertThat(woken).as("woken by the release, not an hourly poll").isLessThan(HOUR);

      got.release();
      fromA.get(5, TimeUnit.SECONDS).release();
      assertThat(stateA.inUse()).isZero();
      assertThat(stateA.queued() + stateB.queued()).isZero();
      System.out.printf(
          "queue: the other process's waiter had the slot %d µs after the release%n",
          woken.toNanos() / 1000);
    }
  }

  @Test
  void blockedThreadsOfThreeProcessesTakeTurnsInArrivalOrder() throws Exception {
    List<RelentRedis> processes =
        List.of(LocalRedis.connect(), LocalRedis.connect(), LocalRedis.connect());
    String name = LocalRedis.uniqueName("turns");
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      List<RedisConcurrencyLimitState> states = new ArrayList<>();
      List<ConcurrencyLimit> limits = new ArrayList<>();
      for (RelentRedis p : processes) {
        RedisConcurrencyLimitState s = p.concurrencyLimitState(name);
        states.add(s);
        limits.add(limit(1, s, HOUR));
      }
      Permit held = limits.get(0).tryAcquire().orElseThrow();
      List<String> order = new CopyOnWriteArrayList<>();
      List<Future<?>> all = new ArrayList<>();
      int[] who = {2, 0, 1, 2, 1, 0};
      for (int i = 0; i < who.length; i++) {
        ConcurrencyLimit l = limits.get(who[i]);
        String tag = "p" + who[i] + "#" + i;
        int before = states.stream().mapToInt(RedisConcurrencyLimitState::queued).sum();
        all.add(
            threads.submit(
                () -> {
                  Permit p = l.acquire(Duration.ofSeconds(30)).orElseThrow();
                  order.add(tag);
                  p.release();
                  return null;
                }));
        while (states.stream().mapToInt(RedisConcurrencyLimitState::queued).sum() == before) {
          Thread.sleep(1);
        }
      }
      held.release();
      for (Future<?> f : all) {
        f.get(30, TimeUnit.SECONDS);
      }
      assertThat(order).containsExactly("p2#0", "p0#1", "p1#2", "p2#3", "p1#4", "p0#5");
    } finally {
      threads.shutdownNow();
      processes.forEach(RelentRedis::close);
    }
  }

  @Test
  void theTicketsOfADeadProcessLeaveTheQueueWithItsLease() throws Exception {
    try (RelentRedis holder = LocalRedis.connect();
        RelentRedis b = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("dead-ticket");
      Permit held = limit(1, holder.concurrencyLimitState(name), HOUR).tryAcquire().orElseThrow();
      // The dead one queues first, then dies: its renewals stop, its lease is made to end.
      RelentRedis dead = LocalRedis.connect();
      RedisConcurrencyLimitState deadState = dead.concurrencyLimitState(name);
      assertThat(deadState.enqueue(1)).isPositive();
      dead.close();
      ConcurrencyLimit inB = limit(1, b.concurrencyLimitState(name), Duration.ofMillis(200));
      CompletableFuture<Permit> fromB = inB.acquireAsync();
      holder
          .commands()
          .zadd(
              LocalRedis.bytes(RedisPacerState.guardKey(name, "leases")),
              0.0,
              LocalRedis.bytes(dead.instanceId()));

      held.release();
      // The release wakes the dead ticket's holder, which is gone; B's next claim drops it.
      fromB.get(10, TimeUnit.SECONDS).release();
      assertThat(holder.commands().zcard(LocalRedis.bytes(RedisPacerState.guardKey(name, "queue"))))
          .isZero();
    }
  }

  @Test
  void aProcessWaitingWithoutSlotsKeepsItsLease() throws Exception {
    try (RelentRedis a = LocalRedis.connect();
        RelentRedis b = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("waiting-lease");
      RedisConcurrencyLimitState holds = a.concurrencyLimitState(name, Duration.ofSeconds(1));
      RedisConcurrencyLimitState waits = b.concurrencyLimitState(name, Duration.ofSeconds(1));
      assertThat(holds.tryAcquire(1)).isTrue();
      long ticket = waits.enqueue(1);
      assertThat(ticket).isPositive();
      Thread.sleep(2500); // past two leases: only the renewals keep the ticket
      assertThat(holds.claim(new long[0], 0, 1)).isZero();
      assertThat(holds.inUse()).isEqualTo(1);
      holds.release();
      assertThat(waits.claim(new long[] {ticket}, 1, 1)).isEqualTo(1);
      assertThat(waits.held()).isEqualTo(1);
      waits.release();
    }
  }

  @Test
  void aTicketLostInARestartIsQueuedAgainAndServed() throws Exception {
    try (RelentRedis a = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("lost-ticket");
      RedisConcurrencyLimitState state = a.concurrencyLimitState(name);
      assertThat(state.tryAcquire(1)).isTrue();
      long ticket = state.enqueue(1);
      LocalRedis.deleteKeys(a, "relent:{" + name + "}:*"); // a restart without data
      assertThat(state.claim(new long[] {ticket}, 1, 1))
          .as("queued again; the slot is held")
          .isZero();
      state.release();
      assertThat(state.claim(new long[] {ticket}, 1, 1)).isEqualTo(1);
      state.release();
      assertThat(state.inUse()).isZero();
    }
  }

  @Test
  void manyWaitersOfThreeProcessesNeverExceedTheLimitAndAllGetThrough() throws Exception {
    List<RelentRedis> processes =
        List.of(LocalRedis.connect(), LocalRedis.connect(), LocalRedis.connect());
    String name = LocalRedis.uniqueName("queue-stress");
    ExecutorService threads = Executors.newFixedThreadPool(9);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    int[] perProcess = new int[3];
    try {
      List<ConcurrencyLimit> limits = new ArrayList<>();
      for (RelentRedis p : processes) {
        limits.add(limit(2, p.concurrencyLimitState(name), Duration.ofSeconds(1)));
      }
      List<Future<?>> all = new ArrayList<>();
      for (int t = 0; t < 9; t++) {
        int k = t % 3;
        boolean async = t % 2 == 0;
        all.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < 40; i++) {
                    Optional<Permit> p =
                        async
                            ? Optional.of(limits.get(k).acquireAsync().get(30, TimeUnit.SECONDS))
                            : limits.get(k).acquire(Duration.ofSeconds(30));
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    synchronized (perProcess) {
                      perProcess[k]++;
                    }
                    Thread.sleep(1);
                    inFlight.decrementAndGet();
                    p.orElseThrow().release();
                  }
                  return null;
                }));
      }
      for (Future<?> f : all) {
        f.get(50, TimeUnit.SECONDS);
      }
      assertThat(most.get()).isLessThanOrEqualTo(2);
      assertThat(perProcess).containsExactly(120, 120, 120);
      assertThat(processes.get(0).concurrencyLimitState(name).inUse()).isZero();
    } finally {
      threads.shutdownNow();
      processes.forEach(RelentRedis::close);
    }
  }
}
