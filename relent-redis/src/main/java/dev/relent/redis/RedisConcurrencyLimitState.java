package dev.relent.redis;

import static dev.relent.redis.Script.bytes;
import static dev.relent.redis.Script.number;

import dev.relent.spi.ConcurrencyLimitState;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * <p>Queue: the state keeps the waiters of every process in one queue ({@link #queuesWaiters()}),
 * so that a {@link dev.relent.guard.ConcurrencyLimit} on it serves them first come, first served
 * across the fleet. A waiter's ticket is queued in the same script that would take a slot for it; a
 * free slot belongs to the oldest tickets, and only a {@link #claim} for one of them takes it; the
 * script that frees a slot for queued tickets (a release, a dequeue, a lease that ended) publishes
 * the instance ids of their holders on {@link #channelOf the limit's channel}, to which this
 * process subscribes at its first ticket, on a connection of its own. Tickets live under the
 * holder's lease, which is renewed while any is queued; each renewal also writes the tickets this
 * process still has, so one that a failed call left behind is dropped, and one that Redis lost is
 * queued again.
 *
 * <p>Keys: {@code relent:{name}:permits}, a hash of the slots each process holds, {@code
 * relent:{name}:leases}, a sorted set of each holder's lease end, {@code relent:{name}:queue}, a
 * sorted set of the waiters' tickets in arrival order, and {@code relent:{name}:members}, the
 * processes seen in the last minute; one hash tag, one cluster slot. They expire two leases after
 * the last operation.
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
  private static final byte[] ENQUEUE = bytes("enqueue");
  private static final byte[] CLAIM = bytes("claim");
  private static final byte[] DEQUEUE = bytes("dequeue");
  private static final byte[] SYNC = bytes("sync");

  static final Script SCRIPT =
      Script.of(
          "concurrency limit",
          """
          -- Relent concurrency limit state: slots per holder under leases, and one queue of
          -- waiters' tickets for every holder, first come first served, on Redis's clock.
          -- KEYS[1] hash holder -> slots; KEYS[2] sorted set holder -> lease end (ms);
          -- KEYS[3] sorted set of the holders seen in the last minute;
          -- KEYS[4] sorted set 'holder#ticket' -> place in the queue.
          -- ARGV: op, holder, the slots it holds, max, lease ms, tickets it has queued,
          -- the wake-up channel, then tickets (enqueue, dequeue: one; claim, sync: in order).
          local permits, leases, members, queue = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
          local op, holder = ARGV[1], ARGV[2]
          local held, max, lease = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
          local waiting, channel = tonumber(ARGV[6]), ARGV[7]
          local t = redis.call('TIME')
          local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
          -- Whether a slot, or a place near the head of the queue, may have come free.
          local woke = false
          local gone = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
          if #gone > 0 then
            redis.call('HDEL', permits, unpack(gone))
            redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
            local dead = {}
            for _, h in ipairs(gone) do dead[h] = true end
            for _, m in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
              if dead[string.match(m, '^(.*)#')] then redis.call('ZREM', queue, m) end
            end
            woke = true
          end
          -- Tells the holders of the first tickets that a slot is free for them: one message,
          -- their names.
          local function wake(used)
            local free = max - used
            if not woke or free <= 0 then return end
            local first = redis.call('ZRANGE', queue, 0, free - 1)
            if #first == 0 then return end
            local seen, names = {}, {}
            for _, m in ipairs(first) do
              local h = string.match(m, '^(.*)#')
              if not seen[h] then
                seen[h] = true
                names[#names + 1] = h
              end
            end
            redis.call('PUBLISH', channel, table.concat(names, ' '))
          end
          if op == 'count' then
            local total = 0
            for _, v in ipairs(redis.call('HVALS', permits)) do total = total + tonumber(v) end
            wake(total)
            return {1, total, 0}
          end
          redis.call('ZADD', members, now, holder)
          redis.call('ZREMRANGEBYSCORE', members, '-inf', now - 60000)
          local fleet = redis.call('ZCARD', members)
          local old = tonumber(redis.call('HGET', permits, holder) or '0')
          local total = 0
          local all = redis.call('HGETALL', permits)
          for i = 1, #all, 2 do
            if all[i] ~= holder then total = total + tonumber(all[i + 1]) end
          end
          local function tail()
            local last = redis.call('ZRANGE', queue, -1, -1, 'WITHSCORES')
            if #last == 0 then return 1 end
            return tonumber(last[2]) + 1
          end
          local mine = holder .. '#'
          local taken = 0
          if op == 'take' or op == 'enqueue' then
            -- A free slot goes to the tickets first: never ahead of one.
            if total + held + redis.call('ZCARD', queue) < max then
              held = held + 1
              taken = 1
            elseif op == 'enqueue' then
              redis.call('ZADD', queue, tail(), mine .. ARGV[8])
            end
          elseif op == 'claim' then
            for i = 8, #ARGV do
              local m = mine .. ARGV[i]
              local rank = redis.call('ZRANK', queue, m)
              if not rank then
                -- Lost (a restart, a lease that ended): queued again, at the tail.
                redis.call('ZADD', queue, tail(), m)
                break
              end
              if rank >= max - total - held then break end
              redis.call('ZREM', queue, m)
              held = held + 1
              taken = taken + 1
            end
          elseif op == 'dequeue' then
            local m = mine .. ARGV[8]
            local rank = redis.call('ZRANK', queue, m)
            if rank then
              redis.call('ZREM', queue, m)
              if rank < max - total - held then woke = true end
            end
          elseif op == 'sync' then
            -- This holder's tickets are exactly those named, in this order.
            local live = {}
            for i = 8, #ARGV do live[mine .. ARGV[i]] = true end
            for _, m in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
              if string.sub(m, 1, #mine) == mine then
                if live[m] then
                  live[m] = nil
                else
                  redis.call('ZREM', queue, m)
                  woke = true
                end
              end
            end
            for i = 8, #ARGV do
              local m = mine .. ARGV[i]
              if live[m] then
                redis.call('ZADD', queue, tail(), m)
                live[m] = nil
              end
            end
          elseif op ~= 'set' then
            return redis.error_reply('unknown concurrency limit operation ' .. tostring(op))
          end
          if held < old then woke = true end
          if held > 0 then
            redis.call('HSET', permits, holder, held)
          else
            redis.call('HDEL', permits, holder)
          end
          if held > 0 or waiting > 0 then
            redis.call('ZADD', leases, now + lease, holder)
          else
            redis.call('ZREM', leases, holder)
          end
          local keep = lease * 2
          redis.call('PEXPIRE', permits, keep)
          redis.call('PEXPIRE', leases, keep)
          redis.call('PEXPIRE', queue, keep)
          redis.call('PEXPIRE', members, 120000)
          wake(total + held)
          return {taken, total + held, fleet}
          """);

  private final RelentRedis redis;
  private final String name;
  private final String keyText;
  private final byte[][] keys;
  private final byte[] holder;
  private final byte[] channel;
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

  /** This process's tickets in the queue, oldest first. Guarded by {@link #lock}. */
  private final TreeSet<Long> tickets = new TreeSet<>();

  /** The last ticket handed out. Guarded by {@link #lock}. */
  private long lastTicket;

  /** Whether the wake-ups of this limit's channel reach {@link #listeners}. */
  private volatile boolean subscribed;

  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  RedisConcurrencyLimitState(RelentRedis redis, String name, Duration lease) {
    this.redis = Objects.requireNonNull(redis, "redis cannot be null");
    this.name = name;
    this.keyText = keyOf(name);
    this.keys =
        new byte[][] {
          bytes(keyText),
          bytes(RedisPacerState.guardKey(name, "leases")),
          bytes(RedisPacerState.guardKey(name, "members")),
          bytes(RedisPacerState.guardKey(name, "queue"))
        };
    this.channel = bytes(channelOf(name));
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
   * Returns the Redis channel on which a limit's waiters are woken: every release, ticket dequeued
   * or lease ended that leaves a slot free for queued tickets publishes there the instance ids of
   * the holders of the first tickets, the ones a slot is free for.
   *
   * @param name as for {@link #keyOf(String)}
   * @return {@code relent:{name}:wake}
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if the name is not valid
   */
  public static String channelOf(String name) {
    return RedisPacerState.guardKey(name, "wake");
  }

  /**
   * {@inheritDoc}
   *
   * <p>Counts the slots of every live holder, and takes none while any process's ticket is queued;
   * renews this process's lease.
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
   * @return true: the queue of waiters is in Redis, one for every process
   */
  @Override
  public boolean queuesWaiters() {
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The ticket is this process's until it is granted or dequeued, and lives under this process's
   * lease: the tickets of a process that dies leave the queue when its lease ends. In the fallback,
   * a slot is taken if this process holds fewer than its share, and otherwise the ticket is kept
   * here, to be queued in Redis when it answers again.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public long enqueue(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1: " + max);
    }
    subscribe();
    synchronized (lock) {
      lastMax = max;
      long ticket = ++lastTicket;
      tickets.add(ticket);
      boolean taken;
      try {
        taken =
            redis.guarded(
                () -> (Long) write(ENQUEUE, held, max, ticket).get(0) == 1,
                () -> {
                  stale = true;
                  return held < Math.max(1, max / share());
                });
      } catch (RuntimeException e) {
        tickets.remove(ticket);
        throw e;
      }
      if (taken) {
        tickets.remove(ticket);
        held++;
      }
      renewWhileHeld();
      return taken ? 0 : ticket;
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>A ticket named that Redis lost (after a restart, or a lease that ended while this process
   * was cut off) is queued again, at the tail. In the fallback, grants while this process holds
   * fewer than its share.
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public int claim(long[] claimed, int count, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1: " + max);
    }
    if (count <= 0) {
      return 0;
    }
    synchronized (lock) {
      lastMax = max;
      int granted =
          redis.guarded(
              () -> (int) (long) (Long) write(CLAIM, held, max, claimed, count).get(0),
              () -> {
                stale = true;
                int g = 0;
                int share = Math.max(1, max / share());
                while (g < count && held + g < share) {
                  g++;
                }
                return g;
              });
      for (int i = 0; i < granted; i++) {
        tickets.remove(claimed[i]);
      }
      held += granted;
      if (granted > 0) {
        renewWhileHeld();
      }
      return granted;
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws RedisStoreException if Redis fails and the fallback is {@link RedisFallback#none()}
   */
  @Override
  public void dequeue(long ticket) {
    synchronized (lock) {
      if (!tickets.remove(ticket)) {
        return;
      }
      redis.guarded(
          () -> write(DEQUEUE, held, lastMax, ticket),
          () -> {
            stale = true;
            return null;
          });
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Called on the Redis client's I/O thread when a message on {@link #channelOf this limit's
   * channel} names this process, so it must only hand the work on. Subscribed on the first {@link
   * #enqueue}; a message lost while the subscription is down is made up for by the limit's poll.
   */
  @Override
  public void onRelease(Runnable listener) {
    listeners.add(Objects.requireNonNull(listener, "listener cannot be null"));
  }

  /**
   * Returns how many of this process's waiters have a ticket in the queue.
   *
   * @return &ge; 0
   */
  public int queued() {
    synchronized (lock) {
      return tickets.size();
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
              redis.runOn(
                  SCRIPT,
                  keyText,
                  keys,
                  COUNT,
                  holder,
                  number(0),
                  number(lastMax),
                  lease,
                  number(0),
                  channel);
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
    return write(op, count, max, new long[0], 0);
  }

  private List<Object> write(byte[] op, int count, int max, long ticket) {
    return write(op, count, max, new long[] {ticket}, 1);
  }

  /** One operation; the caller holds the lock. */
  private List<Object> write(byte[] op, int count, int max, long[] named, int n) {
    if (stale && op != SYNC) {
      // Back from the fallback, or after a failed call: the tickets too as this process has them.
      sync(count, max);
    }
    byte[][] args = new byte[7 + n][];
    args[0] = op;
    args[1] = holder;
    args[2] = number(count);
    args[3] = number(max);
    args[4] = lease;
    args[5] = number(tickets.size());
    args[6] = channel;
    for (int i = 0; i < n; i++) {
      args[7 + i] = number(named[i]);
    }
    List<Object> reply = redis.runOn(SCRIPT, keyText, keys, args);
    stale = false;
    fleet = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (Long) reply.get(2)));
    return reply;
  }

  /** Sets this process's count and its tickets on Redis to what it has here. */
  private void sync(int count, int max) {
    long[] all = new long[tickets.size()];
    int i = 0;
    for (long t : tickets) {
      all[i++] = t;
    }
    write(SYNC, count, max, all, all.length);
  }

  /** Subscribes to this limit's wake-ups once; a failure is tried again at the next enqueue. */
  private void subscribe() {
    if (subscribed) {
      return;
    }
    synchronized (listeners) {
      if (subscribed) {
        return;
      }
      subscribed =
          redis.subscribe(
              channelOf(name),
              names -> {
                if (names(names)) {
                  for (Runnable r : listeners) {
                    r.run();
                  }
                }
              });
    }
  }

  /** Whether a wake-up's names, separated by spaces, include this process's. */
  private boolean names(byte[] names) {
    int n = holder.length;
    for (int at = 0; at + n <= names.length; ) {
      int end = at;
      while (end < names.length && names[end] != ' ') {
        end++;
      }
      if (end - at == n && Arrays.equals(names, at, end, holder, 0, n)) {
        return true;
      }
      at = end + 1;
    }
    return false;
  }

  private int share() {
    return Math.max(redis.failover().expectedInstances(), fleet);
  }

  /**
   * Renews the lease every third of it while this process holds a slot or has a ticket queued;
   * called under the lock.
   */
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
      if (held == 0 && tickets.isEmpty() && !stale) {
        renewal = null;
        return false;
      }
      try {
        redis.guarded(
            () -> {
              sync(held, lastMax);
              return null;
            },
            () -> {
              stale = true;
              return null;
            });
      } catch (RuntimeException e) {
        // Without a fallback the renewal fails as every operation does; the next one tries again.
      }
      if (held == 0 && tickets.isEmpty()) {
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
