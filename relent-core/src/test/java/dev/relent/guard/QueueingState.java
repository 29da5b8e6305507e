package dev.relent.guard;

import dev.relent.spi.ConcurrencyLimitState;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link ConcurrencyLimitState} that keeps the queue of waiters, in memory: the rules of the
 * interface's fleet queue, one call at a time, with a wake-up after every release and every
 * dequeue. Limits built on one instance stand for processes sharing one store; {@link #wakeUps} can
 * be turned off to stand for lost messages.
 */
final class QueueingState implements ConcurrencyLimitState {
  private int inUse;
  private long lastTicket;
  private final LinkedHashSet<Long> queue = new LinkedHashSet<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  volatile boolean wakeUps = true;
  int claims;

  @Override
  public synchronized boolean tryAcquire(int max) {
    if (inUse + queue.size() < max) {
      inUse++;
      return true;
    }
    return false;
  }

  @Override
  public void release() {
    synchronized (this) {
      if (inUse == 0) {
        throw new IllegalStateException("release() without a matching acquire");
      }
      inUse--;
    }
    wake();
  }

  @Override
  public synchronized int inUse() {
    return inUse;
  }

  @Override
  public boolean queuesWaiters() {
    return true;
  }

  @Override
  public synchronized long enqueue(int max) {
    if (inUse + queue.size() < max) {
      inUse++;
      return 0;
    }
    long ticket = ++lastTicket;
    queue.add(ticket);
    return ticket;
  }

  @Override
  public synchronized int claim(long[] tickets, int count, int max) {
    claims++;
    List<Long> order = new ArrayList<>(queue);
    int granted = 0;
    for (int i = 0; i < count; i++) {
      int rank = order.indexOf(tickets[i]);
      if (rank < 0) {
        throw new AssertionError("ticket " + tickets[i] + " is not queued");
      }
      // Ranks drop by one for each ticket granted before it.
      if (rank - granted >= max - inUse) {
        break;
      }
      queue.remove(tickets[i]);
      inUse++;
      granted++;
    }
    return granted;
  }

  @Override
  public void dequeue(long ticket) {
    synchronized (this) {
      queue.remove(ticket);
    }
    wake();
  }

  @Override
  public void onRelease(Runnable listener) {
    listeners.add(listener);
  }

  synchronized int queued() {
    return queue.size();
  }

  private void wake() {
    if (wakeUps) {
      for (Runnable r : listeners) {
        r.run();
      }
    }
  }
}
