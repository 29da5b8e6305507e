package dev.relent.idempotency;

import dev.relent.idempotency.spi.IdempotencyStore;
import dev.relent.idempotency.spi.WallClock;
import java.time.Duration;

/**
 * The settings of an {@link IdempotencyHandler}, as {@link IdempotencyHandlerBuilder} made them.
 * Pass one to {@link IdempotencyHandler#builder(IdempotencyConfig)} to derive a handler that shares
 * the store.
 *
 * <p>Immutable and thread-safe.
 */
public final class IdempotencyConfig {

  private final IdempotencyStore store;
  private final Duration expiry;
  private final Duration inFlightTimeout;
  private final WallClock clock;
  private final boolean keyRequired;
  private final int maxKeyLength;

  IdempotencyConfig(
      IdempotencyStore store,
      Duration expiry,
      Duration inFlightTimeout,
      WallClock clock,
      boolean keyRequired,
      int maxKeyLength) {
    this.store = store;
    this.expiry = expiry;
    this.inFlightTimeout = inFlightTimeout;
    this.clock = clock;
    this.keyRequired = keyRequired;
    this.maxKeyLength = maxKeyLength;
  }

  /**
   * Returns where records live.
   *
   * @return the store
   */
  public IdempotencyStore store() {
    return store;
  }

  /**
   * Returns how long a stored response is replayed, counted from when it was stored.
   *
   * @return the expiry; default 24 h
   */
  public Duration expiry() {
    return expiry;
  }

  /**
   * Returns how long a key stays claimed by a request that has not finished, counted from its
   * start: after that a duplicate executes again, assuming the first request's process died.
   *
   * @return the in-flight timeout; default 1 h
   */
  public Duration inFlightTimeout() {
    return inFlightTimeout;
  }

  /**
   * Returns the clock that dates records.
   *
   * @return the clock; default {@link WallClock#system()}
   */
  public WallClock clock() {
    return clock;
  }

  /**
   * Returns whether a request without {@code Idempotency-Key} is answered with 400 instead of
   * passing through.
   *
   * @return whether a key is required; default {@code false}
   */
  public boolean keyRequired() {
    return keyRequired;
  }

  /**
   * Returns the longest key accepted, in characters after unquoting.
   *
   * @return the maximum key length; default 255
   */
  public int maxKeyLength() {
    return maxKeyLength;
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
