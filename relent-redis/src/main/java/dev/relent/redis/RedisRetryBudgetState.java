package dev.relent.redis;

import static dev.relent.redis.Script.bytes;
import static dev.relent.redis.Script.number;

import dev.relent.spi.RetryBudgetState;
import java.util.List;
import java.util.Objects;

/**
 * A {@link RetryBudgetState} in Redis: every process that uses the same name on the same Redis
 * counts its first attempts and retries in one window, so the whole fleet keeps one retry ratio.
 * Made by {@link RelentRedis#retryBudgetState(String)}.
 *
 * <p>Each method is one {@code EVALSHA} round trip of one Lua script, atomic on the server, that
 * runs the rules of {@link RetryBudgetState} (the same buckets as the in-memory state, and {@link
 * RetryBudgetState#limit}).
 *
 * <p>Time base: the buckets are those of Redis's own clock ({@code TIME}); the caller's {@code
 * nowNanos} is not sent, so processes whose tickers differ still fill the same buckets. Bucket
 * {@code i} holds the events with {@code floorDiv(redisNanos, bucketNanos) == i}; for a bucket
 * width that is a whole number of microseconds (every realistic one) the division is exact.
 *
 * <p>Key: {@code relent:{name}:budget}, a hash of the newest bucket seen and one count per bucket
 * slot; it expires twice the window plus one second after the last change. Pacers, budgets and
 * breakers of one name share a hash tag, so they sit on one cluster slot.
 *
 * <p>Failure: if Redis does not answer within the {@linkplain RelentRedis#commandTimeout() command
 * timeout}, or cannot be reached, the state follows the connection's {@link RedisFallback}: by
 * default an in-memory budget over this process's own attempts, at the same ratio, until Redis
 * answers again. With {@link RedisFallback#none()}, every method throws {@link RedisStoreException}
 * naming the URI (never the password) and the key.
 *
 * <p>Thread-safe. Like the in-memory state, it takes its window from the first call that stored one
 * and refuses another window ({@link IllegalArgumentException}).
 */
public final class RedisRetryBudgetState implements RetryBudgetState {

  private static final byte[] FIRST = bytes("first");
  private static final byte[] RETRY = bytes("retry");
  private static final byte[] COUNTS = bytes("counts");

  static final Script SCRIPT =
      Script.of(
          "retry budget",
          """
          -- Relent retry budget state: first attempts and retries over sliding buckets.
          -- KEYS[1] the hash; ARGV: op, bucketNanos, buckets, ratioMillionths, minRetries, now
          -- (empty: Redis's clock). Fields: cfg, head, f<slot>, r<slot>.
          """
              + GuardHash.LUA_BUCKETS
              + """
          local key = KEYS[1]
          local op, B, N = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
          local ratio, minRetries = tonumber(ARGV[4]), tonumber(ARGV[5])
          local idx
          if ARGV[6] == '' then
            local t = redis.call('TIME')
            idx = bucketOf(tonumber(t[1]) * 1000000 + tonumber(t[2]), B)
          else
            idx = floordiv(tonumber(ARGV[6]), B)
          end
          local cfg = ARGV[2] .. '/' .. ARGV[3]
          local h = redis.call('HMGET', key, 'cfg', 'head')
          if h[1] and h[1] ~= cfg then return {-1, 0, 0} end
          local head = tonumber(h[2])
          local changed = false
          if head == nil then
            head = idx; changed = true
          elseif idx > head then
            clearAfter(key, head, idx, N, 'f', 'r')
            head = idx; changed = true
          end
          local function total(prefix)
            local sum = 0
            for slot = 0, N - 1 do sum = sum + (tonumber(redis.call('HGET', key, prefix .. slot)) or 0) end
            return sum
          end
          local result = 0
          if op == 'first' then
            if idx > head - N then
              redis.call('HINCRBY', key, 'f' .. (idx % N), 1); changed = true
            end
          elseif op == 'retry' then
            local firsts, retries = total('f'), total('r')
            local limit = minRetries + math.floor(firsts * ratio / 1000000)
            if retries < limit then
              redis.call('HINCRBY', key, 'r' .. (head % N), 1); changed = true; result = 1
            end
          elseif op ~= 'counts' then
            return redis.error_reply('unknown retry budget operation ' .. tostring(op))
          end
          if changed then
            redis.call('HSET', key, 'cfg', cfg, 'head', string.format('%.0f', head))
            local ms = math.ceil(B * N * 2 / 1000000) + 1000
            if ms > 31536000000 then ms = 31536000000 end
            redis.call('PEXPIRE', key, string.format('%.0f', ms))
          end
          if op == 'counts' then return {1, total('f'), total('r')} end
          return {1, result, 0}
          """);

  private final GuardHash hash;
  private final RetryBudgetState local = RetryBudgetState.inMemory();

  RedisRetryBudgetState(RelentRedis redis, String name, boolean callerClock) {
    this.hash = new GuardHash(redis, SCRIPT, name, keyOf(name), callerClock);
  }

  /**
   * Returns the Redis key of a retry budget's counts.
   *
   * @param name 1 to 200 printable ASCII characters, no spaces or braces
   * @return {@code relent:{name}:budget}
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if the name is empty, too long or has other characters
   */
  public static String keyOf(String name) {
    return RedisPacerState.guardKey(name, "budget");
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   * @throws IllegalArgumentException if the key already counts over another window
   */
  @Override
  public void recordFirstAttempt(long nowNanos, Config config) {
    hash.guarded(
        () -> run(FIRST, nowNanos, config),
        () -> {
          local.recordFirstAttempt(nowNanos, config);
          return null;
        });
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   * @throws IllegalArgumentException if the key already counts over another window
   */
  @Override
  public boolean tryAcquireRetry(long nowNanos, Config config) {
    return hash.guarded(
        () -> (Long) run(RETRY, nowNanos, config).get(1) == 1,
        () -> local.tryAcquireRetry(nowNanos, config));
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public long firstAttempts(long nowNanos, Config config) {
    return hash.guarded(
        () -> (Long) run(COUNTS, nowNanos, config).get(1),
        () -> local.firstAttempts(nowNanos, config));
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public long retries(long nowNanos, Config config) {
    return hash.guarded(
        () -> (Long) run(COUNTS, nowNanos, config).get(2), () -> local.retries(nowNanos, config));
  }

  /**
   * Returns the budget's name.
   *
   * @return the name given at creation
   */
  public String name() {
    return hash.name();
  }

  @Override
  public String toString() {
    return hash.describe("RedisRetryBudgetState");
  }

  private List<Object> run(byte[] op, long nowNanos, Config config) {
    Objects.requireNonNull(config, "config cannot be null");
    List<Object> reply =
        hash.run(
            op,
            nowNanos,
            number(config.bucketNanos()),
            number(config.buckets()),
            number(config.ratioMillionths()),
            number(config.minRetries()));
    if ((Long) reply.get(0) == -1) {
      throw new IllegalArgumentException(
          hash.key()
              + " already counts over another window than "
              + config.buckets()
              + " buckets of "
              + config.bucketNanos()
              + " ns: give each budget its own name");
    }
    return reply;
  }
}
