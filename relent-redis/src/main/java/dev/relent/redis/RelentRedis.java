package dev.relent.redis;

import dev.relent.time.Ticker;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One connection to one Redis server, from which Relent's shared states are made: {@link
 * #pacerState(String)}, {@link #concurrencyLimitState(String)}, {@link #retryBudgetState(String)},
 * {@link #circuitBreakerState(String)} and {@link #idempotencyStore(String)}. All of them share the
 * connection (Lettuce multiplexes concurrent commands on it), so one instance per process is
 * enough.
 *
 * <p>Defaults: a command timeout of {@value #DEFAULT_COMMAND_TIMEOUT_MILLIS} ms, a connect timeout
 * of 2 s. While the connection is down, commands are refused at once rather than queued, and
 * Lettuce reconnects in the background.
 *
 * <p>Failure: when Redis does not answer within the command timeout, or cannot be reached, the
 * guards' states follow the {@linkplain Builder#withFallback fallback policy}: by default they go
 * on in memory at a conservative share of each limit, log the change once, and return to Redis when
 * it answers again ({@link RedisFallback}). The idempotency store throws {@link
 * RedisStoreException}, naming the URI without its password; {@link #connect} throws it if Redis
 * cannot be reached at start.
 *
 * <p>Topologies: one server, a primary found through Redis Sentinel ({@code redis-sentinel://}
 * URIs, {@link #builder}), or a Redis Cluster ({@link #clusterBuilder}); every guard's keys carry
 * its name as a hash tag, so the keys of one script sit in one cluster slot.
 *
 * <p>Thread-safe. Close it when done: that closes the connection and the client's threads.
 */
public final class RelentRedis implements AutoCloseable {

  /** The default command timeout in milliseconds. */
  public static final long DEFAULT_COMMAND_TIMEOUT_MILLIS = 50;

  private final AbstractRedisClient client;
  private final StatefulConnection<byte[], byte[]> connection;
  private final RedisClusterCommands<byte[], byte[]> commands;
  private final String uri;
  private final Duration commandTimeout;
  private final Failover failover;
  private final String instanceId = newInstanceId();
  private final Object renewalLock = new Object();
  private ScheduledExecutorService renewals;
  private boolean closed;

  /** The connection that receives wake-ups, opened by the first subscription; under renewalLock. */
  private StatefulRedisPubSubConnection<byte[], byte[]> pubSub;

  /** What each subscribed channel's messages go to. */
  private final Map<String, Consumer<byte[]>> subscribers = new ConcurrentHashMap<>();

  private RelentRedis(
      List<RedisURI> redisUris,
      boolean cluster,
      Duration commandTimeout,
      Duration connectTimeout,
      RedisFallback fallback) {
    this.uri = cluster ? redactedCluster(redisUris) : redacted(redisUris.get(0));
    this.commandTimeout = commandTimeout;
    this.failover = new Failover(fallback, uri, Ticker.system());
    // The URI's timeout bounds the handshake (HELLO, AUTH, SELECT) of each connection and
    // reconnection; the commands have their own, set below.
    for (RedisURI redisUri : redisUris) {
      redisUri.setTimeout(connectTimeout);
    }
    SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout).build();
    AbstractRedisClient created;
    if (cluster) {
      RedisClusterClient clusterClient = RedisClusterClient.create(redisUris);
      clusterClient.setOptions(
          ClusterClientOptions.builder()
              // Each node's connection opens on its first command: accepted while it connects,
              // bounded by the command timeout like every other command.
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
              .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
              .socketOptions(socket)
              // A failover or a resharding moves slots: Lettuce 7 refreshes the layout on
              // MOVED, ASK and reconnects by default; look again every 30 s as well.
              .topologyRefreshOptions(
                  ClusterTopologyRefreshOptions.builder()
                      .enablePeriodicRefresh(Duration.ofSeconds(30))
                      .build())
              .build());
      created = clusterClient;
    } else {
      RedisClient standalone = RedisClient.create(redisUris.get(0));
      standalone.setOptions(
          ClientOptions.builder()
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
              .socketOptions(socket)
              .build());
      created = standalone;
    }
    try {
      if (created instanceof RedisClusterClient clusterClient) {
        StatefulRedisClusterConnection<byte[], byte[]> c =
            clusterClient.connect(ByteArrayCodec.INSTANCE);
        c.setTimeout(commandTimeout);
        this.connection = c;
        this.commands = c.sync();
      } else {
        StatefulRedisConnection<byte[], byte[]> c =
            ((RedisClient) created).connect(ByteArrayCodec.INSTANCE);
        c.setTimeout(commandTimeout);
        this.connection = c;
        this.commands = c.sync();
      }
    } catch (RedisException e) {
      created.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      throw new RedisStoreException("cannot connect to Redis at " + uri + ": " + e.getMessage(), e);
    }
    this.client = created;
  }

  /**
   * Connects to Redis with the default timeouts.
   *
   * @param uri a Redis URI, e.g. {@code redis://localhost:6379} or {@code
   *     rediss://:password@host:6380/0}
   * @return a connected instance
   * @throws RedisStoreException if Redis cannot be reached
   * @throws IllegalArgumentException if the URI is malformed
   */
  public static RelentRedis connect(String uri) {
    return builder(uri).build();
  }

  /**
   * Returns a builder for a connection to {@code uri}: one server, or the primary that Redis
   * Sentinel names ({@code redis-sentinel://host1:26379,host2:26379/0#mymaster}), which Lettuce
   * follows through a failover.
   *
   * @param uri a Redis URI, e.g. {@code redis://localhost:6379}
   * @return a new builder
   * @throws NullPointerException if {@code uri} is null
   */
  public static Builder builder(String uri) {
    return new Builder(List.of(Objects.requireNonNull(uri, "uri cannot be null")), false);
  }

  /**
   * Returns a builder for a connection to a Redis Cluster, found from one or more of its nodes.
   * Every guard's keys carry the guard's name as a hash tag, so each script's keys sit in one slot;
   * the connection follows {@code MOVED} and {@code ASK} and refreshes the cluster's layout on each
   * and every 30 s.
   *
   * @param seeds URIs of some of the cluster's nodes, e.g. {@code redis://10.0.0.5:7000}; no
   *     database number (a cluster has only database 0)
   * @return a new builder
   * @throws NullPointerException if {@code seeds} or one of them is null
   * @throws IllegalArgumentException if {@code seeds} is empty
   */
  public static Builder clusterBuilder(List<String> seeds) {
    Objects.requireNonNull(seeds, "seeds cannot be null");
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException(
          "seeds must name at least one node of the cluster, e.g. redis://10.0.0.5:7000");
    }
    for (String seed : seeds) {
      Objects.requireNonNull(seed, "a seed cannot be null");
    }
    return new Builder(List.copyOf(seeds), true);
  }

  /**
   * Returns a pacer schedule shared by every process that uses the same name on the same Redis, on
   * the system ticker ({@link Ticker#system()}).
   *
   * @param name the pacer's name, e.g. the downstream it paces; see {@link
   *     RedisPacerState#keyOf(String)}
   * @return a new state, sharing this connection
   * @throws IllegalArgumentException if the name is not a valid pacer name
   */
  public RedisPacerState pacerState(String name) {
    return pacerState(name, Ticker.system());
  }

  /**
   * Returns a pacer schedule shared by every process that uses the same name on the same Redis.
   *
   * @param name the pacer's name; see {@link RedisPacerState#keyOf(String)}
   * @param ticker the ticker whose readings the pacer passes in: the executor's, so that {@link
   *     RedisPacerState#pausedUntil()} and {@link RedisPacerState#pauseUntil(long)} speak its time
   * @return a new state, sharing this connection
   * @throws IllegalArgumentException if the name is not a valid pacer name
   * @throws NullPointerException if an argument is null
   */
  public RedisPacerState pacerState(String name, Ticker ticker) {
    return new RedisPacerState(this, name, ticker);
  }

  /**
   * Returns a concurrency limit's count shared by every process that uses the same name on the same
   * Redis, each process holding its slots under a lease of {@value
   * RedisConcurrencyLimitState#DEFAULT_LEASE_SECONDS} s that it renews while it lives.
   *
   * @param name the limit's name, e.g. the downstream it protects; see {@link
   *     RedisConcurrencyLimitState#keyOf(String)}
   * @return a new state, sharing this connection
   * @throws IllegalArgumentException if the name is not a valid name
   */
  public RedisConcurrencyLimitState concurrencyLimitState(String name) {
    return concurrencyLimitState(
        name, Duration.ofSeconds(RedisConcurrencyLimitState.DEFAULT_LEASE_SECONDS));
  }

  /**
   * Returns a concurrency limit's count shared by every process that uses the same name on the same
   * Redis, with another lease: the slots of a process that dies without giving them back are free
   * again at most this long after its last renewal, and a live process renews every third of it.
   *
   * @param name the limit's name; see {@link RedisConcurrencyLimitState#keyOf(String)}
   * @param lease from 1 s to 1 day
   * @return a new state, sharing this connection
   * @throws IllegalArgumentException if the name is not valid or the lease out of range
   * @throws NullPointerException if an argument is null
   */
  public RedisConcurrencyLimitState concurrencyLimitState(String name, Duration lease) {
    return new RedisConcurrencyLimitState(this, name, lease);
  }

  /**
   * Returns a retry budget's counts shared by every process that uses the same name on the same
   * Redis, in buckets of Redis's clock.
   *
   * @param name the budget's name, e.g. the downstream it protects; see {@link
   *     RedisRetryBudgetState#keyOf(String)}
   * @return a new state, sharing this connection
   * @throws IllegalArgumentException if the name is not a valid name
   */
  public RedisRetryBudgetState retryBudgetState(String name) {
    return new RedisRetryBudgetState(this, name, false);
  }

  /**
   * Returns a circuit breaker's state shared by every process that uses the same name on the same
   * Redis, timed on Redis's clock.
   *
   * @param name the breaker's name, e.g. the downstream it protects; see {@link
   *     RedisCircuitBreakerState#keyOf(String)}
   * @return a new state, sharing this connection
   * @throws IllegalArgumentException if the name is not a valid name
   */
  public RedisCircuitBreakerState circuitBreakerState(String name) {
    return new RedisCircuitBreakerState(this, name, false);
  }

  /**
   * Returns an idempotency store whose records live under {@code relent:idem:<namespace>:}.
   *
   * @param namespace separates the records of different services on one Redis: letters, digits,
   *     {@code . _ -}
   * @return a new store, sharing this connection
   * @throws IllegalArgumentException if the namespace is empty or has other characters
   */
  public RedisIdempotencyStore idempotencyStore(String namespace) {
    return new RedisIdempotencyStore(this, namespace);
  }

  /**
   * Returns the URI this instance is connected to, without user name or password.
   *
   * @return e.g. {@code redis://localhost:6379}
   */
  public String uri() {
    return uri;
  }

  /**
   * Returns the command timeout.
   *
   * @return how long one operation may wait for Redis
   */
  public Duration commandTimeout() {
    return commandTimeout;
  }

  /**
   * Returns the fallback policy.
   *
   * @return what the guards do while Redis is away
   */
  public RedisFallback fallback() {
    return failover.policy();
  }

  /**
   * Returns whether the guards on this connection are in memory now, because Redis was found away.
   *
   * @return true while in the fallback
   */
  public boolean isInFallback() {
    return failover.isLocal();
  }

  /**
   * Closes the connection and stops the client's threads and the lease renewals: slots still held
   * are freed by Redis when their lease ends.
   */
  @Override
  public void close() {
    synchronized (renewalLock) {
      closed = true;
      if (renewals != null) {
        renewals.shutdownNow();
      }
      if (pubSub != null) {
        pubSub.close();
      }
    }
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  @Override
  public String toString() {
    return "RelentRedis[" + uri + ", commandTimeout=" + commandTimeout.toMillis() + " ms]";
  }

  /**
   * Runs a script on one key with {@code EVALSHA}; on {@code NOSCRIPT} (after a restart, a failover
   * or {@code SCRIPT FLUSH}) loads it and retries once. {@code where} names the key in an error
   * message: the key itself for a guard, only the namespace for an idempotency record, whose key
   * may carry personal data.
   */
  List<Object> run(Script script, String where, byte[] key, byte[]... args) {
    return runOn(script, where, new byte[][] {key}, args);
  }

  /** {@link #run} on several keys, which must share one hash tag. */
  List<Object> runOn(Script script, String where, byte[][] keys, byte[]... args) {
    try {
      try {
        return commands.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
      } catch (RedisNoScriptException notLoaded) {
        commands.scriptLoad(script.source());
        return commands.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
      }
    } catch (RedisException e) {
      throw failure(script.name(), where, e);
    }
  }

  /**
   * Runs a guard's operation on Redis, or its in-memory fallback while Redis is away (see {@link
   * RedisFallback}).
   */
  <T> T guarded(Supplier<T> onRedis, Supplier<T> inMemory) {
    return failover.call(onRedis, inMemory);
  }

  Failover failover() {
    return failover;
  }

  /**
   * This instance's name among the processes that share a guard: {@code PID-RANDOM}, the process id
   * and 16 hex digits.
   */
  String instanceId() {
    return instanceId;
  }

  /**
   * The one daemon thread that renews this instance's leases, started by the first state that needs
   * it; null once closed.
   */
  ScheduledExecutorService renewals() {
    synchronized (renewalLock) {
      if (closed) {
        return null;
      }
      if (renewals == null) {
        ScheduledThreadPoolExecutor executor =
            new ScheduledThreadPoolExecutor(
                1,
                r -> {
                  Thread t = new Thread(r, "relent-redis-lease-renewal");
                  t.setDaemon(true);
                  return t;
                });
        executor.setRemoveOnCancelPolicy(true);
        renewals = executor;
      }
      return renewals;
    }
  }

  /**
   * Subscribes {@code onMessage} to a channel, on a second connection opened for the subscriptions
   * (Lettuce subscribes again after it reconnects). Messages come on the client's I/O thread:
   * {@code onMessage} must only hand them on.
   *
   * @return whether the subscription is in place; false if Redis could not be reached or this
   *     instance is closed (the caller tries again later)
   */
  boolean subscribe(String channel, Consumer<byte[]> onMessage) {
    synchronized (renewalLock) {
      if (closed) {
        return false;
      }
      try {
        if (pubSub == null) {
          StatefulRedisPubSubConnection<byte[], byte[]> c =
              client instanceof RedisClusterClient cluster
                  ? cluster.connectPubSub(ByteArrayCodec.INSTANCE)
                  : ((RedisClient) client).connectPubSub(ByteArrayCodec.INSTANCE);
          c.setTimeout(commandTimeout);
          c.addListener(
              new RedisPubSubAdapter<>() {
                @Override
                public void message(byte[] from, byte[] message) {
                  Consumer<byte[]> to =
                      subscribers.get(new String(from, java.nio.charset.StandardCharsets.UTF_8));
                  if (to != null) {
                    to.accept(message);
                  }
                }
              });
          pubSub = c;
        }
        subscribers.put(channel, onMessage);
        pubSub.sync().subscribe(Script.bytes(channel));
        return true;
      } catch (RedisException e) {
        subscribers.remove(channel);
        return false;
      }
    }
  }

  /** The process id and 8 random bytes: unique, and it tells an operator which process it is. */
  private static String newInstanceId() {
    byte[] random = new byte[8];
    new SecureRandom().nextBytes(random);
    return ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
  }

  /** The commands, for plain reads and scans; callers wrap failures with {@link #failure}. */
  RedisClusterCommands<byte[], byte[]> commands() {
    return commands;
  }

  RedisStoreException failure(String operation, String where, RuntimeException e) {
    String what = operation + " on " + where;
    if (e instanceof RedisCommandTimeoutException) {
      return new RedisStoreException(
          "Redis at "
              + uri
              + " did not answer within "
              + commandTimeout.toMillis()
              + " ms ("
              + what
              + ")",
          e);
    }
    boolean unavailable = !(e instanceof RedisCommandExecutionException) || isBusy(e.getMessage());
    return new RedisStoreException(
        "Redis at " + uri + " failed (" + what + "): " + e.getMessage(), e, unavailable);
  }

  /** An error reply that means "not now" rather than "wrong": the server cannot serve yet. */
  private static boolean isBusy(String message) {
    if (message == null) {
      return false;
    }
    for (String prefix :
        new String[] {"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN"}) {
      if (message.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** Every seed of a cluster without user name or password: {@code redis-cluster://h1:p1,h2:p2}. */
  static String redactedCluster(List<RedisURI> seeds) {
    StringBuilder where =
        new StringBuilder(seeds.get(0).isSsl() ? "rediss-cluster://" : "redis-cluster://");
    for (int i = 0; i < seeds.size(); i++) {
      if (i > 0) {
        where.append(',');
      }
      where.append(seeds.get(i).getHost()).append(':').append(seeds.get(i).getPort());
    }
    return where.toString();
  }

  /** The URI without user name or password: only scheme, host, port and database. */
  static String redacted(RedisURI uri) {
    String scheme = uri.isSsl() ? "rediss" : "redis";
    String where;
    if (uri.getSocket() != null) {
      scheme = "redis-socket";
      where = uri.getSocket();
    } else if (uri.getHost() != null) {
      where = uri.getHost() + ":" + uri.getPort();
    } else {
      scheme = "redis-sentinel";
      StringBuilder sentinels = new StringBuilder();
      for (RedisURI sentinel : uri.getSentinels()) {
        if (sentinels.length() > 0) {
          sentinels.append(',');
        }
        sentinels.append(sentinel.getHost()).append(':').append(sentinel.getPort());
      }
      where = sentinels + "#" + uri.getSentinelMasterId();
    }
    return scheme + "://" + where + (uri.getDatabase() == 0 ? "" : "/" + uri.getDatabase());
  }

  /** Builds a {@link RelentRedis}. Mutable and not thread-safe. */
  public static final class Builder {
    private final List<String> uris;
    private final boolean cluster;
    private Duration commandTimeout = Duration.ofMillis(DEFAULT_COMMAND_TIMEOUT_MILLIS);
    private Duration connectTimeout = Duration.ofSeconds(2);
    private RedisFallback fallback = RedisFallback.localShare(1);

    private Builder(List<String> uris, boolean cluster) {
      this.uris = uris;
      this.cluster = cluster;
    }

    /**
     * Sets how long one operation waits for Redis before it throws; default 50 ms. A guard decision
     * waits for it on every call, so keep it short.
     *
     * @param timeout &gt; 0
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder withCommandTimeout(Duration timeout) {
      this.commandTimeout = positive("commandTimeout", timeout);
      return this;
    }

    /**
     * Sets how long {@link #build()} waits for the connection; default 2 s.
     *
     * @param timeout &gt; 0
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder withConnectTimeout(Duration timeout) {
      this.connectTimeout = positive("connectTimeout", timeout);
      return this;
    }

    /**
     * Sets what the guards do while Redis is away; default {@link RedisFallback#localShare(int)
     * localShare(1)}: in memory at {@code 1/n} of each limit, {@code n} the processes seen sharing
     * the guard. {@link RedisFallback#none()} makes every operation throw instead.
     *
     * @param fallback the policy
     * @return this builder
     * @throws NullPointerException if {@code fallback} is null
     */
    public Builder withFallback(RedisFallback fallback) {
      this.fallback = Objects.requireNonNull(fallback, "fallback cannot be null");
      return this;
    }

    /**
     * Connects.
     *
     * @return a connected instance
     * @throws RedisStoreException if Redis cannot be reached
     * @throws IllegalArgumentException if the URI is malformed
     */
    public RelentRedis build() {
      List<RedisURI> parsed = new ArrayList<>(uris.size());
      for (String uri : uris) {
        RedisURI redisUri = RedisURI.create(uri);
        if (cluster && redisUri.getDatabase() != 0) {
          throw new IllegalArgumentException(
              "a Redis Cluster has only database 0: leave the /"
                  + redisUri.getDatabase()
                  + " out of the seed "
                  + redacted(redisUri));
        }
        parsed.add(redisUri);
      }
      return new RelentRedis(parsed, cluster, commandTimeout, connectTimeout, fallback);
    }

    private static Duration positive(String what, Duration d) {
      Objects.requireNonNull(d, what + " cannot be null");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be > 0: " + d);
      }
      return d;
    }
  }
}
