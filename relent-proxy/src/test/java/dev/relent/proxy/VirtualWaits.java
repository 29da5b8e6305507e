package dev.relent.proxy;

import dev.relent.time.FakeTime;
import dev.relent.time.Scheduler;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A time source for the proxy's tests: the executor's waits between attempts (up to {@link
 * #VIRTUAL}) pass at once on virtual time, which moves by each wait, so that a test of {@code
 * Retry-After: 2} takes no real time and can still assert the two seconds; longer timers (the
 * attempt timeout and deadline, set to an hour in these tests) run on real time and never fire.
 */
final class VirtualWaits implements Scheduler, AutoCloseable {
  static final Duration VIRTUAL = Duration.ofMinutes(20);

  final FakeTime time = new FakeTime();
  final List<Duration> waits = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "virtual-waits");
            t.setDaemon(true);
            return t;
          });

  TimeSource source() {
    return TimeSource.of(time, time, time.sleeper(), this, time.random());
  }

  @Override
  public Future<?> schedule(Runnable task, long delayNanos) {
    if (delayNanos >= VIRTUAL.toNanos()) {
      return thread.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
    return thread.submit(
        () -> {
          if (delayNanos > 0) {
            waits.add(Duration.ofNanos(delayNanos));
            time.advanceNanos(delayNanos);
          }
          task.run();
        });
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
