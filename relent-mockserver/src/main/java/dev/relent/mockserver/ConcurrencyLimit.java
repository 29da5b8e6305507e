package dev.relent.mockserver;

import java.time.Duration;
import java.util.Objects;

/**
 * Concurrency-limit emulation: at most {@code max} requests of a key may be active at once (from
 * the arrival of the request line to the last byte of the response, or the connection's end); one
 * more is rejected at once with {@code status}.
 *
 * <p>Defaults: key {@code global}, status 503, no {@code Retry-After}. Immutable and thread-safe.
 */
public final class ConcurrencyLimit {

  private final int max;
  private final KeySpec key;
  private final int status;
  private final Duration retryAfter;

  private ConcurrencyLimit(int max, KeySpec key, int status, Duration retryAfter) {
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
  public static ConcurrencyLimit of(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1: " + max);
    }
    return new ConcurrencyLimit(max, KeySpec.GLOBAL, 503, null);
  }

  /**
   * Returns a copy that counts active requests per {@code key}.
   *
   * @param key {@code ip}, {@code token}, {@code global} or {@code header:NAME}
   * @return a new limit
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is not a key spec
   */
  public ConcurrencyLimit withKey(String key) {
    return new ConcurrencyLimit(max, KeySpec.of("key", key), status, retryAfter);
  }

  /**
   * Returns a copy that rejects with {@code status} (usually 429 or 503).
   *
   * @param status the status, 400..599
   * @return a new limit
   * @throws IllegalArgumentException if {@code status} is outside 400..599
   */
  public ConcurrencyLimit withStatus(int status) {
    return new ConcurrencyLimit(max, key, Guards.rejectStatus(status), retryAfter);
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
  public ConcurrencyLimit withRetryAfter(Duration retryAfter) {
    Objects.requireNonNull(retryAfter, "retryAfter cannot be null");
    if (retryAfter.isNegative()) {
      throw new IllegalArgumentException(
          "retryAfter must be >= 0: " + retryAfter.toMillis() + " ms");
    }
    return new ConcurrencyLimit(max, key, status, retryAfter);
  }

  int max() {
    return max;
  }

  KeySpec key() {
    return key;
  }

  int status() {
    return status;
  }

  Duration retryAfter() {
    return retryAfter;
  }
}
