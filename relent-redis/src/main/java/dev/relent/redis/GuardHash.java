package dev.relent.redis;

import static dev.relent.redis.Script.bytes;
import static dev.relent.redis.Script.number;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The one hash of a guard state that keeps a window on Redis (a circuit breaker's, a retry
 * budget's): its name and key, its script, and which clock the script reads. Immutable and
 * thread-safe.
 */
final class GuardHash {
  /**
   * The Lua functions of bucketed windows that the breaker's and the budget's scripts share: {@code
   * floordiv(x, d)}, floor division exact for whole numbers held in doubles; {@code
   * bucketOf(micros, B)}, the bucket of {@code B} ns that holds a time of Redis's clock in
   * microseconds since 1970 (exact: those fit a double); and {@code clearAfter(key, head, idx, N,
   * a, b)}, which empties the ring slots (fields {@code a<slot>} and {@code b<slot>}) of the
   * buckets after {@code head} up to {@code idx}, all {@code N} at most.
   */
  static final String LUA_BUCKETS =
      """
      local function floordiv(x, d)
        local q = math.floor(x / d)
        if q * d > x then q = q - 1 elseif (q + 1) * d <= x then q = q + 1 end
        return q
      end
      local function bucketOf(micros, B)
        if B % 1000 == 0 then return floordiv(micros, B / 1000) end
        return floordiv(micros * 1000, B)
      end
      local function clearAfter(key, head, idx, N, a, b)
        local steps = idx - head
        if steps > N then steps = N end
        for k = 1, steps do
          local slot = (head + k) % N
          redis.call('HDEL', key, a .. slot, b .. slot)
        end
      end
      """;

  /** The clock argument that tells a script to read Redis's {@code TIME}. */
  private static final byte[] REDIS_CLOCK = new byte[0];

  private final RelentRedis redis;
  private final Script script;
  private final String name;
  private final String keyText;
  private final byte[] key;
  private final boolean callerClock;

  /**
   * Names the hash of one guard state.
   *
   * @param keyText the hash's key, from the name (which the key's maker checked)
   * @param callerClock whether the script counts on the caller's {@code nowNanos} instead of
   *     Redis's clock (for tests on a fake ticker)
   */
  GuardHash(RelentRedis redis, Script script, String name, String keyText, boolean callerClock) {
    this.redis = Objects.requireNonNull(redis, "redis cannot be null");
    this.script = script;
    this.name = name;
    this.keyText = keyText;
    this.key = bytes(keyText);
    this.callerClock = callerClock;
  }

  String name() {
    return name;
  }

  String key() {
    return keyText;
  }

  /** Runs an operation on Redis, or its in-memory fallback while Redis is away. */
  <T> T guarded(Supplier<T> onRedis, Supplier<T> inMemory) {
    return redis.guarded(onRedis, inMemory);
  }

  /**
   * Runs the script on the hash with {@code ARGV} = the operation, the settings, then the clock:
   * {@code nowNanos} if the state counts on the caller's clock, else empty (Redis's own).
   */
  List<Object> run(byte[] op, long nowNanos, byte[]... settings) {
    byte[][] args = new byte[settings.length + 2][];
    args[0] = op;
    System.arraycopy(settings, 0, args, 1, settings.length);
    args[args.length - 1] = callerClock ? number(nowNanos) : REDIS_CLOCK;
    return redis.run(script, keyText, key, args);
  }

  /** The state's text: its type, key and connection, e.g. {@code T[relent:{a}:budget at uri]}. */
  String describe(String type) {
    return type + "[" + keyText + " at " + redis.uri() + "]";
  }
}
