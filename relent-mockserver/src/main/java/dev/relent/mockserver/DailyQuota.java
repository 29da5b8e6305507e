package dev.relent.mockserver;

import java.time.LocalTime;
import java.util.Objects;

/**
 * Daily-quota emulation: each key may make {@code limit} requests per day; the day starts at {@code
 * resetAt} UTC (default midnight). Beyond it the server answers {@code status} (default 429) with
 * {@code Retry-After} in seconds until the next reset (usually hours: a short wait does not renew a
 * daily quota), {@code RateLimit-Policy: "daily";q=LIMIT;w=86400}, {@code RateLimit}, {@code
 * X-RateLimit-*} (reset as Unix seconds) and a JSON body naming the reset time.
 *
 * <p>Defaults: key {@code ip}, status 429, reset at 00:00 UTC. Days follow the server's {@link
 * MockClock#wallMillis()}. Immutable and thread-safe.
 */
public final class DailyQuota {

  private final int limit;
  private final KeySpec key;
  private final int status;
  private final LocalTime resetAt;

  private DailyQuota(int limit, KeySpec key, int status, LocalTime resetAt) {
    this.limit = limit;
    this.key = key;
    this.status = status;
    this.resetAt = resetAt;
  }

  /**
   * Returns a quota of {@code limit} requests per UTC day for each client IP.
   *
   * @param limit requests per day, 1 or more
   * @return a new quota
   * @throws IllegalArgumentException if {@code limit} is less than 1
   */
  public static DailyQuota of(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1: " + limit);
    }
    return new DailyQuota(limit, KeySpec.IP, 429, LocalTime.MIDNIGHT);
  }

  /**
   * Returns a copy that counts per {@code key}.
   *
   * @param key {@code ip}, {@code token}, {@code global} or {@code header:NAME}
   * @return a new quota
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is not a key spec
   */
  public DailyQuota withKey(String key) {
    return new DailyQuota(limit, KeySpec.of("key", key), status, resetAt);
  }

  /**
   * Returns a copy that rejects with {@code status}.
   *
   * @param status the status, 400..599
   * @return a new quota
   * @throws IllegalArgumentException if {@code status} is outside 400..599
   */
  public DailyQuota withStatus(int status) {
    return new DailyQuota(limit, key, Guards.rejectStatus(status), resetAt);
  }

  /**
   * Returns a copy whose day starts at {@code resetAt} UTC (whole minutes).
   *
   * @param resetAt the UTC time of day the quota renews
   * @return a new quota
   * @throws NullPointerException if {@code resetAt} is null
   */
  public DailyQuota withResetAt(LocalTime resetAt) {
    Objects.requireNonNull(resetAt, "resetAt cannot be null");
    return new DailyQuota(limit, key, status, resetAt.withSecond(0).withNano(0));
  }

  int limit() {
    return limit;
  }

  KeySpec key() {
    return key;
  }

  int status() {
    return status;
  }

  LocalTime resetAt() {
    return resetAt;
  }
}
