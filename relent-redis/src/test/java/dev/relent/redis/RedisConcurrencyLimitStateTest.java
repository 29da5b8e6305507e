package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The leases of the shared concurrency limit: processes share one count, a dead process's slots
 * come back when its lease ends, a live one renews, and a count lost in a restart is rebuilt from
 * the live holders.
 */
class RedisConcurrencyLimitStateTest {

  @Test
  void processesShareOneCount() {
    try (RelentRedis a = LocalRedis.connect();
        RelentRedis b = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("share");
      RedisConcurrencyLimitState mine = a.concurrencyLimitState(name);
      RedisConcurrencyLimitState theirs = b.concurrencyLimitState(name);

      assertThat(mine.tryAcquire(3)).isTrue();
      assertThat(mine.tryAcquire(3)).isTrue();
      assertThat(theirs.tryAcquire(3)).isTrue();
      assertThat(theirs.tryAcquire(3)).isFalse();
      assertThat(mine.inUse()).isEqualTo(3);
      assertThat(theirs.inUse()).isEqualTo(3);
      assertThat(mine.held()).isEqualTo(2);
      assertThat(theirs.processesSeen()).isEqualTo(2);

      mine.release();
      assertThat(theirs.tryAcquire(3)).isTrue();
      assertThat(theirs.held()).isEqualTo(2);
    }
  }

  @Test
  void theSlotsOfAnExpiredLeaseAreFreeAgain() {
    try (RelentRedis a = LocalRedis.connect();
        RelentRedis b = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("expired");
      RedisConcurrencyLimitState dead = a.concurrencyLimitState(name);
      RedisConcurrencyLimitState alive = b.concurrencyLimitState(name);
      assertThat(dead.tryAcquire(2)).isTrue();
      assertThat(dead.tryAcquire(2)).isTrue();
      assertThat(alive.tryAcquire(2)).isFalse();

      // The holder's lease ends (here: moved into the past, as the end of a lease not renewed).
      a.commands()
          .zadd(
              LocalRedis.bytes(RedisPacerState.guardKey(name, "leases")),
              0.0,
              LocalRedis.bytes(a.instanceId()));

      assertThat(alive.tryAcquire(2)).isTrue();
      assertThat(alive.tryAcquire(2)).isTrue();
      assertThat(alive.inUse()).isEqualTo(2);
    }
  }

  @Test
  void aCountLostInARestartIsRebuiltByTheLiveHolders() {
    try (RelentRedis a = LocalRedis.connect();
        RelentRedis b = LocalRedis.connect()) {
      String name = LocalRedis.uniqueName("rebuilt");
      RedisConcurrencyLimitState first = a.concurrencyLimitState(name);
      RedisConcurrencyLimitState second = b.concurrencyLimitState(name);
      assertThat(first.tryAcquire(3)).isTrue();
      assertThat(first.tryAcquire(3)).isTrue();

      LocalRedis.deleteKeys(a, "relent:{" + name + "}:*"); // what a restart without data does

      assertThat(second.tryAcquire(3)).isTrue(); // sees nobody: for one renewal, 3 are out
      assertThat(first.renew()).isTrue(); // the holder's next renewal writes its 2 back
      assertThat(second.inUse()).isEqualTo(3);
      assertThat(second.tryAcquire(3)).isFalse();
    }
  }

  @Test
  void aKilledProcessGivesItsSlotsBackWithinItsLeaseAndALiveOneKeepsThem() throws Exception {
    String name = LocalRedis.uniqueName("killed");
    long leaseMillis = 1_000;
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process holder =
        new ProcessBuilder(
                java,
                "-Xmx64m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                LeaseHolder.class.getName(),
                LocalRedis.URI,
                name,
                "3",
                Long.toString(leaseMillis))
            .redirectErrorStream(true)
            .start();
    try (RelentRedis redis = LocalRedis.connect();
        BufferedReader out =
            new BufferedReader(
                new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("held 3");
      RedisConcurrencyLimitState mine = redis.concurrencyLimitState(name);
      assertThat(mine.tryAcquire(3)).isFalse();

      // Two leases later the live holder still has them: it renews every third of a lease.
      Thread.sleep(2 * leaseMillis);
      assertThat(mine.inUse()).isEqualTo(3);
      assertThat(mine.tryAcquire(3)).isFalse();

      holder.destroyForcibly(); // SIGKILL: no release, no goodbye
      assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
      long killed = System.nanoTime();
      while (!mine.tryAcquire(3)) {
        assertThat(Duration.ofNanos(System.nanoTime() - killed))
            .as("the dead holder's slots are back within its lease")
            .isLessThan(Duration.ofMillis(leaseMillis + 1_000));
        Thread.sleep(20);
      }
      assertThat(mine.tryAcquire(3)).isTrue();
      assertThat(mine.tryAcquire(3)).isTrue();
      assertThat(mine.inUse()).isEqualTo(3);
      for (int i = 0; i < 3; i++) {
        mine.release();
      }
      assertThat(mine.inUse()).isZero();
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  void badArgumentsAreRefusedWithTheRule() {
    try (RelentRedis redis = LocalRedis.connect()) {
      assertThatThrownBy(() -> redis.concurrencyLimitState("x", Duration.ofMillis(10)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("lease must be from 1 s to 1 day");
      assertThatThrownBy(() -> redis.concurrencyLimitState("a b"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permits name must be printable ASCII");
      RedisConcurrencyLimitState slots = redis.concurrencyLimitState(LocalRedis.uniqueName("bad"));
      assertThatThrownBy(() -> slots.tryAcquire(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("max must be >= 1");
      assertThatThrownBy(slots::release)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("holds no slot of relent:{");
      assertThat(List.of(slots.lease())).containsExactly(Duration.ofSeconds(10));
    }
  }
}
