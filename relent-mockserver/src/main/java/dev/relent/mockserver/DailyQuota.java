package dev.relent.mockserver;

import java.time.Instant;
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
    RateLimit.LIMIT.check(limit);
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
    return new DailyQuota(limit, key, Emulation.REJECT_STATUS.check(status), resetAt);
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

  /** Fresh counters, for one server. */
  Emulation start() {
    return new Days(this);
  }

  /**
   * A request counter per caller key and quota day: a {@code long[] {day, used}} changed under its
   * own lock, started over when a request arrives on a later day.
   */
  private static final class Days implements Emulation {
    private static final long DAY_MILLIS = 86_400_000L;

    private final DailyQuota cfg;
    private final String policy;
    private final long offsetMillis;
    private final PerCaller<long[]> counters = new PerCaller<>();

    Days(DailyQuota cfg) {
      this.cfg = cfg;
      this.offsetMillis = cfg.resetAt.toSecondOfDay() * 1000L;
      this.policy = "\"daily\";q=" + cfg.limit + ";w=86400";
    }

    @Override
    public Rejection admit(ServerExchange ex, MockClock clock, RateLimitHeaders shown) {
      long wallMillis = clock.wallMillis();
      long day = Math.floorDiv(wallMillis - offsetMillis, DAY_MILLIS);
      long resetAt = (day + 1) * DAY_MILLIS + offsetMillis;
      long[] c = counters.get(cfg.key.callerOf(ex), k -> new long[] {day, 0});
      long used;
      boolean rejected;
      synchronized (c) {
        if (c[0] != day) {
          c[0] = day;
          c[1] = 0;
        }
        rejected = c[1] >= cfg.limit;
        if (!rejected) {
          c[1]++;
        }
        used = c[1];
      }
      long secondsToReset = Emulation.ceilSeconds(resetAt - wallMillis);
      shown.add(policy, "daily", cfg.limit, cfg.limit - used, secondsToReset);
      if (!rejected) {
        return null;
      }
      return new Rejection(
          "quota-exceeded",
          cfg.status,
          Math.max(1, secondsToReset),
          "{\"error\":\"daily_quota_exceeded\",\"limit\":"
              + cfg.limit
              + ",\"resetAt\":"
              + JsonText.quote(Instant.ofEpochMilli(resetAt).toString())
              + "}");
    }

    @Override
    public void reset() {
      counters.clear();
    }
  }
}
