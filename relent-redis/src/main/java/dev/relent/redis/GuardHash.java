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
