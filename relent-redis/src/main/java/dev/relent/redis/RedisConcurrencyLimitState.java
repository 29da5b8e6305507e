package dev.relent.redis;

import static dev.relent.redis.Script.bytes;
import static dev.relent.redis.Script.number;

import dev.relent.spi.ConcurrencyLimitState;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ConcurrencyLimitState} in Redis: every process that uses the same name on the same Redis
 * counts its calls in flight against one limit, and the slots of a process that dies are given back
 * when its lease ends. Made by {@link RelentRedis#concurrencyLimitState(String, Duration)}.
 *
 * <p>Leases: each process (each {@link RelentRedis}, named by an instance id: its process id, a
 * dash and 16 random hex digits) holds its slots under one lease, renewed by every operation it
 * makes and, while it holds any slot, by a background thread every third of the lease (default
 * {@value #DEFAULT_LEASE_SECONDS} s). A process killed with its slots taken stops renewing, and the
 * next operation of any process after the lease ends drops them. A live process that was cut off
 * longer than its lease (a long pause, a lost connection) has its slots dropped too; its next
 * operation writes back the count it still holds, so the shared count is right again at the next
 * renewal.
 *
 * <p>Each operation is one {@code EVALSHA} round trip, atomic on the server, on Redis's clock
 * ({@code TIME}): it drops the expired leases, sets this process's count to the slots it holds (so
 * a state lost in a restart is rebuilt from the live holders within a renewal), and, for {@link
 * #tryAcquire}, takes a slot if the fleet's total is below the maximum. The count each process
 * holds is kept in this object, which is therefore the truth for the process; operations on it are
 * serialised by one lock.
 *
 * <p>Keys: {@code relent:{name}:permits}, a hash of the slots each process holds, {@code
 * relent:{name}:leases}, a sorted set of each holder's lease end, and {@code
 * relent:{name}:members}, the processes seen in the last minute; one hash tag, one cluster slot.
 * They expire two leases after the last operation.
 *
 * <p>Failure: if Redis does not answer within the {@linkplain RelentRedis#commandTimeout() command
 * timeout}, or cannot be reached, the state follows the connection's {@link RedisFallback}: by
 * default it admits up to {@code max/n} calls of this process (at least one), {@code n} the larger
 * of the expected instances and {@link #processesSeen()}, counting the slots it already held; back
 * on Redis, its first operation reports the slots it holds. With {@link RedisFallback#none()},
 * every method throws {@link RedisStoreException} naming the URI (never the password) and the key.
 *
 * <p>Thread-safe. {@link #inUse()} is the fleet's count on Redis, and this process's own in the
 * fallback.
 */
public final class RedisConcurrencyLimitState implements ConcurrencyLimitState {

  /** The default lease, in seconds. */
  public static final long DEFAULT_LEASE_SECONDS = 10;

  private static final byte[] SET = bytes("set");
  private static final byte[] TAKE = bytes("take");
  private static final byte[] COUNT = bytes("count");

  static final Script SCRIPT =
      Script.of(
          "concurrency limit",
          """
          -- Relent concurrency limit state: slots per holder under leases, on Redis's clock.
          -- KEYS[1] hash holder -> slots; KEYS[2] sorted set holder -> lease end (ms);
          -- KEYS[3] sorted set of the holders seen in the last minute.
          -- ARGV: op ('set', 'take' or 'count'), holder, the slots it holds, max, lease ms.
          local permits, leases, members = KEYS[1], KEYS[2], KEYS[3]
          local op, holder = ARGV[1], ARGV[2]
          local held, max, lease = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
          local t = redis.call('TIME')
          local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
          local gone = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
          if #gone > 0 then
            redis.call('HDEL', permits, unpack(gone))
            redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
          end
          if op == 'count' then
            local total = 0
            for _, v in ipairs(redis.call('HVALS', permits)) do total = total + tonumber(v) end
            return {1, total, 0}
          end
          if op ~= 'set' and op ~= 'take' then
            return redis.error_reply('unknown concurrency limit operation ' .. tostring(op))
          end
          redis.call('ZADD', members, now, holder)
          redis.call('ZREMRANGEBYSCORE', members, '-inf', now - 60000)
          local fleet = redis.call('ZCARD', members)
          local total = 0
          local all = redis.call('HGETALL', permits)
          for i = 1, #all, 2 do
            if all[i] ~= holder then total = total + tonumber(all[i + 1]) end
          end
          local taken = 0
          if op == 'take' and total + held < max then
            held = held + 1
            taken = 1
          end
          if held > 0 then
            redis.call('HSET', permits, holder, held)
            redis.call('ZADD', leases, now + lease, holder)
          else
            redis.call('HDEL', permits, holder)
            redis.call('ZREM', leases, holder)
          end
          local keep = lease * 2
          redis.call('PEXPIRE', permits, keep)
          redis.call('PEXPIRE', leases, keep)
          redis.call('PEXPIRE', members, 120000)
          return {taken, total + held, fleet}
          """);

  private final RelentRedis redis;
  private final String name;
  private final String keyText;
  private final byte[][] keys;
  private final byte[] holder;
  private final long leaseMillis;
  private final byte[] lease;
  private final Object lock = new Object();

  /** The slots this process holds: the truth it writes to Redis. Guarded by {@link #lock}. */
  private int held;

  /** The max of the latest acquire, for the renewals. Guarded by {@link #lock}. */
  private int lastMax = 1;

  /** Whether this process's count on Redis may differ from {@link #held}. */
  private volatile boolean stale;

  private volatile int fleet = 1;
  private ScheduledFuture<?> renewal;

  RedisConcurrencyLimitState(RelentRedis redis, String name, Duration lease) {
    this.redis = Objects.requireNonNull(redis, "redis cannot be null");
    this.name = name;
    this.keyText = keyOf(name);
    this.keys =
        new byte[][] {
          bytes(keyText),
          bytes(RedisPacerState.guardKey(name, "leases")),
          bytes(RedisPacerState.guardKey(name, "members"))
        };
    Objects.requireNonNull(lease, "lease cannot be null");
    if (lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException(
          "lease must be from 1 s to 1 day (how long the slots of a dead process stay taken): "
              + lease);
    }
    this.holder = bytes(redis.instanceId());
    this.leaseMillis = lease.toMillis();
    this.lease = number(leaseMillis);
  }

  /**
   * Returns the Redis key of a concurrency limit's slots per holder.
   *
   * @param name 1 to 200 printable ASCII characters, no spaces or braces
   * @return {@code relent:{name}:permits}
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if the name is empty, too long or has other characters
   */
  public static String keyOf(String name) {
    return RedisPacerState.guardKey(name, "permits");
  }

  /**
   * {@inheritDoc}
   *
   * <p>Counts the slots of every live holder; renews this process's lease.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public boolean tryAcquire(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1: " + max);
    }
    synchronized (lock) {
      lastMax = max;
      boolean taken =
          redis.guarded(
              () -> (Long) write(TAKE, held, max).get(0) == 1,
              () -> {
                stale = true;
                return held < Math.max(1, max / share());
              });
      if (taken) {
        held++;
        renewWhileHeld();
      }
      return taken;
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException if this process holds no slot (and nothing changes)
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public void release() {
    synchronized (lock) {
      if (held == 0) {
        throw new IllegalStateException(
            "release() without a matching acquire: this process holds no slot of " + keyText);
      }
      held--;
      redis.guarded(
          () -> write(SET, held, lastMax),
          () -> {
            stale = true;
            return null;
          });
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>On Redis, the slots of every live holder; in the fallback, this process's own.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public int inUse() {
    return redis.guarded(
        () -> {
          if (stale) {
            synchronized (lock) {
              write(SET, held, lastMax);
            }
          }
          List<Object> reply =
              redis.runOn(SCRIPT, keyText, keys, COUNT, holder, number(0), number(0), lease);
          return (int) Math.min(Integer.MAX_VALUE, (Long) reply.get(1));
        },
        this::held);
  }

  /**
   * Returns the slots this process holds.
   *
   * @return &ge; 0
   */
  public int held() {
    synchronized (lock) {
      return held;
    }
  }

  /**
   * Returns the processes seen taking or giving back slots of this limit in the last minute, as
   * Redis counted them at this process's last operation.
   *
   * @return &ge; 1
   */
  public int processesSeen() {
    return fleet;
  }

  /**
   * Returns the lease.
   *
   * @return how long the slots of a process that stopped renewing stay taken
   */
  public Duration lease() {
    return Duration.ofMillis(leaseMillis);
  }

  /**
   * Returns the limit's name.
   *
   * @return the name given at creation
   */
  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return "RedisConcurrencyLimitState[" + keyText + " at " + redis.uri() + "]";
  }

  /** Sets this process's count on Redis to {@code count}, and takes one more slot for TAKE. */
  private List<Object> write(byte[] op, int count, int max) {
    List<Object> reply =
        redis.runOn(SCRIPT, keyText, keys, op, holder, number(count), number(max), lease);
    stale = false;
    fleet = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (Long) reply.get(2)));
    return reply;
  }

  private int share() {
    return Math.max(redis.failover().expectedInstances(), fleet);
  }

  /** Renews the lease every third of it while this process holds a slot; called under the lock. */
  private void renewWhileHeld() {
    if (renewal != null) {
      return;
    }
    ScheduledExecutorService renewals = redis.renewals();
    if (renewals == null) {
      return; // closed: nothing renews, and the lease ends
    }
    long every = Math.max(1, leaseMillis / 3);
    WeakReference<RedisConcurrencyLimitState> self = new WeakReference<>(this);
    renewal =
        renewals.scheduleAtFixedRate(
            () -> {
              RedisConcurrencyLimitState state = self.get();
              if (state == null || !state.renew()) {
                throw new CancellationStop(); // ends this task, and only this one
              }
            },
            every,
            every,
            TimeUnit.MILLISECONDS);
  }

  /** One renewal; false when no slot is held any more, which stops the renewals. For tests too. */
  boolean renew() {
    synchronized (lock) {
      if (held == 0 && !stale) {
        renewal = null;
        return false;
      }
      try {
        redis.guarded(
            () -> write(SET, held, lastMax),
            () -> {
              stale = true;
              return null;
            });
      } catch (RuntimeException e) {
        // Without a fallback the renewal fails as every operation does; the next one tries again.
      }
      if (held == 0) {
        renewal = null;
        return false;
      }
      return true;
    }
  }

  /** Thrown by a renewal task to end it: a scheduled task that throws is not run again. */
  private static final class CancellationStop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CancellationStop() {
      super(null, null, false, false);
    }
  }
}
