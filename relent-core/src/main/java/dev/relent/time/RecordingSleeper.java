package dev.relent.time;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Sleeper} that never blocks: it records each requested wait and advances a {@link
 * FakeTime} by exactly that much, so a synchronous execution with five retries finishes in
 * microseconds while the code under test sees the full waits.
 *
 * <p>Thread-safe. A thread that is interrupted when it calls {@link #sleep(long)} gets an {@link
 * InterruptedException}, as with a real sleep.
 */
public final class RecordingSleeper implements Sleeper {
  private final FakeTime time;
  private final List<Duration> waits = new ArrayList<>();

  /**
   * Creates a sleeper that advances the given time.
   *
   * @param time the fake time to advance
   * @throws NullPointerException if {@code time} is null
   */
  public RecordingSleeper(FakeTime time) {
    this.time = Objects.requireNonNull(time, "time cannot be null");
  }

  @Override
  public void sleep(long nanos) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before a wait of " + nanos + " ns");
    }
    synchronized (waits) {
      waits.add(Duration.ofNanos(nanos));
    }
    time.advanceNanos(Math.max(0L, nanos));
  }

  /**
   * Returns every wait requested so far, in order.
   *
   * @return an immutable copy
   */
  public List<Duration> waits() {
    synchronized (waits) {
      return List.copyOf(waits);
    }
  }

  /**
   * Returns the sum of every wait requested so far.
   *
   * @return the total
   */
  public Duration total() {
    return waits().stream().reduce(Duration.ZERO, Duration::plus);
  }
}
