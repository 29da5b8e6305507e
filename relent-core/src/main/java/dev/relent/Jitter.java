package dev.relent;

/**
 * How a backoff delay is randomised. With {@code window = min(cap, base * 2^(retry-1))}:
 *
 * <ul>
 *   <li>{@link #NONE}: exactly {@code window};
 *   <li>{@link #FULL} (the default): uniform in {@code [0, window)}; the fewest calls and a
 *       near-shortest completion under contention (Brooker, "Exponential Backoff and Jitter");
 *   <li>{@link #EQUAL}: half fixed, half random: {@code window/2 + U(0, window/2)};
 *   <li>{@link #DECORRELATED}: {@code U(base, min(cap, 3 * previous))}, starting from {@code
 *       previous = base}.
 * </ul>
 */
public enum Jitter {
  /** No randomness: every client waits exactly the exponential window. */
  NONE,
  /** Uniform in {@code [0, window)}; the default. */
  FULL,
  /** Half the window fixed, the other half uniform. */
  EQUAL,
  /** Uniform between the base and three times the previous delay, capped. */
  DECORRELATED
}
