package dev.relent.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real Redis the tests run against, on 127.0.0.1:6379. A test that cannot reach it fails and
 * says how to start it; none is skipped.
 */
final class LocalRedis {
  static final String URI = "redis://127.0.0.1:6379";

  private static final AtomicLong COUNTER = new AtomicLong();

  private LocalRedis() {}

  /** A connection with a patient timeout: the tests share two cores with other builds. */
  static RelentRedis connect() {
    try {
      return RelentRedis.builder(URI).withCommandTimeout(Duration.ofSeconds(5)).build();
    } catch (RedisStoreException e) {
      throw new AssertionError(
          "no Redis on 127.0.0.1:6379: run scripts/services.sh to start it ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /** A name no other test, run or process uses, so that tests never meet each other's keys. */
  static String uniqueName(String what) {
    return "test-"
        + what
        + "-"
        + ProcessHandle.current().pid()
        + "-"
        + System.nanoTime()
        + "-"
        + COUNTER.incrementAndGet();
  }

  /** Deletes every key that matches the pattern; returns how many. */
  static long deleteKeys(RelentRedis redis, String pattern) {
    long deleted = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
    do {
      KeyScanCursor<byte[]> batch = redis.commands().scan(cursor, args);
      List<byte[]> keys = batch.getKeys();
      if (!keys.isEmpty()) {
        deleted += redis.commands().del(keys.toArray(new byte[0][]));
      }
      cursor = batch;
    } while (!cursor.isFinished());
    return deleted;
  }

  /** Redis's clock in nanoseconds, with its microsecond resolution. */
  static long redisTimeNanos(RelentRedis redis) {
    List<byte[]> time = redis.commands().time();
    long seconds = Long.parseLong(new String(time.get(0), StandardCharsets.UTF_8));
    long micros = Long.parseLong(new String(time.get(1), StandardCharsets.UTF_8));
    return seconds * 1_000_000_000L + micros * 1_000L;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
