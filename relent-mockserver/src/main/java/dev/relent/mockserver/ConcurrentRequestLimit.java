package dev.relent.mockserver;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Concurrency-limit emulation: at most {@code max} requests of a key may be active at once (from
 * the arrival of the request line to the last byte of the response, or the connection's end); one
 * more is rejected at once with {@code status}.
 *
 * <p>Defaults: key {@code global}, status 503, no {@code Retry-After}. Immutable and thread-safe.
 */
public final class ConcurrentRequestLimit {

  static final IntRange MAX = IntRange.atLeast("max", 1);

  private final int max;
  private final KeySpec key;
  private final int status;
  private final Duration retryAfter;

  private ConcurrentRequestLimit(int max, KeySpec key, int status, Duration retryAfter) {
    this.max = max;
    this.key = key;
    this.status = status;
    this.retryAfter = retryAfter;
  }

  /**
   * Returns a limit of {@code max} active requests.
   *
   * @param max the most requests active at once, 1 or more
   * @return a new limit
   * @throws IllegalArgumentException if {@code max} is less than 1
   */
  public static ConcurrentRequestLimit of(int max) {
    MAX.check(max);
    return new ConcurrentRequestLimit(max, KeySpec.GLOBAL, 503, null);
  }

  /**
   * Returns a copy that counts active requests per {@code key}.
   *
   * @param key {@code ip}, {@code token}, {@code global} or {@code header:NAME}
   * @return a new limit
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is not a key spec
   */
  public ConcurrentRequestLimit withKey(String key) {
    return new ConcurrentRequestLimit(max, KeySpec.of("key", key), status, retryAfter);
  }

  /**
   * Returns a copy that rejects with {@code status} (usually 429 or 503).
   *
   * @param status the status, 400..599
   * @return a new limit
   * @throws IllegalArgumentException if {@code status} is outside 400..599
   */
  public ConcurrentRequestLimit withStatus(int status) {
    return new ConcurrentRequestLimit(max, key, Emulation.REJECT_STATUS.check(status), retryAfter);
  }

  /**
   * Returns a copy whose rejections carry {@code Retry-After} with {@code retryAfter} in whole
   * seconds (rounded up).
   *
   * @param retryAfter the advertised wait
   * @return a new limit
   * @throws NullPointerException if {@code retryAfter} is null
   * @throws IllegalArgumentException if {@code retryAfter} is negative
   */
  public ConcurrentRequestLimit withRetryAfter(Duration retryAfter) {
    Durations.nonNegative("retryAfter", retryAfter);
    return new ConcurrentRequestLimit(max, key, status, retryAfter);
  }

  /** Fresh counters, for one server. */
  Emulation start() {
    return new Slots(this);
  }

  /**
   * An active-request counter per caller key. A request takes a slot by incrementing its key's
   * counter and, if that went past {@code max}, gives it back at once; the {@link ServerExchange}
   * holds a slot it got until the answer is complete or the connection closes.
   */
  private static final class Slots implements Emulation {
    private final ConcurrentRequestLimit cfg;
    private final AtomicInteger single = new AtomicInteger();
    // Entries stay (a key's counter must outlive its requests); bounded by the keys seen.
    private final ConcurrentHashMap<String, AtomicInteger> perKey = new ConcurrentHashMap<>();

    Slots(ConcurrentRequestLimit cfg) {
      this.cfg = cfg;
    }

    @Override
    public Rejection admit(ServerExchange ex, MockClock clock, RateLimitHeaders shown) {
      AtomicInteger counter =
          cfg.key.kind == KeySpec.Kind.GLOBAL
              ? single
              : perKey.computeIfAbsent(cfg.key.callerOf(ex), k -> new AtomicInteger());
      if (counter.incrementAndGet() <= cfg.max) {
        ex.hold(counter);
        return null;
      }
      counter.decrementAndGet();
      return new Rejection(
          "concurrency-limited",
          cfg.status,
          cfg.retryAfter == null ? -1 : Emulation.ceilSeconds(cfg.retryAfter.toMillis()),
          "{\"error\":\"too_many_concurrent_requests\",\"max\":" + cfg.max + "}");
    }

    @Override
    public void reset() {
      // Requests being answered keep their slots: they are still running.
    }
  }
}
