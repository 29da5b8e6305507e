package dev.relent.idempotency;

import dev.relent.idempotency.spi.IdempotencyStore;
import dev.relent.idempotency.spi.WallClock;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings of an {@link IdempotencyHandler}, as {@link IdempotencyHandlerBuilder} made them.
 * Pass one to {@link IdempotencyHandler#builder(IdempotencyConfig)} to derive a handler that shares
 * the store.
 *
 * <p>Immutable and thread-safe. Two configurations are equal when their settings are (the same
 * store and clock by their own {@code equals}).
 *
 * @param store where records live; default a new {@link InMemoryIdempotencyStore} per handler
 * @param expiry how long a stored response is replayed, counted from when it was stored; default 24
 *     h
 * @param inFlightTimeout how long a key stays claimed by a request that has not finished, counted
 *     from its start: after that a duplicate executes again, assuming the first request's process
 *     died; default 1 h
 * @param clock the clock that dates records; default {@link WallClock#system()}
 * @param keyRequired whether a request without {@code Idempotency-Key} is answered with 400 instead
 *     of passing through; default {@code false}
 * @param maxKeyLength the longest key accepted, in characters after unquoting; default 255
 */
public record IdempotencyConfig(
    IdempotencyStore store,
    Duration expiry,
    Duration inFlightTimeout,
    WallClock clock,
    boolean keyRequired,
    int maxKeyLength) {

  private static final Duration MAX_DURATION = Duration.ofMillis(Long.MAX_VALUE);

  /**
   * Checks the settings as the builder's setters do.
   *
   * @throws NullPointerException if {@code store}, {@code expiry}, {@code inFlightTimeout} or
   *     {@code clock} is null
   * @throws IllegalArgumentException if a duration is shorter than 1 ms or longer than {@code
   *     Long.MAX_VALUE} ms, or {@code maxKeyLength < 1}
   */
  public IdempotencyConfig {
    Objects.requireNonNull(store, "store cannot be null");
    checkDuration("expiry", expiry);
    checkDuration("inFlightTimeout", inFlightTimeout);
    Objects.requireNonNull(clock, "clock cannot be null");
    checkMaxKeyLength(maxKeyLength);
  }

  static Duration checkDuration(String name, Duration d) {
    Objects.requireNonNull(d, name + " cannot be null");
    if (d.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException(name + " must be >= 1 ms: " + describe(d));
    }
    if (d.compareTo(MAX_DURATION) > 0) {
      throw new IllegalArgumentException(
          name + " must be <= " + Long.MAX_VALUE + " ms: " + d.getSeconds() + " s");
    }
    return d;
  }

  static int checkMaxKeyLength(int maxKeyLength) {
    if (maxKeyLength < 1) {
      throw new IllegalArgumentException(
          "maxKeyLength must be >= 1: " + maxKeyLength + " characters");
    }
    return maxKeyLength;
  }

  private static String describe(Duration d) {
    // Whole milliseconds read best as "-5 ms"; anything finer keeps Duration's own notation.
    return d.getNano() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toString();
  }

  @Override
  public String toString() {
    return "IdempotencyConfig{store="
        + store
        + ", expiry="
        + expiry
        + ", inFlightTimeout="
        + inFlightTimeout
        + ", keyRequired="
        + keyRequired
        + ", maxKeyLength="
        + maxKeyLength
        + '}';
  }
}
