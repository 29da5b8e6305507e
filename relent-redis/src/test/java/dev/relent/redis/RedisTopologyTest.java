package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.idempotency.spi.IdempotencyRecord;
import dev.relent.spi.CircuitBreakerState;
import dev.relent.spi.RetryBudgetState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every state on the two topologies beyond one server, each made of {@code redis-server} processes
 * of the test's own: a Redis Cluster of three primaries (the scripts' keys share a hash tag, so
 * each script runs on the node of its slot) and a primary found through Redis Sentinel.
 */
class RedisTopologyTest {
  private static final long MS = 1_000_000L;

  @Test
  void everyStateWorksOnARedisCluster() throws Exception {
    List<OwnRedis> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        nodes.add(
            new OwnRedis(
                List.of(
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", "2000"),
                List.of()));
      }
      List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
      for (OwnRedis node : nodes) {
        create.add("127.0.0.1:" + node.port());
      }
      create.add("--cluster-yes");
      Process made = new ProcessBuilder(create).redirectErrorStream(true).start();
      String said = new String(made.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(made.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(made.exitValue()).as(said).isZero();

      waitForCluster(nodes);
      List<String> seeds = List.of(nodes.get(0).uri(), nodes.get(1).uri());
      try (RelentRedis redis =
          RelentRedis.clusterBuilder(seeds)
              .withCommandTimeout(Duration.ofSeconds(5))
              .withFallback(RedisFallback.none())
              .build()) {
        assertThat(redis.uri())
            .isEqualTo(
                "redis-cluster://127.0.0.1:"
                    + nodes.get(0).port()
                    + ",127.0.0.1:"
                    + nodes.get(1).port());
        // Names spread over the slots, so over the three nodes: every script finds its keys.
        for (int n = 0; n < 12; n++) {
          String name = "cluster-" + n;
          RedisPacerState pacer = redis.pacerState(name);
          assertThat(pacer.reserve(0, 1_000 * MS, 0, 0)).isZero();
          assertThat(pacer.reserve(0, 1_000 * MS, 0, 0)).isNegative();
          pacer.pauseUntil(System.nanoTime() + 5_000 * MS);
          assertThat(pacer.pausedUntil()).isGreaterThan(System.nanoTime());

          RedisConcurrencyLimitState slots = redis.concurrencyLimitState(name);
          assertThat(slots.tryAcquire(1)).isTrue();
          assertThat(slots.tryAcquire(1)).isFalse();
          slots.release();
          assertThat(slots.inUse()).isZero();

          RedisRetryBudgetState budget = redis.retryBudgetState(name);
          RetryBudgetState.Config window =
              new RetryBudgetState.Config(Duration.ofSeconds(1).toNanos(), 10, 100_000, 1);
          assertThat(budget.tryAcquireRetry(0, window)).isTrue();
          assertThat(budget.tryAcquireRetry(0, window)).isFalse();

          RedisCircuitBreakerState breaker = redis.circuitBreakerState(name);
          CircuitBreakerState.Config config =
              new CircuitBreakerState.Config(2, 0, 0, 1, 100.0, Duration.ofHours(1).toNanos(), 1);
          breaker.onFailure(0, config);
          assertThat(breaker.tryAcquirePermission(0, config)).isPositive(); // open

          RedisIdempotencyStore store = redis.idempotencyStore("cluster");
          long now = System.currentTimeMillis();
          IdempotencyRecord claim =
              IdempotencyRecord.inFlight("s", "k" + n, "fp", "t", now, now + 60_000);
          assertThat(store.begin(claim, now)).isEmpty();
          assertThat(store.find("s", "k" + n, now)).isPresent();
        }
      }
    } finally {
      for (OwnRedis node : nodes) {
        node.close();
      }
    }
  }

  @Test
  void aSentinelNamesThePrimaryAndThePasswordStaysOutOfTheName() throws Exception {
    try (OwnRedis primary = new OwnRedis();
        OwnRedis sentinel =
            new OwnRedis(
                List.of("--sentinel"),
                List.of(
                    "sentinel monitor relent-main 127.0.0.1 " + primary.port() + " 1",
                    "sentinel down-after-milliseconds relent-main 5000"));
        RelentRedis redis =
            RelentRedis.builder("redis-sentinel://127.0.0.1:" + sentinel.port() + "#relent-main")
                .withCommandTimeout(Duration.ofSeconds(5))
                .build()) {
      assertThat(redis.uri())
          .isEqualTo("redis-sentinel://127.0.0.1:" + sentinel.port() + "#relent-main");
      RedisPacerState pacer = redis.pacerState("sentinel");
      assertThat(pacer.reserve(0, 1_000 * MS, 0, 0)).isZero();
      assertThat(pacer.reserve(0, 1_000 * MS, 0, 0)).isNegative();
      // The schedule is on the primary itself.
      try (RelentRedis direct = RelentRedis.connect(primary.uri())) {
        assertThat(direct.commands().exists(LocalRedis.bytes(RedisPacerState.keyOf("sentinel"))))
            .isEqualTo(1);
      }
    }
  }

  @Test
  void aClusterSeedWithADatabaseOrNoSeedIsRefused() {
    assertThatThrownBy(() -> RelentRedis.clusterBuilder(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one node");
    assertThatThrownBy(
            () -> RelentRedis.clusterBuilder(List.of("redis://:pw@127.0.0.1:7000/3")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only database 0")
        .hasMessageNotContaining("pw");
  }

  /** A new cluster agrees on its slots within seconds: polls every node until it says so. */
  private static void waitForCluster(List<OwnRedis> nodes)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (OwnRedis node : nodes) {
      try (RelentRedis one =
          RelentRedis.builder(node.uri()).withCommandTimeout(Duration.ofSeconds(5)).build()) {
        while (!one.commands().clusterInfo().contains("cluster_state:ok")) {
          if (System.nanoTime() > deadline) {
            throw new IOException("the cluster did not become ready within 30 s");
          }
          Thread.sleep(50);
        }
      }
    }
  }
}
