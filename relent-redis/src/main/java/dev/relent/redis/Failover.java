package dev.relent.redis;

import dev.relent.time.Ticker;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the guards of one {@link RelentRedis} use Redis or their local fallback now: one switch
 * for the connection, since every state shares it. While on Redis, every call goes there; after a
 * call found Redis away, the others go to memory at once and one call per retry interval tries
 * Redis again (the probe), so no call waits for a dead Redis longer than one command timeout.
 * Thread-safe.
 */
final class Failover {
  private static final Logger LOG = LoggerFactory.getLogger(RelentRedis.class);

  private final RedisFallback policy;
  private final String uri;
  private final long retryNanos;
  private final Ticker ticker;
  private final AtomicLong probeAt = new AtomicLong();
  private volatile boolean local;
  private volatile long epoch;

  Failover(RedisFallback policy, String uri, Ticker ticker) {
    this.policy = policy;
    this.ticker = ticker;
    this.uri = uri;
    this.retryNanos = policy.retryInterval().toNanos();
  }

  /**
   * Runs {@code onRedis}; if Redis is away, or was found away less than a retry interval ago, runs
   * {@code inMemory} instead. Without a fallback, or for an error that is not one of availability,
   * the exception is thrown.
   */
  <T> T call(Supplier<T> onRedis, Supplier<T> inMemory) {
    if (tryRedis()) {
      T answer;
      try {
        answer = onRedis.get();
      } catch (RedisStoreException e) {
        lost(e);
        return inMemory.get();
      }
      if (local) {
        found();
      }
      return answer;
    }
    return inMemory.get();
  }

  /** Whether the guards are in memory now. */
  boolean isLocal() {
    return local;
  }

  /**
   * A number that changes each time the guards go to memory: a state whose in-memory fallback was
   * made in an older epoch makes a fresh one.
   */
  long epoch() {
    return epoch;
  }

  RedisFallback policy() {
    return policy;
  }

  /** The least {@code n} of the {@code 1/n} share. */
  int expectedInstances() {
    return policy.expectedInstances();
  }

  private boolean tryRedis() {
    if (!local) {
      return true;
    }
    long now = ticker.read();
    long at = probeAt.get();
    return now - at >= 0 && probeAt.compareAndSet(at, now + retryNanos);
  }

  private void lost(RedisStoreException e) {
    if (!e.isUnavailable() || !policy.fallsBack()) {
      throw e;
    }
    probeAt.set(ticker.read() + retryNanos);
    synchronized (this) {
      if (local) {
        return;
      }
      epoch++;
      local = true;
    }
    LOG.warn(
        "{}; the guards on it fall back to memory at 1/n of their limits (n: at least {}, or the"
            + " processes seen sharing each guard), and try Redis again every {} ms",
        e.getMessage(),
        policy.expectedInstances(),
        policy.retryInterval().toMillis());
    tell(RedisFallback.Mode.LOCAL, e.getMessage());
  }

  private void found() {
    synchronized (this) {
      if (!local) {
        return;
      }
      local = false;
    }
    LOG.info("Redis at {} answers again; the guards on it share its state again", uri);
    tell(RedisFallback.Mode.SHARED, "Redis at " + uri + " answers again");
  }

  private void tell(RedisFallback.Mode mode, String reason) {
    try {
      policy.listener().accept(new RedisFallback.Event(mode, uri, reason));
    } catch (RuntimeException e) {
      LOG.warn("the Redis fallback listener failed on {}", mode, e);
    }
  }
}
