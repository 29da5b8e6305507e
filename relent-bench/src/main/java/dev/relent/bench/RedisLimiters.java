package dev.relent.bench;

import dev.relent.guard.Pacer;
import dev.relent.redis.RedisPacerState;
import dev.relent.redis.RelentRedis;
import dev.relent.time.Ticker;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One rate limit on one hot Redis key, decided by Relent's pacer over {@link RedisPacerState} or by
 * Bucket4j 8.14's compare-and-swap proxy manager on Lettuce ({@code LettuceBasedProxyManager}),
 * each on its own Lettuce connection with the same client options, as each would run in production.
 * Shared by {@link RedisLimiterBenchmark} (time) and {@link RedisRoundTrips} (commands per
 * decision).
 *
 * <p>The same limit for both: {@code perSecond} a second with a burst of {@code burst}. For Relent,
 * {@code Pacer.builder().withRate(perSecond, 1 s).withBurst(burst)} (GCRA, tolerance {@code (burst
 * - 1) * interval}); for Bucket4j, one bandwidth of capacity {@code burst} refilled greedily by
 * {@code perSecond} a second. Both start full and allow, in the long run, {@code perSecond} a
 * second.
 *
 * <p>A decision never waits: Relent's {@link Pacer#tryAcquire} with a longest wait of 0, Bucket4j's
 * {@code tryConsumeAndReturnRemaining(1)}. Both return the wait a refused caller would need, so the
 * two do the same work on refusal.
 */
final class RedisLimiters {
  /** The libraries compared, as JMH's {@code library} parameter spells them. */
  static final List<String> LIBRARIES = List.of("relent", "bucket4j");

  /** The same command timeout for both connections: generous, since the machine is shared. */
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private static final Ticker TICKER = Ticker.system();
  private static final AtomicInteger KEYS = new AtomicInteger();

  private RedisLimiters() {}

  /** The limits measured. */
  enum Limit {
    /** A billion a second, burst a billion: nobody is refused. */
    OPEN(1_000_000_000, 1_000_000_000),
    /** A thousand a second, burst 100: most of a benchmark's decisions are refusals. */
    REFUSING(1_000, 100);

    final int perSecond;
    final int burst;

    Limit(int perSecond, int burst) {
      this.perSecond = perSecond;
      this.burst = burst;
    }

    /** The limit named by JMH's {@code limit} parameter ({@code open}, {@code refusing}). */
    static Limit of(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /** Relent's pacer at this limit, its schedule in {@code state}. */
    Pacer pacer(RedisPacerState state) {
      return Pacer.builder()
          .withRate(perSecond, Duration.ofSeconds(1))
          .withBurst(burst)
          .withState(state)
          .build();
    }

    /** Bucket4j's configuration of this limit. */
    BucketConfiguration bucket() {
      return BucketConfiguration.builder()
          .addLimit(limit -> limit.capacity(burst).refillGreedy(perSecond, Duration.ofSeconds(1)))
          .build();
    }
  }

  /** One limiter on one key of its own. */
  interface Limiter extends AutoCloseable {
    /**
     * Decides once, without waiting.
     *
     * @return 0 if allowed, or minus the wait a refused caller would need (&lt; 0)
     */
    long decide();

    /** The Redis key the limit lives in. */
    String key();

    /** Deletes the key and closes the connection. */
    @Override
    void close();
  }

  /**
   * Connects a limiter of {@code library} at {@code limit} to a key of its own.
   *
   * @param library {@code relent} or {@code bucket4j}
   * @param limit the limit
   * @param uri where Redis is
   * @return a connected limiter
   */
  static Limiter connect(String library, Limit limit, String uri) {
    String name = "bench-" + ProcessHandle.current().pid() + "-" + KEYS.incrementAndGet();
    switch (library) {
      case "relent":
        return new RelentLimiter(limit, uri, name);
      case "bucket4j":
        return new Bucket4jLimiter(limit, uri, name);
      default:
        throw new IllegalArgumentException("library must be one of " + LIBRARIES + ": " + library);
    }
  }

  /** The client options RelentRedis sets, given to Bucket4j's connection too. */
  static ClientOptions clientOptions() {
    return ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(COMMAND_TIMEOUT))
        .build();
  }

  private static final class RelentLimiter implements Limiter {
    private final RelentRedis redis;
    private final String uri;
    private final String key;
    private final Pacer pacer;

    RelentLimiter(Limit limit, String uri, String name) {
      this.redis = RelentRedis.builder(uri).withCommandTimeout(COMMAND_TIMEOUT).build();
      this.uri = uri;
      this.key = RedisPacerState.keyOf(name);
      this.pacer = limit.pacer(redis.pacerState(name));
    }

    @Override
    public long decide() {
      long wait = pacer.tryAcquire(TICKER.read(), 0);
      return wait >= 0 ? 0 : wait;
    }

    @Override
    public String key() {
      return key;
    }

    @Override
    public void close() {
      redis.close();
      delete(uri, key);
    }
  }

  private static final class Bucket4jLimiter implements Limiter {
    private final RedisClient client;
    private final StatefulRedisConnection<String, byte[]> connection;
    private final String key;
    private final BucketProxy bucket;

    Bucket4jLimiter(Limit limit, String uri, String name) {
      this.client = RedisClient.create(uri);
      client.setOptions(clientOptions());
      this.connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
      this.key = "bucket4j:{" + name + "}";
      BucketConfiguration configuration = limit.bucket();
      // Keys expire once the bucket would be full again, as Relent's pacer key does.
      this.bucket =
          Bucket4jLettuce.casBasedBuilder(connection)
              .expirationAfterWrite(
                  ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                      Duration.ofSeconds(1)))
              .build()
              .builder()
              .build(key, () -> configuration);
    }

    @Override
    public long decide() {
      ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
      return probe.isConsumed() ? 0 : -Math.max(1, probe.getNanosToWaitForRefill());
    }

    @Override
    public String key() {
      return key;
    }

    @Override
    public void close() {
      try {
        connection.sync().del(key);
      } finally {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  private static void delete(String uri, String key) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.sync().del(key);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
