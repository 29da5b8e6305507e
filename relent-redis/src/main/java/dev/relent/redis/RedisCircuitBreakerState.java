package dev.relent.redis;

import static dev.relent.redis.Script.bytes;
import static dev.relent.redis.Script.number;

import dev.relent.spi.CircuitBreakerState;
import java.util.List;
import java.util.Objects;

/**
 * A {@link CircuitBreakerState} in Redis: every process that uses the same name on the same Redis
 * counts its outcomes in one window, opens and closes with the others, and shares the half-open
 * probes. Made by {@link RelentRedis#circuitBreakerState(String)}.
 *
 * <p>Each method is one {@code EVALSHA} round trip of one Lua script, atomic on the server, that
 * runs the rules of {@link CircuitBreakerState} ({@link CircuitBreakerState#shouldOpen} in the same
 * double arithmetic, {@link CircuitBreakerState#openNanosLeft}). The price, as the SPI says: a
 * round trip for each permission and each outcome; while Redis is away, the fallback below.
 *
 * <p>Time base: the open period and the buckets of a time window are measured on Redis's own clock
 * ({@code TIME}); the caller's {@code nowNanos} is not sent, and the durations returned ({@link
 * #tryAcquirePermission}) are on Redis's clock. Times in the hash are nanoseconds since a base
 * second kept beside them, so Lua's doubles hold them to the nanosecond for 104 days of a key's
 * life, and to a few nanoseconds after.
 *
 * <p>Key: {@code relent:{name}:breaker}, a hash of the mode, the open time, the probe counters and
 * the window (a ring of outcomes, or counts per bucket). It expires a day, or three times the open
 * duration or the time window if longer, after the last change: a breaker idle that long is
 * forgotten, and starts closed.
 *
 * <p>Failure: if Redis does not answer within the {@linkplain RelentRedis#commandTimeout() command
 * timeout}, or cannot be reached, the state follows the connection's {@link RedisFallback}: by
 * default an in-memory breaker that judges this process's own outcomes until Redis answers again
 * (an outcome of a call permitted on the other side is recorded where the state is when it
 * arrives). With {@link RedisFallback#none()}, every method throws {@link RedisStoreException}
 * naming the URI (never the password) and the key.
 *
 * <p>Thread-safe. Like the in-memory state, it takes its window from the first call that stored one
 * and refuses another ({@link IllegalArgumentException}).
 */
public final class RedisCircuitBreakerState implements CircuitBreakerState {

  private static final byte[] ACQUIRE = bytes("acquire");
  private static final byte[] SUCCESS = bytes("success");
  private static final byte[] FAILURE = bytes("failure");
  private static final byte[] RELEASE = bytes("release");
  private static final byte[] SNAPSHOT = bytes("snapshot");

  /** Index = the script's change code; 0 is none. */
  private static final Change[] CHANGES = {
    null,
    Change.CLOSED_TO_OPEN,
    Change.OPEN_TO_HALF_OPEN,
    Change.HALF_OPEN_TO_CLOSED,
    Change.HALF_OPEN_TO_OPEN
  };

  private static final Phase[] PHASES = Phase.values();

  static final Script SCRIPT =
      Script.of(
          "circuit breaker",
          """
          -- Relent circuit breaker state (CircuitBreakerState). KEYS[1] the hash; ARGV: op,
          -- windowCalls, bucketNanos, buckets, minimumCalls, threshold, openDuration, probes,
          -- now (empty: Redis's clock). Modes c, o, h; change codes 1 closed->open,
          -- 2 open->half-open, 3 half-open->closed, 4 half-open->open.
          """
              + GuardHash.LUA_BUCKETS
              + """
          local key = KEYS[1]
          local op = ARGV[1]
          local W, B, N = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
          local minCalls, threshold = tonumber(ARGV[5]), tonumber(ARGV[6])
          local D, probes = tonumber(ARGV[7]), tonumber(ARGV[8])
          local cfg = ARGV[2] .. '/' .. ARGV[3] .. '/' .. ARGV[4]
          local s = redis.call('HMGET', key, 'cfg', 'mode', 'openedAt', 'inFlight', 'succeeded',
            'base', 'head', 'len', 'pos', 'fails')
          if s[1] and s[1] ~= cfg then return {-99} end
          local mode = s[2] or 'c'
          local openedAt = tonumber(s[3]) or 0
          local inFlight, succeeded = tonumber(s[4]) or 0, tonumber(s[5]) or 0
          local base, head = tonumber(s[6]), tonumber(s[7])
          local len, pos, fails = tonumber(s[8]) or 0, tonumber(s[9]) or 0, tonumber(s[10]) or 0
          local now, idx
          if ARGV[9] == '' then
            local t = redis.call('TIME')
            local sec, usec = tonumber(t[1]), tonumber(t[2])
            if base == nil then base = sec end
            now = (sec - base) * 1e9 + usec * 1000
            if B > 0 then idx = bucketOf(sec * 1000000 + usec, B) end
          else
            base = base or 0
            now = tonumber(ARGV[9])
            if B > 0 then idx = floordiv(now, B) end
          end
          local dirty = false
          local function openLeft()
            local elapsed = now - openedAt
            if elapsed >= D then return 0 end
            return D - elapsed
          end
          local function enter(m) mode = m; inFlight = 0; succeeded = 0; dirty = true end
          local function advance()
            if head == nil then head = idx; dirty = true; return end
            if idx > head then
              clearAfter(key, head, idx, N, 'c', 'f')
              head = idx; dirty = true
            end
          end
          local function totals()
            if W > 0 then return len, fails end
            local calls, f = 0, 0
            for slot = 0, N - 1 do
              calls = calls + (tonumber(redis.call('HGET', key, 'c' .. slot)) or 0)
              f = f + (tonumber(redis.call('HGET', key, 'f' .. slot)) or 0)
            end
            return calls, f
          end
          local function clearWindow()
            if W > 0 then
              for i = 0, W - 1 do redis.call('HDEL', key, 'w' .. i) end
              len = 0; pos = 0; fails = 0
            else
              for slot = 0, N - 1 do redis.call('HDEL', key, 'c' .. slot, 'f' .. slot) end
            end
            dirty = true
          end
          local function record(failure)
            if W > 0 then
              if len == W then
                fails = fails - (tonumber(redis.call('HGET', key, 'w' .. pos)) or 0)
              else
                len = len + 1
              end
              redis.call('HSET', key, 'w' .. pos, failure and '1' or '0')
              if failure then fails = fails + 1 end
              pos = (pos + 1) % W
            else
              advance()
              if idx > head - N then
                local slot = idx % N
                redis.call('HINCRBY', key, 'c' .. slot, 1)
                if failure then redis.call('HINCRBY', key, 'f' .. slot, 1) end
              end
            end
            dirty = true
          end
          local result
          if op == 'acquire' then
            if mode == 'c' then
              result = {0}
            else
              local halfOpened = false
              if mode == 'o' then
                local left = openLeft()
                if left > 0 then result = {left} else enter('h'); halfOpened = true end
              end
              if result == nil then
                if inFlight + succeeded < probes then
                  inFlight = inFlight + 1; dirty = true
                  if halfOpened then result = {-1} else result = {0} end
                else
                  result = {D}
                end
              end
            end
          elseif op == 'success' or op == 'failure' then
            local failure = op == 'failure'
            result = {0}
            if mode == 'c' then
              record(failure)
              local calls, f = totals()
              if calls >= minCalls and f * 100.0 >= threshold * calls then
                openedAt = now; enter('o'); result = {1}
              end
            elseif mode == 'h' and inFlight > 0 then
              if failure then
                openedAt = now; enter('o'); result = {4}
              else
                inFlight = inFlight - 1; succeeded = succeeded + 1; dirty = true
                if succeeded >= probes then clearWindow(); enter('c'); result = {3} end
              end
            end
          elseif op == 'release' then
            if mode == 'h' and inFlight > 0 then inFlight = inFlight - 1; dirty = true end
            result = {0}
          elseif op == 'snapshot' then
            local change = 0
            if mode == 'o' and openLeft() == 0 then enter('h'); change = 2 end
            if mode == 'c' and W == 0 then advance() end
            local calls, f = totals()
            local code = 2
            if mode == 'c' then code = 0 elseif mode == 'o' then code = 1 end
            local left = 0
            if mode == 'o' then left = openLeft() end
            result = {code, calls, f, inFlight, succeeded, change, left}
          else
            return redis.error_reply('unknown circuit breaker operation ' .. tostring(op))
          end
          if dirty then
            local fmt = function(x) return string.format('%.0f', x) end
            redis.call('HSET', key, 'cfg', cfg, 'mode', mode, 'openedAt', fmt(openedAt),
              'inFlight', fmt(inFlight), 'succeeded', fmt(succeeded), 'base', fmt(base),
              'len', fmt(len), 'pos', fmt(pos), 'fails', fmt(fails))
            if head ~= nil then redis.call('HSET', key, 'head', fmt(head)) end
            local horizon = D
            if B * N > horizon then horizon = B * N end
            local ms = math.ceil(horizon * 3 / 1000000) + 1000
            if ms < 86400000 then ms = 86400000 end
            if ms > 31536000000 then ms = 31536000000 end
            redis.call('PEXPIRE', key, fmt(ms))
          end
          return result
          """);

  private final GuardHash hash;
  private final CircuitBreakerState local = CircuitBreakerState.inMemory();

  RedisCircuitBreakerState(RelentRedis redis, String name, boolean callerClock) {
    this.hash = new GuardHash(redis, SCRIPT, name, keyOf(name), callerClock);
  }

  /**
   * Returns the Redis key of a circuit breaker's state.
   *
   * @param name 1 to 200 printable ASCII characters, no spaces or braces
   * @return {@code relent:{name}:breaker}
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if the name is empty, too long or has other characters
   */
  public static String keyOf(String name) {
    return RedisPacerState.guardKey(name, "breaker");
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public long tryAcquirePermission(long nowNanos, Config config) {
    return hash.guarded(
        () -> (Long) run(ACQUIRE, nowNanos, config).get(0),
        () -> local.tryAcquirePermission(nowNanos, config));
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public Change onSuccess(long nowNanos, Config config) {
    return hash.guarded(
        () -> CHANGES[((Long) run(SUCCESS, nowNanos, config).get(0)).intValue()],
        () -> local.onSuccess(nowNanos, config));
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public Change onFailure(long nowNanos, Config config) {
    return hash.guarded(
        () -> CHANGES[((Long) run(FAILURE, nowNanos, config).get(0)).intValue()],
        () -> local.onFailure(nowNanos, config));
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public void releasePermission(Config config) {
    hash.guarded(
        () -> run(RELEASE, 0, config),
        () -> {
          local.releasePermission(config);
          return null;
        });
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public Snapshot snapshot(long nowNanos, Config config) {
    return hash.guarded(
        () -> snapshotOnRedis(nowNanos, config), () -> local.snapshot(nowNanos, config));
  }

  private Snapshot snapshotOnRedis(long nowNanos, Config config) {
    List<Object> r = run(SNAPSHOT, nowNanos, config);
    return new Snapshot(
        PHASES[((Long) r.get(0)).intValue()],
        (Long) r.get(1),
        (Long) r.get(2),
        ((Long) r.get(3)).intValue(),
        ((Long) r.get(4)).intValue(),
        CHANGES[((Long) r.get(5)).intValue()],
        (Long) r.get(6));
  }

  /**
   * Returns the breaker's name.
   *
   * @return the name given at creation
   */
  public String name() {
    return hash.name();
  }

  @Override
  public String toString() {
    return hash.describe("RedisCircuitBreakerState");
  }

  private List<Object> run(byte[] op, long nowNanos, Config config) {
    Objects.requireNonNull(config, "config cannot be null");
    List<Object> reply =
        hash.run(
            op,
            nowNanos,
            number(config.windowCalls()),
            number(config.bucketNanos()),
            number(config.buckets()),
            number(config.minimumCalls()),
            bytes(Double.toString(config.failureRateThreshold())),
            number(config.openDurationNanos()),
            number(config.halfOpenProbes()));
    if ((Long) reply.get(0) == -99) {
      throw new IllegalArgumentException(
          hash.key()
              + " already keeps another window than windowCalls "
              + config.windowCalls()
              + ", "
              + config.buckets()
              + " buckets of "
              + config.bucketNanos()
              + " ns: give each breaker its own name");
    }
    return reply;
  }
}
