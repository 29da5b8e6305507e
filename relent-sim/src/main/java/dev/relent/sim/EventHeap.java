package dev.relent.sim;

import java.util.Arrays;

/**
 * A binary min-heap of (time, payload) pairs in two primitive arrays: the event queue of the
 * contention model's study strategies, which handle tens of millions of events per run and so must
 * not allocate per event. Ties are broken by the payload, so the order is a function of the
 * contents alone. Not thread-safe.
 */
final class EventHeap {
  private long[] times = new long[64];
  private int[] payloads = new int[64];
  private int size;

  /** Returns whether the heap holds no event. */
  boolean isEmpty() {
    return size == 0;
  }

  /** Adds an event. */
  void push(long time, int payload) {
    if (size == times.length) {
      times = Arrays.copyOf(times, size * 2);
      payloads = Arrays.copyOf(payloads, size * 2);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!less(time, payload, parent)) {
        break;
      }
      i = moveTo(i, parent);
    }
    set(i, time, payload);
  }

  /** Returns the time of the earliest event; undefined when empty. */
  long peekTime() {
    return times[0];
  }

  /** Returns the payload of the earliest event; undefined when empty. */
  int peekPayload() {
    return payloads[0];
  }

  /** Removes the earliest event. */
  void pop() {
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
      if (right < last && less(times[right], payloads[right], child)) {
        child = right;
      }
      if (!less(times[child], payloads[child], time, payload)) {
        break;
      }
      i = moveTo(i, child);
    }
    set(i, time, payload);
  }

  /** Moves the event at {@code from} to the hole at {@code to}; {@code from} is the new hole. */
  private int moveTo(int to, int from) {
    set(to, times[from], payloads[from]);
    return from;
  }

  private void set(int i, long time, int payload) {
    times[i] = time;
    payloads[i] = payload;
  }

  private boolean less(long time, int payload, int i) {
    return less(time, payload, times[i], payloads[i]);
  }

  private static boolean less(long t1, int p1, long t2, int p2) {
    return t1 < t2 || (t1 == t2 && p1 < p2);
  }
}
