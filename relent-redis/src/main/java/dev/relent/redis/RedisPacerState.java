package dev.relent.redis;

import dev.relent.spi.PacerState;
import dev.relent.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A {@link PacerState} in Redis: every process that uses the same name on the same Redis shares one
 * schedule, so a fleet keeps one start rate. Made by {@link RelentRedis#pacerState(String,
 * Ticker)}.
 *
 * <p>Each method is one {@code EVALSHA} round trip of one Lua script, atomic on the server, that
 * runs the reference algorithm of {@link PacerState} ({@link PacerState#earliestStart}, {@link
 * PacerState#nextTheoreticalArrival}, the refund rule).
 *
 * <p>Time base: the script reads Redis's own clock ({@code TIME}) and keeps the schedule in it, so
 * processes whose clocks or tickers differ still agree. The caller's readings never reach Redis:
 * {@link #reserve} returns a wait, a duration, which the caller adds to its own reading; {@link
 * #pauseUntil} sends the time left until the pause ends, read on this state's ticker just before
 * the call; {@link #pausedUntil()} gets the time left and adds it to the midpoint of the ticker
 * readings taken before and after the round trip (the offset between the two clocks measured on
 * that same call). The error of each conversion is at most the round trip, and a pause is never
 * shortened by it: Redis starts counting the time left only when the command arrives. {@link
 * #refund} finds the Redis start of the reservation from the caller's start ({@code now + wait}) in
 * a small table of this instance's newest reservations; a reservation made through another instance
 * or process, or pushed out of that table by {@value #RECENT} newer ones, is not refunded (refunds
 * are best effort anyway).
 *
 * <p>Key: {@code relent:{name}:pacer}, a hash; the hash tag puts it on one Redis Cluster slot. It
 * expires three times the longest of the interval, the queue ahead ({@code tat - now}) and the
 * pause left, plus one second, after the last change, so an idle pacer leaves nothing behind. Times
 * in it are nanoseconds since a base second kept beside them and moved forward once a day, so that
 * Lua's doubles hold them exactly.
 *
 * <p>Failure: if Redis does not answer within the {@linkplain RelentRedis#commandTimeout() command
 * timeout}, or fails, every method throws {@link RedisStoreException} naming the URI (never the
 * password) and the key. No fallback is chosen here yet: that policy is a later step.
 *
 * <p>Thread-safe; one instance may serve many pacers of the same name, and pacers built on one name
 * must have the same rate and burst.
 */
public final class RedisPacerState implements PacerState {

  /** How many of this instance's newest reservations {@link #refund} can find. */
  static final int RECENT = 256;

  /** Replies at or beyond this magnitude stand for a saturated value (Lua numbers are doubles). */
  private static final long SATURATED = 4_000_000_000_000_000_000L;

  private static final byte[] RESERVE = bytes("reserve");
  private static final byte[] REFUND = bytes("refund");
  private static final byte[] PAUSE = bytes("pause");
  private static final byte[] PAUSED = bytes("paused");

  static final Script SCRIPT =
      Script.of(
          "pacer",
          """
          -- Relent pacer state: GCRA with refund and pause, on Redis's clock (PacerState).
          -- KEYS[1] the hash; ARGV[1] the operation, then its arguments (decimal nanoseconds).
          -- Times are ns since the second 'base'; absent fields are "never".
          local key = KEYS[1]
          local op = ARGV[1]
          local t = redis.call('TIME')
          local sec = tonumber(t[1])
          local f = redis.call('HMGET', key, 'base', 'tat', 'last', 'count', 'paused', 'interval')
          local base = tonumber(f[1])
          local tat, last, count, paused = tonumber(f[2]), tonumber(f[3]), tonumber(f[4]) or 0, tonumber(f[5])
          local interval = tonumber(f[6])
          if base == nil then
            base = sec; tat = nil; last = nil; count = 0; paused = nil; interval = nil
          elseif sec - base >= 86400 then
            -- keep the numbers small enough for doubles to hold every nanosecond
            local shift = (sec - base) * 1e9
            if tat then tat = tat - shift end
            if last then last = last - shift end
            if paused then paused = paused - shift end
            base = sec
          end
          local now = (sec - base) * 1e9 + tonumber(t[2]) * 1000
          local CAP = 4e18
          local function clamp(x)
            if x > CAP then return CAP end
            if x < -CAP then return -CAP end
            return x
          end
          local function fmt(x) return string.format('%.0f', x) end
          local function save()
            local args = {'base', fmt(base), 'count', fmt(count)}
            if tat then args[#args + 1] = 'tat'; args[#args + 1] = fmt(tat) end
            if last then args[#args + 1] = 'last'; args[#args + 1] = fmt(last) end
            if paused then args[#args + 1] = 'paused'; args[#args + 1] = fmt(paused) end
            if interval then args[#args + 1] = 'interval'; args[#args + 1] = fmt(interval) end
            redis.call('HSET', key, unpack(args))
            local horizon = interval or 0
            if tat and tat - now > horizon then horizon = tat - now end
            if paused and paused - now > horizon then horizon = paused - now end
            local ms = math.ceil(horizon * 3 / 1e6) + 1000
            if ms > 31536000000 then ms = 31536000000 end
            redis.call('PEXPIRE', key, fmt(ms))
          end
          if op == 'reserve' then
            local T, tau, maxWait = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
            local start = now
            if paused and paused > start then start = paused end
            if tat and tat - tau > start then start = tat - tau end
            local wait = start - now
            if wait > maxWait then return {0, clamp(wait), base, 0} end
            if tat == nil or start > tat then tat = start + T else tat = tat + T end
            if last ~= nil and start == last then count = count + 1 else last = start; count = 1 end
            interval = T
            save()
            return {1, clamp(wait), base, clamp(start)}
          elseif op == 'refund' then
            local T = tonumber(ARGV[2])
            local at = (tonumber(ARGV[3]) - base) * 1e9 + tonumber(ARGV[4])
            if last ~= nil and count > 0 and at == last then
              tat = tat - T; count = count - 1
              save()
              return {1}
            end
            return {0}
          elseif op == 'pause' then
            local untilTime = now + tonumber(ARGV[2])
            if paused == nil or untilTime > paused then
              paused = untilTime
              save()
            end
            return {1}
          elseif op == 'paused' then
            if paused == nil then return {0, 0} end
            return {1, clamp(paused - now)}
          end
          return redis.error_reply('unknown pacer operation ' .. tostring(op))
          """);

  private final RelentRedis redis;
  private final String name;
  private final String keyText;
  private final byte[] key;
  private final Ticker ticker;
  private final RecentStarts recent = new RecentStarts(RECENT);

  RedisPacerState(RelentRedis redis, String name, Ticker ticker) {
    this.redis = Objects.requireNonNull(redis, "redis cannot be null");
    this.name = name;
    this.keyText = keyOf(name);
    this.key = bytes(keyText);
    this.ticker = Objects.requireNonNull(ticker, "ticker cannot be null");
  }

  /**
   * Returns the Redis key of a pacer's schedule.
   *
   * @param name 1 to 200 printable ASCII characters, no braces (they would break the hash tag)
   * @return {@code relent:{name}:pacer}
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if the name is empty, too long or has other characters
   */
  public static String keyOf(String name) {
    return guardKey(name, "pacer");
  }

  /**
   * The key of one guard's state, {@code relent:{name}:kind}: the same rules for every guard's
   * name, the hash tag putting all of a name's keys in one cluster slot.
   */
  static String guardKey(String name, String kind) {
    Objects.requireNonNull(name, "name cannot be null");
    if (name.isEmpty() || name.length() > 200) {
      throw new IllegalArgumentException(
          kind + " name must have 1 to 200 characters: " + name.length());
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c > '~' || c == '{' || c == '}') {
        throw new IllegalArgumentException(
            kind + " name must be printable ASCII without spaces or braces: " + name);
      }
    }
    return "relent:{" + name + "}:" + kind;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The wait is measured on Redis's clock; {@code nowNanos} only names the start for a later
   * {@link #refund}.
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public long reserve(long nowNanos, long intervalNanos, long toleranceNanos, long maxWaitNanos) {
    List<Object> reply =
        redis.run(
            SCRIPT,
            keyText,
            key,
            RESERVE,
            number(intervalNanos),
            number(toleranceNanos),
            number(maxWaitNanos));
    long wait = saturated((Long) reply.get(1));
    if ((Long) reply.get(0) == 0) {
      return -wait;
    }
    long base = (Long) reply.get(2);
    long start = (Long) reply.get(3);
    if (Math.abs(start) < SATURATED) {
      recent.add(saturatedAdd(nowNanos, wait), base * 1_000_000_000L + start);
    }
    return wait;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Only reservations made through this instance can be refunded (see the class comment).
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public boolean refund(long reservedAtNanos, long intervalNanos) {
    long redisStart = recent.take(reservedAtNanos);
    if (redisStart == RecentStarts.NONE) {
      return false;
    }
    List<Object> reply =
        redis.run(
            SCRIPT,
            keyText,
            key,
            REFUND,
            number(intervalNanos),
            number(Math.floorDiv(redisStart, 1_000_000_000L)),
            number(Math.floorMod(redisStart, 1_000_000_000L)));
    return (Long) reply.get(0) == 1;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Sends the time left, {@code untilNanos} minus a reading of this state's ticker; Redis adds
   * it to its own clock when the command arrives.
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public void pauseUntil(long untilNanos) {
    if (untilNanos == Long.MIN_VALUE) {
      return; // "never": raises nothing
    }
    long left = saturatedAdd(untilNanos, -ticker.read());
    redis.run(SCRIPT, keyText, key, PAUSE, number(left));
  }

  /**
   * {@inheritDoc}
   *
   * <p>A reading of this state's ticker: the time left on Redis's clock added to the midpoint of
   * the readings before and after the round trip.
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public long pausedUntil() {
    long before = ticker.read();
    List<Object> reply = redis.run(SCRIPT, keyText, key, PAUSED);
    long after = ticker.read();
    if ((Long) reply.get(0) == 0) {
      return Long.MIN_VALUE;
    }
    long middle = before + (after - before) / 2;
    return saturatedAdd(middle, saturated((Long) reply.get(1)));
  }

  /**
   * Returns the pacer's name.
   *
   * @return the name given at creation
   */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return "RedisPacerState[" + keyText + " at " + redis.uri() + "]";
  }

  private static long saturated(long reply) {
    if (reply >= SATURATED) {
      return Long.MAX_VALUE;
    }
    return reply <= -SATURATED ? -Long.MAX_VALUE : reply;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    // Overflow only if both have the same sign and the sum's sign differs.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }

  private static byte[] number(long value) {
    return bytes(Long.toString(value));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The newest reservations of this instance: the caller's start and the Redis start of each, so
   * that a refund, which names the caller's start, can name the start Redis knows. A ring behind
   * one lock; a lookup takes the newest match and forgets it.
   */
  static final class RecentStarts {
    static final long NONE = Long.MIN_VALUE;

    private final long[] callerStarts;
    private final long[] redisStarts;
    private final boolean[] live;
    private int next;

    RecentStarts(int capacity) {
      callerStarts = new long[capacity];
      redisStarts = new long[capacity];
      live = new boolean[capacity];
    }

    synchronized void add(long callerStart, long redisStart) {
      callerStarts[next] = callerStart;
      redisStarts[next] = redisStart;
      live[next] = true;
      next = (next + 1) % callerStarts.length;
    }

    synchronized long take(long callerStart) {
      int n = callerStarts.length;
      for (int k = 1; k <= n; k++) {
        int i = Math.floorMod(next - k, n);
        if (live[i] && callerStarts[i] == callerStart) {
          live[i] = false;
          return redisStarts[i];
        }
      }
      return NONE;
    }
  }
}
