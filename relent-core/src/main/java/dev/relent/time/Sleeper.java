package dev.relent.time;

/**
 * Blocks the calling thread for a wait chosen by Relent; the only place a synchronous execution
 * waits. Tests substitute a sleeper that records the wait and advances fake time instead.
 * Implementations must be thread-safe and must honour interruption.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Waits for the given time.
   *
   * @param nanos how long to wait; zero or negative returns at once
   * @throws InterruptedException if the thread is interrupted while waiting (the interrupt flag is
   *     then clear, as with {@link Thread#sleep(long)})
   */
  void sleep(long nanos) throws InterruptedException;

  /**
   * Returns the sleeper backed by {@link Thread#sleep(long, int)}.
   *
   * @return the system sleeper, shared and thread-safe
   */
  static Sleeper system() {
    return SystemTime.INSTANCE;
  }
}
