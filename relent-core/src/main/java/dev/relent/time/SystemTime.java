package dev.relent.time;

import dev.relent.internal.SuppressForbidden;
import java.util.concurrent.ThreadLocalRandom;

/** The default time and randomness: the only main code allowed to read the system's own. */
@SuppressForbidden("the default implementations of the time and randomness SPI")
enum SystemTime implements Ticker, Clock, Sleeper, RandomSource {
  INSTANCE;

  @Override
  public long read() {
    return System.nanoTime();
  }

  @Override
  public long millis() {
    return System.currentTimeMillis();
  }

  @Override
  public void sleep(long nanos) throws InterruptedException {
    if (nanos > 0) {
      Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
    }
  }

  @Override
  public double nextDouble() {
    return ThreadLocalRandom.current().nextDouble();
  }
}
