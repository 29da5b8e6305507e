package dev.relent.time;

/**
 * A monotonic time source in nanoseconds, used for every deadline, backoff and guard decision.
 *
 * <p>Only differences between two readings are meaningful; the origin is arbitrary. Relent reads
 * the ticker once per attempt and hands that reading to every guard. Implementations must be
 * thread-safe.
 */
@FunctionalInterface
public interface Ticker {

  /**
   * Returns the current reading of this ticker.
   *
   * @return nanoseconds since an arbitrary, fixed origin
   */
  long read();

  /**
   * Returns the ticker backed by {@link System#nanoTime()}.
   *
   * @return the system ticker, shared and thread-safe
   */
  static Ticker system() {
    return SystemTime.INSTANCE;
  }
}
