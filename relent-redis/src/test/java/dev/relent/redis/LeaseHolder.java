package dev.relent.redis;

import java.time.Duration;

/**
 * A process that takes slots of a shared concurrency limit and holds them until it is killed:
 * {@code LeaseHolder URI NAME SLOTS LEASE_MILLIS}. It prints {@code held N} once it holds them.
 */
public final class LeaseHolder {
  private LeaseHolder() {}

  /**
   * Takes the slots and waits to be killed.
   *
   * @param args the Redis URI, the limit's name, the slots to take, the lease in milliseconds
   * @throws InterruptedException never in practice: the process is killed
   */
  public static void main(String[] args) throws InterruptedException {
    RelentRedis redis =
        RelentRedis.builder(args[0]).withCommandTimeout(Duration.ofSeconds(5)).build();
    RedisConcurrencyLimitState slots =
        redis.concurrencyLimitState(args[1], Duration.ofMillis(Long.parseLong(args[3])));
    int wanted = Integer.parseInt(args[2]);
    for (int i = 0; i < wanted; i++) {
      if (!slots.tryAcquire(wanted)) {
        System.out.println("refused");
        System.exit(2);
      }
    }
    System.out.println("held " + slots.held());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
