package dev.relent.mockserver;

import java.time.Duration;
import java.util.Objects;

/**
 * Token-bucket rate-limit emulation: each key may make {@code limit} requests per {@code window}
 * (tokens refill continuously at {@code limit / window}) with bursts of up to {@code burst}. Beyond
 * that the server answers {@code status} (default 429) with {@code Retry-After} (whole seconds
 * until the next token), and every answer on the route carries {@code RateLimit-Policy} and {@code
 * RateLimit} (IETF httpapi draft, structured-field form) and {@code X-RateLimit-Limit}, {@code
 * -Remaining} and {@code -Reset} (seconds until the bucket is full again).
 *
 * <p>Defaults: key {@code ip}, burst = limit, status 429, policy name {@code default}. Time comes
 * from the server's {@link MockClock#monotonicNanos()}. Immutable and thread-safe.
 */
public final class RateLimit {

  static final IntRange LIMIT = IntRange.atLeast("limit", 1);
  static final IntRange BURST = IntRange.atLeast("burst", 1);

  private final int limit;
  private final Duration window;
  private final int burst;
  private final KeySpec key;
  private final int status;
  private final String name;

  private RateLimit(int limit, Duration window, int burst, KeySpec key, int status, String name) {
    this.limit = limit;
    this.window = window;
    this.burst = burst;
    this.key = key;
    this.status = status;
    this.name = name;
  }

  /**
   * Returns a limit of {@code limit} requests per {@code window} for each client IP.
   *
   * @param limit requests per window, 1 or more
   * @param window the window, at least 1 ms
   * @return a new rate limit
   * @throws NullPointerException if {@code window} is null
   * @throws IllegalArgumentException if {@code limit} is less than 1 or {@code window} is shorter
   *     than 1 ms
   */
  public static RateLimit of(int limit, Duration window) {
    LIMIT.check(limit);
    Objects.requireNonNull(window, "window cannot be null");
    if (window.toMillis() < 1) {
      throw new IllegalArgumentException("window must be >= 1 ms: " + window.toMillis() + " ms");
    }
    return new RateLimit(limit, window, limit, KeySpec.IP, 429, "default");
  }

  /**
   * Returns a copy whose bucket holds up to {@code burst} tokens.
   *
   * @param burst the bucket capacity, 1 or more
   * @return a new rate limit
   * @throws IllegalArgumentException if {@code burst} is less than 1
   */
  public RateLimit withBurst(int burst) {
    BURST.check(burst);
    return new RateLimit(limit, window, burst, key, status, name);
  }

  /**
   * Returns a copy that keeps one bucket per {@code key}: {@code ip}, {@code token}, {@code global}
   * or {@code header:NAME}.
   *
   * @param key the key spec
   * @return a new rate limit
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is not a key spec
   */
  public RateLimit withKey(String key) {
    return new RateLimit(limit, window, burst, KeySpec.of("key", key), status, name);
  }

  /**
   * Returns a copy that rejects with {@code status}.
   *
   * @param status the status for a rejected request, 400..599
   * @return a new rate limit
   * @throws IllegalArgumentException if {@code status} is outside 400..599
   */
  public RateLimit withStatus(int status) {
    return new RateLimit(limit, window, burst, key, Emulation.REJECT_STATUS.check(status), name);
  }

  /**
   * Returns a copy whose policy is named {@code name} in the {@code RateLimit} headers.
   *
   * @param name the policy name, an HTTP token
   * @return a new rate limit
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is not a token
   */
  public RateLimit withName(String name) {
    Objects.requireNonNull(name, "name cannot be null");
    if (!Http.isToken(name)) {
      throw new IllegalArgumentException("name must be an HTTP token: " + JsonText.quote(name));
    }
    return new RateLimit(limit, window, burst, key, status, name);
  }

  /** A fresh set of buckets, for one server. */
  Emulation start() {
    return new Buckets(this);
  }

  /**
   * A token bucket per caller key, in integer units so that tests get exact numbers: one token is
   * {@code window} nanoseconds' worth of units and every nanosecond adds {@code limit} units, so
   * exactly {@code limit} tokens refill per window. A bucket is a {@code long[] {units, lastNanos}}
   * changed under its own lock; buckets start full.
   */
  private static final class Buckets implements Emulation {
    private final RateLimit cfg;
    private final String policy;
    private final long perToken;
    private final long capacity;
    private final PerCaller<long[]> buckets = new PerCaller<>();

    Buckets(RateLimit cfg) {
      this.cfg = cfg;
      this.perToken = cfg.window.toNanos();
      long cap;
      try {
        cap = Math.multiplyExact(perToken, (long) cfg.burst);
      } catch (ArithmeticException e) {
        cap = Long.MAX_VALUE / 2;
      }
      this.capacity = cap;
      this.policy =
          "\""
              + cfg.name
              + "\";q="
              + cfg.limit
              + ";w="
              + Emulation.ceilSeconds(cfg.window.toMillis());
    }

    @Override
    public Rejection admit(ServerExchange ex, MockClock clock, RateLimitHeaders shown) {
      long now = clock.monotonicNanos();
      long limit = cfg.limit;
      long[] b = buckets.get(cfg.key.callerOf(ex), k -> new long[] {capacity, now});
      long units;
      long retryAfter = -1;
      synchronized (b) {
        long elapsed = now - b[1];
        if (elapsed > 0) {
          long add = elapsed > capacity / limit ? capacity : elapsed * limit;
          b[0] = Math.min(capacity, b[0] + add);
          b[1] = now;
        }
        if (b[0] >= perToken) {
          b[0] -= perToken;
        } else {
          long waitNanos = Emulation.ceilDiv(perToken - b[0], limit);
          retryAfter = Math.max(1, Emulation.ceilDiv(waitNanos, 1_000_000_000L));
        }
        units = b[0];
      }
      long reset = Emulation.ceilDiv(Emulation.ceilDiv(capacity - units, limit), 1_000_000_000L);
      shown.add(policy, cfg.name, limit, units / perToken, reset);
      if (retryAfter < 0) {
        return null;
      }
      return new Rejection(
          "rate-limited",
          cfg.status,
          retryAfter,
          "{\"error\":\"rate_limited\",\"policy\":"
              + JsonText.quote(cfg.name)
              + ",\"retryAfterSeconds\":"
              + retryAfter
              + "}");
    }

    @Override
    public void reset() {
      buckets.clear();
    }
  }
}
