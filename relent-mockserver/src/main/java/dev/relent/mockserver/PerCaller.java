package dev.relent.mockserver;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * State an emulation keeps per caller key, such as a token bucket. Bounded: when {@value #MAX_KEYS}
 * keys are held, all are forgotten at once, so that a load test with random keys cannot make the
 * server grow without end. Thread-safe.
 *
 * @param <V> the state of one caller
 */
final class PerCaller<V> {

  static final int MAX_KEYS = 100_000;

  private final ConcurrentHashMap<String, V> states = new ConcurrentHashMap<>();

  /** The state of {@code key}, made by {@code create} when the key is new. */
  V get(String key, Function<String, V> create) {
    V v = states.get(key);
    if (v == null) {
      if (states.size() >= MAX_KEYS) {
        states.clear();
      }
      v = states.computeIfAbsent(key, create);
    }
    return v;
  }

  void clear() {
    states.clear();
  }
}
