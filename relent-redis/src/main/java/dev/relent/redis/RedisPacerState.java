package dev.relent.redis;

import static dev.relent.redis.Script.bytes;
import static dev.relent.redis.Script.number;

import dev.relent.guard.Scope;
import dev.relent.spi.PacerState;
import dev.relent.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
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
 * <p>Keys: {@code relent:{name}:pacer}, a hash, and {@code relent:{name}:members}, the processes
 * seen reserving in the last minute (a sorted set by their last millisecond, gone two minutes after
 * the last reservation), and {@code relent:{name}:control}, the fleet's rate controller ({@link
 * #updateControl}); the hash tag puts them on one Redis Cluster slot. The hash expires three times
 * the longest of the interval, the queue ahead ({@code tat - now}) and the pause left, plus one
 * second, after the last change, so an idle pacer leaves nothing behind. Times in it are
 * nanoseconds since a base second kept beside them and moved forward once a day, so that Lua's
 * doubles hold them exactly.
 *
 * <p>Failure: if Redis does not answer within the {@linkplain RelentRedis#commandTimeout() command
 * timeout}, or cannot be reached, the state follows the connection's {@link RedisFallback}: by
 * default an in-memory schedule at {@code 1/n} of the rate, {@code n} the larger of the expected
 * instances and {@link #processesSeen()}, that starts with its burst spent and with the latest
 * pause this instance knew of; back on Redis, the first reservation takes the burst as spent too,
 * and so does any reservation that finds the schedule lost (a restart that kept nothing) after this
 * instance had reserved on it. With {@link RedisFallback#none()}, every method throws {@link
 * RedisStoreException} naming the URI (never the password) and the key.
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
  private static final byte[] LEARN = bytes("learn");
  private static final byte[] FRESH = bytes("0");
  private static final byte[] SPENT_IF_LOST = bytes("1");
  private static final byte[] SPENT_AFTER_FALLBACK = bytes("2");
  private static final byte[] NO_INSTANCE = new byte[0];

  /** How often a reservation also refreshes this instance's membership of the fleet. */
  static final long MEMBERSHIP_REFRESH_NANOS = 1_000_000_000L;

  static final Script SCRIPT =
      Script.of(
          "pacer",
          """
          -- Relent pacer state: GCRA with refund and pause, on Redis's clock (PacerState).
          -- KEYS[1] the hash; KEYS[2] the processes seen reserving (a sorted set by last millisecond);
          -- ARGV[1] the operation, then its arguments (decimal nanoseconds).
          -- Times are ns since the second 'base'; absent fields are "never".
          local key = KEYS[1]
          local op = ARGV[1]
          local t = redis.call('TIME')
          local sec = tonumber(t[1])
          local f = redis.call('HMGET', key, 'base', 'tat', 'last', 'count', 'paused', 'interval',
            'learned', 'learnedUntil')
          local base = tonumber(f[1])
          local tat, last, count, paused = tonumber(f[2]), tonumber(f[3]), tonumber(f[4]) or 0, tonumber(f[5])
          local interval = tonumber(f[6])
          local learned, learnedUntil = tonumber(f[7]), tonumber(f[8])
          if base == nil then
            base = sec; tat = nil; last = nil; count = 0; paused = nil; interval = nil
            learned = nil; learnedUntil = nil
          elseif sec - base >= 86400 then
            -- keep the numbers small enough for doubles to hold every nanosecond
            local shift = (sec - base) * 1e9
            if tat then tat = tat - shift end
            if last then last = last - shift end
            if paused then paused = paused - shift end
            if learnedUntil then learnedUntil = learnedUntil - shift end
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
            if learned then
              args[#args + 1] = 'learned'; args[#args + 1] = fmt(learned)
              args[#args + 1] = 'learnedUntil'; args[#args + 1] = fmt(learnedUntil)
            end
            redis.call('HSET', key, unpack(args))
            local horizon = interval or 0
            if tat and tat - now > horizon then horizon = tat - now end
            if paused and paused - now > horizon then horizon = paused - now end
            if learnedUntil and learnedUntil - now > horizon then horizon = learnedUntil - now end
            local ms = math.ceil(horizon * 3 / 1e6) + 1000
            if ms > 31536000000 then ms = 31536000000 end
            redis.call('PEXPIRE', key, fmt(ms))
          end
          if op == 'reserve' then
            local T, tau, maxWait = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
            -- An interval a process learned from a throttle holds for everyone until it lapses.
            if learned and learnedUntil > now and learned > T then
              tau = tau / T * learned
              T = learned
            end
            -- ARGV[5]: '1' the caller reserved here before, so a missing schedule was lost (a
            -- restart) rather than never made; '2' the caller comes back from its in-memory
            -- fallback. Either way the burst is taken as spent, never granted again.
            local spent = ARGV[5]
            if (spent == '1' and tat == nil) or (spent == '2' and (tat == nil or tat < now)) then
              tat = now + tau
            end
            -- ARGV[6]: the caller's instance id when it refreshes its membership (about once a
            -- second), else empty: the fleet is then not counted (-1).
            local fleet = -1
            if ARGV[6] ~= '' then
              local ms = sec * 1000 + math.floor(tonumber(t[2]) / 1000)
              redis.call('ZADD', KEYS[2], ms, ARGV[6])
              redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ms - 60000)
              redis.call('PEXPIRE', KEYS[2], 120000)
              fleet = redis.call('ZCARD', KEYS[2])
            end
            local start = now
            if paused and paused > start then start = paused end
            if tat and tat - tau > start then start = tat - tau end
            local wait = start - now
            if wait > maxWait then return {0, clamp(wait), base, 0, fleet} end
            if tat == nil or start > tat then tat = start + T else tat = tat + T end
            if last ~= nil and start == last then count = count + 1 else last = start; count = 1 end
            interval = T
            save()
            return {1, clamp(wait), base, clamp(start), fleet}
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
          elseif op == 'learn' then
            learned = tonumber(ARGV[2])
            learnedUntil = now + tonumber(ARGV[3])
            save()
            return {1}
          elseif op == 'paused' then
            if paused == nil then return {0, 0} end
            return {1, clamp(paused - now)}
          end
          return redis.error_reply('unknown pacer operation ' .. tostring(op))
          """);

  private static final byte[] GET = bytes("get");
  private static final byte[] SET = bytes("set");

  /** How often {@link #updateControl} reads again after another process wrote first. */
  static final int CONTROL_ATTEMPTS = 8;

  /** How long a fleet's learned controller outlives its last change: ten minutes. */
  static final long CONTROL_TTL_MILLIS = 600_000;

  /** The longest controller state kept, in numbers: a longer one is another program's value. */
  static final int CONTROL_MAX_NUMBERS = 1024;

  static final Script CONTROL =
      Script.of(
          "pacer-control",
          """
          -- Relent pacer's shared rate controller: a versioned list of numbers (PacerState).
          -- KEYS[1] the hash; ARGV[1] 'get', or 'set' with the version read, the state, the TTL (ms).
          local key = KEYS[1]
          local op = ARGV[1]
          if op == 'get' then
            local t = redis.call('TIME')
            local f = redis.call('HMGET', key, 'version', 'state')
            return {tonumber(t[1]), tonumber(t[2]), tonumber(f[1]) or 0, f[2] or ''}
          elseif op == 'set' then
            local version = tonumber(redis.call('HGET', key, 'version')) or 0
            if version ~= tonumber(ARGV[2]) then return {0, version} end
            redis.call('HSET', key, 'version', version + 1, 'state', ARGV[3])
            redis.call('PEXPIRE', key, ARGV[4])
            return {1, version + 1}
          end
          return redis.error_reply('unknown pacer control operation ' .. tostring(op))
          """);

  private final RelentRedis redis;
  private final String name;
  private final String keyText;
  private final byte[][] keys;
  private final String controlKeyText;
  private final byte[][] controlKeys;
  private final byte[] instance;
  private final Ticker ticker;
  private final RecentStarts recent = new RecentStarts(RECENT);
  private final ClockOffset clockOffset = new ClockOffset();

  /** Whether this instance has reserved on Redis: a schedule missing after that was lost. */
  private volatile boolean reservedOnRedis;

  /** Whether this instance used its fallback since its last reservation on Redis. */
  private volatile boolean afterFallback;

  /**
   * The processes seen reserving on this schedule in the last minute, at the last reservation that
   * refreshed this instance's membership.
   */
  private volatile int fleet = 1;

  /** When this instance last refreshed its membership of the fleet, in its ticker's time. */
  private volatile long membershipAt = Long.MIN_VALUE;

  /** The latest end of a pause this instance sent or read, in its ticker's time. */
  private volatile long knownPause = Long.MIN_VALUE;

  private final Object localLock = new Object();
  private PacerState local;
  private long localEpoch;
  private boolean burstLeft;

  RedisPacerState(RelentRedis redis, String name, Ticker ticker) {
    this.redis = Objects.requireNonNull(redis, "redis cannot be null");
    this.name = name;
    this.keyText = keyOf(name);
    this.keys = new byte[][] {bytes(keyText), bytes(guardKey(name, "members"))};
    this.controlKeyText = guardKey(name, "control");
    this.controlKeys = new byte[][] {bytes(controlKeyText)};
    this.instance = bytes(redis.instanceId());
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
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public long reserve(long nowNanos, long intervalNanos, long toleranceNanos, long maxWaitNanos) {
    return redis.guarded(
        () -> reserveOnRedis(nowNanos, intervalNanos, toleranceNanos, maxWaitNanos),
        () ->
            local(nowNanos, toleranceNanos)
                .reserve(nowNanos, share(intervalNanos), toleranceNanos, maxWaitNanos));
  }

  private long reserveOnRedis(
      long nowNanos, long intervalNanos, long toleranceNanos, long maxWaitNanos) {
    byte[] spent = afterFallback ? SPENT_AFTER_FALLBACK : reservedOnRedis ? SPENT_IF_LOST : FRESH;
    // The membership of the fleet is refreshed about once a second, not at every decision: four
    // commands of the script's eight.
    long readAt = ticker.read();
    boolean refresh =
        membershipAt == Long.MIN_VALUE || readAt - membershipAt >= MEMBERSHIP_REFRESH_NANOS;
    List<Object> reply =
        redis.runOn(
            SCRIPT,
            keyText,
            keys,
            RESERVE,
            number(intervalNanos),
            number(toleranceNanos),
            number(maxWaitNanos),
            spent,
            refresh ? instance : NO_INSTANCE);
    long seen = (Long) reply.get(4);
    if (seen >= 0) {
      fleet = (int) Math.min(Integer.MAX_VALUE, seen);
      membershipAt = readAt;
    }
    long wait = saturated((Long) reply.get(1));
    if ((Long) reply.get(0) == 0) {
      return -wait;
    }
    reservedOnRedis = true;
    afterFallback = false;
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
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public boolean refund(long reservedAtNanos, long intervalNanos) {
    return redis.guarded(
        () -> refundOnRedis(reservedAtNanos, intervalNanos),
        () -> local(reservedAtNanos, 0).refund(reservedAtNanos, share(intervalNanos)));
  }

  private boolean refundOnRedis(long reservedAtNanos, long intervalNanos) {
    long redisStart = recent.take(reservedAtNanos);
    if (redisStart == RecentStarts.NONE) {
      return false;
    }
    List<Object> reply =
        redis.runOn(
            SCRIPT,
            keyText,
            keys,
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
   * it to its own clock when the command arrives. In the fallback, the pause is kept in memory.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public void pauseUntil(long untilNanos) {
    if (untilNanos == Long.MIN_VALUE) {
      return; // "never": raises nothing
    }
    remember(untilNanos);
    redis.guarded(
        () -> {
          long left = saturatedAdd(untilNanos, -ticker.read());
          return redis.runOn(SCRIPT, keyText, keys, PAUSE, number(left));
        },
        () -> {
          local(ticker.read(), 0).pauseUntil(untilNanos);
          return null;
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>A reading of this state's ticker: the time left on Redis's clock added to the midpoint of
   * the readings before and after the round trip. In the fallback, the pause kept in memory, which
   * starts from the latest pause this instance knew of.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public long pausedUntil() {
    return redis.guarded(this::pausedOnRedis, () -> local(ticker.read(), 0).pausedUntil());
  }

  private long pausedOnRedis() {
    long before = ticker.read();
    List<Object> reply = redis.runOn(SCRIPT, keyText, keys, PAUSED);
    long after = ticker.read();
    if ((Long) reply.get(0) == 0) {
      return Long.MIN_VALUE;
    }
    long middle = before + (after - before) / 2;
    long until = saturatedAdd(middle, saturated((Long) reply.get(1)));
    remember(until);
    return until;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Kept in the schedule's hash on Redis's clock, so every process's next reservation uses it
   * (the burst tolerance scaled with it, so the burst keeps its number of starts). In the fallback
   * it does nothing: this process's pacer already uses what it learned.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public void shareInterval(long intervalNanos, long holdNanos) {
    if (intervalNanos <= 0 || holdNanos <= 0) {
      throw new IllegalArgumentException(
          "interval and hold must be > 0: " + intervalNanos + " ns, " + holdNanos + " ns");
    }
    redis.guarded(
        () -> redis.runOn(SCRIPT, keyText, keys, LEARN, number(intervalNanos), number(holdNanos)),
        () -> null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Kept in {@code relent:{name}:control}, a hash of a version and the numbers, which expires
   * ten minutes after the last change: a fleet that runs again within them starts from what it
   * learned. A read and a conditional write, two round trips; the shared clock is Redis's ({@code
   * TIME}, in nanoseconds since the epoch), its offset from this instance's ticker measured on the
   * reads, from the one of the shortest round trip in the last minute (as NTP does). A value that
   * is not a list of numbers (another program's) counts as none, and is overwritten. In the
   * fallback it returns null.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public long[] updateControl(ControlUpdate update) {
    Objects.requireNonNull(update, "update cannot be null");
    return redis.guarded(() -> updateControlOnRedis(update), () -> null);
  }

  private long[] updateControlOnRedis(ControlUpdate update) {
    for (int attempt = 0; attempt < CONTROL_ATTEMPTS; attempt++) {
      long before = ticker.read();
      List<Object> read = redis.runOn(CONTROL, controlKeyText, controlKeys, GET);
      long after = ticker.read();
      long redisNanos = (Long) read.get(0) * 1_000_000_000L + (Long) read.get(1) * 1_000L;
      long offset = clockOffset.sample(before, after, redisNanos);
      long version = (Long) read.get(2);
      long[] next = update.apply(decode((byte[]) read.get(3)), offset);
      List<Object> written =
          redis.runOn(
              CONTROL,
              controlKeyText,
              controlKeys,
              SET,
              number(version),
              encode(next),
              number(CONTROL_TTL_MILLIS));
      if ((Long) written.get(0) == 1) {
        return next;
      }
    }
    return null;
  }

  /** The numbers as decimal text, comma-separated. */
  static byte[] encode(long[] numbers) {
    StringBuilder text = new StringBuilder(numbers.length * 12);
    for (int i = 0; i < numbers.length; i++) {
      if (i > 0) {
        text.append(',');
      }
      text.append(numbers[i]);
    }
    return bytes(text.toString());
  }

  /** The numbers of {@link #encode}, or null for an empty value or one that is not such a list. */
  static long[] decode(byte[] value) {
    if (value == null || value.length == 0) {
      return null;
    }
    String[] parts = new String(value, StandardCharsets.US_ASCII).split(",", -1);
    if (parts.length > CONTROL_MAX_NUMBERS) {
      return null;
    }
    long[] numbers = new long[parts.length];
    try {
      for (int i = 0; i < parts.length; i++) {
        numbers[i] = Long.parseLong(parts[i]);
      }
    } catch (NumberFormatException notOurs) {
      return null;
    }
    return numbers;
  }

  /**
   * {@inheritDoc}
   *
   * @return true: every process naming this pacer on this Redis shares it
   */
  @Override
  public boolean isShared() {
    return true;
  }

  /**
   * Returns the name under which a scope's guards are kept on Redis: the scope's kind and name,
   * {@code endpoint:GET%20/v1/items/%7Bid%7D}, with every character a Redis name may not hold
   * (spaces, braces, controls, non-ASCII, and {@code %} itself) percent-encoded from its UTF-8
   * bytes, so two scopes never share a name; a name that would pass 200 characters is the kind and
   * the SHA-256 of the scope's name instead. For a {@link dev.relent.guard.GuardRegistry} factory
   * whose pacers share their schedule, and so their pauses, across processes.
   *
   * @param scope the scope
   * @return a valid pacer, budget, breaker or concurrency limit name
   * @throws NullPointerException if {@code scope} is null
   */
  public static String nameOf(Scope scope) {
    Objects.requireNonNull(scope, "scope cannot be null");
    String kind = scope.kind().slug();
    StringBuilder name = new StringBuilder(kind).append(':');
    for (byte b : scope.name().getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (c > ' ' && c <= '~' && c != '{' && c != '}' && c != '%') {
        name.append((char) c);
      } else {
        name.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        name.append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    if (name.length() <= 200) {
      return name.toString();
    }
    return kind + ":sha256:" + sha256(scope.name());
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /**
   * Returns the processes seen reserving on this schedule in the last minute, as Redis counted them
   * when this instance last refreshed its membership (its first reservation, then at most once a
   * second): the {@code n} of the fallback's {@code 1/n} share, unless the declared expected
   * instances are more.
   *
   * @return &ge; 1
   */
  public int processesSeen() {
    return fleet;
  }

  /**
   * The in-memory schedule of the fallback: made afresh each time the guards go to memory, with the
   * burst taken as spent (one start at once, then the share's interval) and the latest pause this
   * instance knew of.
   */
  private PacerState local(long nowNanos, long toleranceNanos) {
    afterFallback = true;
    synchronized (localLock) {
      long epoch = redis.failover().epoch();
      if (local == null || localEpoch != epoch) {
        local = PacerState.inMemory();
        local.pauseUntil(knownPause);
        localEpoch = epoch;
        burstLeft = true;
      }
      if (burstLeft && toleranceNanos > 0) {
        // A start as long as the burst, at once: the schedule as if the burst had just been used.
        local.reserve(nowNanos, toleranceNanos, 0, Long.MAX_VALUE);
        burstLeft = false;
      }
      return local;
    }
  }

  private long share(long intervalNanos) {
    int n = Math.max(redis.failover().expectedInstances(), fleet);
    return intervalNanos > Long.MAX_VALUE / n ? Long.MAX_VALUE : intervalNanos * n;
  }

  private void remember(long untilNanos) {
    if (untilNanos > knownPause) {
      knownPause = untilNanos;
    }
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

  /**
   * The offset from this instance's ticker to Redis's clock, as NTP keeps it: from the sample of
   * the shortest round trip, since the midpoint of a round trip is off by at most half of it, and a
   * thread that is descheduled between its readings (a loaded machine, a JVM warming up) makes a
   * long one. A sample older than {@value #OFFSET_MAX_AGE_NANOS} ns is replaced by the next, so
   * that the two clocks' drift is followed. Thread-safe.
   */
  static final class ClockOffset {
    static final long OFFSET_MAX_AGE_NANOS = 60_000_000_000L;

    private long bestRoundTrip = Long.MAX_VALUE;
    private long bestAt;
    private long offset;

    /**
     * Takes one sample, a Redis time read between two ticker readings; returns the offset to use.
     */
    synchronized long sample(long before, long after, long redisNanos) {
      long roundTrip = Math.max(0, after - before);
      if (roundTrip <= bestRoundTrip || after - bestAt > OFFSET_MAX_AGE_NANOS) {
        bestRoundTrip = roundTrip;
        bestAt = after;
        offset = redisNanos - (before + roundTrip / 2);
      }
      return offset;
    }
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
