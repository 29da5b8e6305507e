package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.idempotency.spi.IdempotencyRecord;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the Redis-backed states do when Redis is away or slow: throw, naming the URI only. */
class RedisFailureTest {

  @Test
  void aRedisThatCannotBeReachedIsNamedWithoutItsPassword() throws IOException {
    int closedPort;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = free.getLocalPort();
    }
    String uri = "redis://alice:s3cret@127.0.0.1:" + closedPort + "/2";

    assertThatThrownBy(() -> RelentRedis.connect(uri))
        .isInstanceOf(RedisStoreException.class)
        .hasMessageContaining("redis://127.0.0.1:" + closedPort + "/2")
        .hasMessageNotContaining("s3cret")
        .hasMessageNotContaining("alice");
  }

  @Test
  void redactedUrisKeepOnlyWhereRedisIs() {
    assertThat(RelentRedis.redacted(RedisURI.create("rediss://:pw@example.com:6380/3")))
        .isEqualTo("rediss://example.com:6380/3");
    assertThat(RelentRedis.redacted(RedisURI.create("redis://user:pw@localhost")))
        .isEqualTo("redis://localhost:6379");
    assertThat(RelentRedis.redacted(RedisURI.create("redis-sentinel://pw@h1:26379,h2:26380#main")))
        .isEqualTo("redis-sentinel://h1:26379,h2:26380#main")
        .doesNotContain("pw");
  }

  @Test
  void aRedisThatStopsAnsweringTimesOutWithAClearError() throws Exception {
    try (FreezingProxy proxy = new FreezingProxy(6379);
        RelentRedis redis =
            RelentRedis.builder("redis://127.0.0.1:" + proxy.port())
                .withCommandTimeout(Duration.ofMillis(50))
                .withFallback(RedisFallback.none())
                .build()) {
      String name = LocalRedis.uniqueName("frozen");
      RedisPacerState state = redis.pacerState(name);
      RedisIdempotencyStore store = redis.idempotencyStore(name);
      assertThat(state.pausedUntil()).isEqualTo(Long.MIN_VALUE); // answers while not frozen

      proxy.freeze();
      assertThatThrownBy(() -> state.reserve(0, 1_000_000, 0, 0))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining("Redis at redis://127.0.0.1:" + proxy.port())
          .hasMessageContaining("did not answer within 50 ms")
          .hasMessageContaining("relent:{" + name + "}:pacer");
      assertThatThrownBy(() -> store.find("scope", "secret-key", 0))
          .isInstanceOf(RedisStoreException.class)
          .hasMessageContaining("did not answer within 50 ms")
          .hasMessageContaining("relent:idem:" + name + ":*") // the namespace, never the key
          .hasMessageNotContaining("secret-key");
      assertThatThrownBy(
              () -> store.begin(IdempotencyRecord.inFlight("s", "k", "fp", "t", 1, 2), 1))
          .isInstanceOf(RedisStoreException.class);
    }
  }

  @Test
  void theDefaultCommandTimeoutIsShort() {
    try (RelentRedis redis = RelentRedis.connect(LocalRedis.URI)) {
      assertThat(redis.commandTimeout()).isEqualTo(Duration.ofMillis(50));
      assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:6379");
    } catch (RedisStoreException e) {
      throw new AssertionError("no Redis on 127.0.0.1:6379: run scripts/services.sh", e);
    }
  }

  /**
   * A TCP proxy in front of the real Redis that can stop passing the answers on, as a Redis that
   * hangs or a network that drops packets would.
   */
  static final class FreezingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> sockets = new ArrayList<>();
    private volatile boolean frozen;

    FreezingProxy(int redisPort) throws IOException {
      server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    Socket client = server.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), redisPort);
                    synchronized (sockets) {
                      sockets.add(client);
                      sockets.add(upstream);
                    }
                    pump(client, upstream, false);
                    pump(upstream, client, true);
                  }
                } catch (IOException closed) {
                  // the proxy was closed
                }
              },
              "freezing-proxy");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return server.getLocalPort();
    }

    void freeze() {
      frozen = true;
    }

    private void pump(Socket from, Socket to, boolean answers) {
      Thread t =
          new Thread(
              () -> {
                byte[] buffer = new byte[8192];
                try (InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream()) {
                  int n;
                  while ((n = in.read(buffer)) >= 0) {
                    if (!(answers && frozen)) {
                      out.write(buffer, 0, n);
                      out.flush();
                    }
                  }
                } catch (IOException closed) {
                  // either side closed
                }
              },
              "freezing-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      server.close();
      synchronized (sockets) {
        for (Socket s : sockets) {
          s.close();
        }
      }
    }
  }
}
