package dev.relent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.Pacer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two processes' BRACKET pacers on one Redis pacer learn one interval: what the answers to one of
 * them say paces the other at once, and each answer counts as the fleet's. Two connections stand
 * for the two processes; the starts are named on the system ticker without waiting for them (the
 * controller compares them with each other only).
 */
class RedisFleetPacerTest {
  private static final long MS = 1_000_000L;

  private RelentRedis one;
  private RelentRedis two;
  private String name;

  @BeforeEach
  void connect() {
    one = LocalRedis.connect();
    two = LocalRedis.connect();
    name = LocalRedis.uniqueName("fleet");
  }

  @AfterEach
  void close() {
    LocalRedis.deleteKeys(one, "relent:{" + name + "}:*");
    one.close();
    two.close();
  }

  private static Pacer bracket(RelentRedis redis, String name) {
    return Pacer.builder()
        .adaptive(Pacer.Congestion.BRACKET)
        .withState(redis.pacerState(name))
        .build();
  }

  @Test
  void aThrottleOfOneProcessPacesTheOtherAndTheirAcceptsBracketOneLimit() {
    Pacer a = bracket(one, name);
    Pacer b = bracket(two, name);
    long t = System.nanoTime();

    // A limiter of one start every 100 ms. A's start at t is accepted, B's 40 ms later refused:
    // the fleet's refused bound is 40 ms, and B paces at what was accepted in the last second.
    a.onAccepted(t);
    b.onThrottled(t + 40 * MS, t + 41 * MS);
    Duration first = b.interval();
    assertThat(first).isEqualTo(Duration.ofMillis(250));
    // A learned it from B's answer, without one of its own: its next answer continues from there.
    a.onAccepted(t + 300 * MS);
    assertThat(a.interval()).isEqualTo(first);

    // Accepts at the pace, alternating between the two: the fleet halves its pace after two.
    b.onAccepted(t + 550 * MS);
    assertThat(b.interval()).isLessThan(first);
    assertThat(a.interval()).isEqualTo(first); // until A hears an answer of its own

    // Alternate refusals and accepts of a 100 ms limiter: both end paced between the bounds.
    long sent = t + 550 * MS;
    long lastAccepted = sent;
    for (int i = 0; i < 60; i++) {
      Pacer p = i % 2 == 0 ? a : b;
      sent += p.interval().toNanos();
      if (sent - lastAccepted >= 100 * MS) {
        lastAccepted = sent;
        p.onAccepted(sent);
      } else {
        p.onThrottled(sent, sent + MS);
      }
    }
    a.onAccepted(sent + 200 * MS);
    b.onAccepted(sent + 300 * MS);
    assertThat(a.interval())
        .isEqualTo(b.interval())
        .isBetween(Duration.ofMillis(100), Duration.ofMillis(130));
  }

  @Test
  void aProcessThatHeardNothingYetReservesAtTheFleetsInterval() {
    Pacer learner = bracket(one, name);
    Pacer newcomer = bracket(two, name);
    long t = System.nanoTime();
    learner.onAccepted(t);
    learner.onThrottled(t + 10 * MS, t + 11 * MS);
    Duration learned = learner.interval();
    assertThat(learned).isEqualTo(Duration.ofMillis(250));

    // Each wait is counted from when Redis ran the reservation: less the time between the two.
    long now = System.nanoTime();
    long first = newcomer.tryAcquire(now, Long.MAX_VALUE);
    long second = newcomer.tryAcquire(now, Long.MAX_VALUE);
    long passed = System.nanoTime() - now;
    assertThat(second - first).isBetween(learned.toNanos() - passed, learned.toNanos() + MS);
  }
}
