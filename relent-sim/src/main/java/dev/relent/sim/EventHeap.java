package dev.relent.sim.internal;

import java.util.Arrays;

/**
 * A binary min-heap of (time, payload) pairs in two primitive arrays: the event queue of the
 * contention model's hot loop, which handles tens of millions of events per run and so must not
 * allocate per event. Ties are broken by the payload, so the order is a function of the contents
 * alone. Not thread-safe.
 */
public final class EventHeap {
  private long[] times = new long[64];
  private int[] payloads = new int[64];
  private int size;

  /** Removes every event. */
  public void clear() {
    size = 0;
  }

  /**
   * Returns whether the heap holds no event.
   *
   * @return true if empty
   */
  public boolean isEmpty() {
    return size == 0;
  }

  /**
   * Adds an event.
   *
   * @param time its time
   * @param payload what it is
   */
  public void push(long time, int payload) {
    if (size == times.length) {
      times = Arrays.copyOf(times, size * 2);
      payloads = Arrays.copyOf(payloads, size * 2);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!less(time, payload, times[parent], payloads[parent])) {
        break;
      }
      times[i] = times[parent];
      payloads[i] = payloads[parent];
      i = parent;
    }
    times[i] = time;
    payloads[i] = payload;
  }

  /**
   * Returns the time of the earliest event.
   *
   * @return its time; undefined when empty
   */
  public long peekTime() {
    return times[0];
  }

  /**
   * Returns the payload of the earliest event.
   *
   * @return its payload; undefined when empty
   */
  public int peekPayload() {
    return payloads[0];
  }

  /** Removes the earliest event. */
  public void pop() {
    int last = --size;
    if (last == 0) {
      return;
    }
    long time = times[last];
    int payload = payloads[last];
    int i = 0;
    int half = last >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < last && less(times[right], payloads[right], times[child], payloads[child])) {
        child = right;
      }
      if (!less(times[child], payloads[child], time, payload)) {
        break;
      }
      times[i] = times[child];
      payloads[i] = payloads[child];
      i = child;
    }
    times[i] = time;
    payloads[i] = payload;
  }

  private static boolean less(long t1, int p1, long t2, int p2) {
    return t1 < t2 || (t1 == t2 && p1 < p2);
  }
}
