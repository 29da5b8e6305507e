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
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1: " + limit);
    }
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
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be >= 1: " + burst);
    }
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
    return new RateLimit(limit, window, burst, key, Guards.rejectStatus(status), name);
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
    return new RateLimit(limit, window, burst, key, status, Guards.policyName(name));
  }

  int limit() {
    return limit;
  }

  Duration window() {
    return window;
  }

  int burst() {
    return burst;
  }

  KeySpec key() {
    return key;
  }

  int status() {
    return status;
  }

  String name() {
    return name;
  }
}
