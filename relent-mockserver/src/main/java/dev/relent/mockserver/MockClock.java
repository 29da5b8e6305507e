package dev.relent.mockserver;

/**
 * The mock server's two time sources: wall time for the dates it writes ({@code Date}, {@code
 * Retry-After} as an HTTP-date, the daily quota's reset) and monotonic time for the token buckets
 * of its rate limits.
 *
 * <p>Inject a fake in tests to make rate-limit and quota behaviour exact without sleeping. Real
 * waits ({@code delay}, {@code stall}, latency) always run on the server's event loops in real
 * time: they are about what the client sees on the wire, not about the scenario's state.
 * Implementations must be thread-safe: the server reads them from several event-loop threads.
 */
public interface MockClock {

  /**
   * Returns the current wall-clock time.
   *
   * @return milliseconds since the Unix epoch
   */
  long wallMillis();

  /**
   * Returns the current reading of a monotonic clock; only differences between readings matter.
   *
   * @return nanoseconds since an arbitrary, fixed origin
   */
  long monotonicNanos();

  /**
   * Returns the clock backed by the system's wall clock and {@code System.nanoTime()}.
   *
   * @return the system clock, shared and thread-safe
   */
  static MockClock system() {
    return SystemMockClock.INSTANCE;
  }
}
