package dev.relent.redis;

import static dev.relent.redis.Script.bytes;
import static dev.relent.redis.Script.number;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.idempotency.spi.IdempotencyStore;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@link IdempotencyStore} in Redis, shared by every process that uses the same namespace on the
 * same Redis. Made by {@link RelentRedis#idempotencyStore(String)}.
 *
 * <p>Each record is one hash, {@code relent:idem:<namespace>:<scope length>:<scope>:<key>} (the
 * length keeps any scope and key apart), with the fingerprint, the owner token, the state, the
 * creation and expiry times, and once completed the status, the headers (a length-prefixed binary
 * list, order kept) and the body. {@link #begin}, {@link #complete}, {@link #release} are each one
 * {@code EVALSHA} round trip of a Lua script, atomic on the server, so two {@code begin} calls for
 * one key never both win, from any number of processes; {@link #find} is one {@code HMGET}.
 *
 * <p>Expiry: the times passed in decide, as the SPI says (a record counts as absent from its expiry
 * on); in addition Redis deletes each record at its expiry by its own clock ({@code PEXPIREAT}), so
 * expired records vanish without {@link #purgeExpired}, which only matters for records whose expiry
 * is judged by a caller clock ahead of Redis's. The callers' wall clocks should be synchronised
 * with Redis's; a record whose expiry is already past on Redis's clock is deleted at once.
 *
 * <p>Failure: if Redis does not answer within the {@linkplain RelentRedis#commandTimeout() command
 * timeout}, or fails, every method throws {@link RedisStoreException} naming the URI (never the
 * password) and the namespace (never a record's scope or key, which may carry personal data). No
 * fallback is chosen here yet.
 *
 * <p>Thread-safe.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {

  private static final String FIELDS_LUA =
      "'fp', 'token', 'state', 'created', 'expires', 'status', 'headers', 'body'";

  static final Script BEGIN =
      Script.of(
          "idempotency begin",
          """
          -- Claims KEYS[1] unless an unexpired record is there: then returns that record.
          -- ARGV: now, fp, token, created, expires (epoch ms)
          local now = tonumber(ARGV[1])
          local f = redis.call('HMGET', KEYS[1], FIELDS)
          if f[5] and tonumber(f[5]) > now then return f end
          redis.call('DEL', KEYS[1])
          redis.call('HSET', KEYS[1], 'fp', ARGV[2], 'token', ARGV[3], 'state', 'i',
            'created', ARGV[4], 'expires', ARGV[5])
          redis.call('PEXPIREAT', KEYS[1], ARGV[5])
          return {}
          """
              .replace("FIELDS", FIELDS_LUA));

  static final Script COMPLETE =
      Script.of(
          "idempotency complete",
          """
          -- Replaces the in-flight record of KEYS[1] owned by ARGV[2] with the completed one.
          -- ARGV: fp, token, created, expires, status, headers, body
          local f = redis.call('HMGET', KEYS[1], 'state', 'token')
          if f[1] ~= 'i' or f[2] ~= ARGV[2] then return {0} end
          redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'c', 'created', ARGV[3],
            'expires', ARGV[4], 'status', ARGV[5], 'headers', ARGV[6], 'body', ARGV[7])
          redis.call('PEXPIREAT', KEYS[1], ARGV[4])
          return {1}
          """);

  static final Script RELEASE =
      Script.of(
          "idempotency release",
          """
          -- Deletes the in-flight record of KEYS[1] owned by ARGV[1].
          local f = redis.call('HMGET', KEYS[1], 'state', 'token')
          if f[1] ~= 'i' or f[2] ~= ARGV[1] then return {0} end
          redis.call('DEL', KEYS[1])
          return {1}
          """);

  static final Script PURGE =
      Script.of(
          "idempotency purge",
          """
          -- Deletes KEYS[1] if its record has expired at ARGV[1] (epoch ms).
          local e = redis.call('HGET', KEYS[1], 'expires')
          if e and tonumber(e) <= tonumber(ARGV[1]) then
            redis.call('DEL', KEYS[1])
            return {1}
          end
          return {0}
          """);

  private static final byte[][] FIELDS = {
    bytes("fp"),
    bytes("token"),
    bytes("state"),
    bytes("created"),
    bytes("expires"),
    bytes("status"),
    bytes("headers"),
    bytes("body")
  };

  private final RelentRedis redis;
  private final String namespace;
  private final String prefix;

  /** What an error message names: the namespace, never a record's scope or key. */
  private final String where;

  RedisIdempotencyStore(RelentRedis redis, String namespace) {
    this.redis = Objects.requireNonNull(redis, "redis cannot be null");
    Objects.requireNonNull(namespace, "namespace cannot be null");
    if (namespace.isEmpty() || !namespace.matches("[A-Za-z0-9._-]{1,100}")) {
      throw new IllegalArgumentException(
          "namespace must be 1 to 100 letters, digits, '.', '_' or '-': " + namespace);
    }
    this.namespace = namespace;
    this.prefix = "relent:idem:" + namespace + ":";
    this.where = prefix + "*";
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public Optional<IdempotencyRecord> begin(IdempotencyRecord inFlight, long nowMillis) {
    Objects.requireNonNull(inFlight, "inFlight cannot be null");
    if (!inFlight.isInFlight()) {
      throw new IllegalArgumentException("begin needs an in-flight record: " + inFlight);
    }
    List<Object> reply =
        redis.run(
            BEGIN,
            where,
            key(inFlight.scope(), inFlight.key()),
            number(nowMillis),
            bytes(inFlight.fingerprint()),
            bytes(inFlight.token()),
            number(inFlight.createdAtMillis()),
            number(inFlight.expiresAtMillis()));
    return reply.isEmpty()
        ? Optional.empty()
        : Optional.of(record(inFlight.scope(), inFlight.key(), reply));
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public boolean complete(IdempotencyRecord completed) {
    Objects.requireNonNull(completed, "completed cannot be null");
    if (completed.isInFlight()) {
      throw new IllegalArgumentException("complete needs a completed record: " + completed);
    }
    List<Object> reply =
        redis.run(
            COMPLETE,
            where,
            key(completed.scope(), completed.key()),
            bytes(completed.fingerprint()),
            bytes(completed.token()),
            number(completed.createdAtMillis()),
            number(completed.expiresAtMillis()),
            number(completed.status()),
            encodeHeaders(completed.headers()),
            completed.body());
    return (Long) reply.get(0) == 1;
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public boolean release(IdempotencyRecord inFlight) {
    Objects.requireNonNull(inFlight, "inFlight cannot be null");
    List<Object> reply =
        redis.run(RELEASE, where, key(inFlight.scope(), inFlight.key()), bytes(inFlight.token()));
    return (Long) reply.get(0) == 1;
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public Optional<IdempotencyRecord> find(String scope, String key, long nowMillis) {
    Objects.requireNonNull(scope, "scope cannot be null");
    Objects.requireNonNull(key, "key cannot be null");
    byte[] redisKey = key(scope, key);
    List<Object> values = new ArrayList<>(FIELDS.length);
    try {
      redis.commands().hmget(redisKey, FIELDS).forEach(kv -> values.add(kv.getValueOrElse(null)));
    } catch (RedisException e) {
      throw redis.failure("idempotency find", where, e);
    }
    if (values.get(4) == null) {
      return Optional.empty();
    }
    IdempotencyRecord record = record(scope, key, values);
    return record.isExpiredAt(nowMillis) ? Optional.empty() : Optional.of(record);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Scans the namespace's keys ({@code SCAN}, a thousand at a time) and deletes each expired
   * record with one atomic script, so a record completed or claimed again meanwhile stays. Redis
   * already deletes records at their expiry on its own clock, so this is rarely needed.
   *
   * @throws RedisStoreException if Redis fails or does not answer in time
   */
  @Override
  public long purgeExpired(long nowMillis) {
    byte[] now = number(nowMillis);
    ScanArgs args = ScanArgs.Builder.matches(globEscaped(prefix) + "*").limit(1000);
    long deleted = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<byte[]> batch;
      try {
        batch = redis.commands().scan(cursor, args);
      } catch (RedisException e) {
        throw redis.failure("idempotency purge scan", where, e);
      }
      for (byte[] key : batch.getKeys()) {
        deleted += (Long) redis.run(PURGE, where, key, now).get(0);
      }
      cursor = batch;
    } while (!cursor.isFinished());
    return deleted;
  }

  /**
   * Returns the namespace.
   *
   * @return the namespace given at creation
   */
  public String namespace() {
    return namespace;
  }

  @Override
  public String toString() {
    return "RedisIdempotencyStore[" + prefix + "* at " + redis.uri() + "]";
  }

  private byte[] key(String scope, String key) {
    return bytes(prefix + scope.length() + ":" + scope + ":" + key);
  }

  private static IdempotencyRecord record(String scope, String key, List<Object> f) {
    String fingerprint = text(f.get(0));
    String token = text(f.get(1));
    long created = Long.parseLong(text(f.get(3)));
    long expires = Long.parseLong(text(f.get(4)));
    if ("i".equals(text(f.get(2)))) {
      return IdempotencyRecord.inFlight(scope, key, fingerprint, token, created, expires);
    }
    return IdempotencyRecord.completed(
        scope,
        key,
        fingerprint,
        token,
        created,
        expires,
        Integer.parseInt(text(f.get(5))),
        decodeHeaders((byte[]) f.get(6)),
        (byte[]) f.get(7));
  }

  /** Headers as: count, then per name its UTF-8 form, its value count and each value's. */
  static byte[] encodeHeaders(Map<String, List<String>> headers) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(buffer)) {
      out.writeInt(headers.size());
      for (Map.Entry<String, List<String>> header : headers.entrySet()) {
        writeString(out, header.getKey());
        out.writeInt(header.getValue().size());
        for (String value : header.getValue()) {
          writeString(out, value);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot happen in memory", e);
    }
    return buffer.toByteArray();
  }

  static Map<String, List<String>> decodeHeaders(byte[] encoded) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
      int names = in.readInt();
      for (int i = 0; i < names; i++) {
        String name = readString(in);
        int count = in.readInt();
        List<String> values = new ArrayList<>(count);
        for (int j = 0; j < count; j++) {
          values.add(readString(in));
        }
        headers.put(name, values);
      }
    } catch (IOException e) {
      throw new IllegalStateException("malformed headers in an idempotency record", e);
    }
    return headers;
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = bytes(s);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String readString(DataInputStream in) throws IOException {
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  /** Escapes the characters that {@code SCAN MATCH} treats as a pattern. */
  private static String globEscaped(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        out.append('\\');
      }
      out.append(c);
    }
    return out.toString();
  }

  private static String text(Object bulk) {
    return new String((byte[]) bulk, StandardCharsets.UTF_8);
  }
}
