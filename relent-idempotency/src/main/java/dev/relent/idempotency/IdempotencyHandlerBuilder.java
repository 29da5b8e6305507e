package dev.relent.idempotency;

import dev.relent.idempotency.spi.IdempotencyStore;
import dev.relent.idempotency.spi.WallClock;
import java.time.Duration;
import java.util.Objects;

/**
 * Builds an {@link IdempotencyHandler}. Defaults: a new {@link InMemoryIdempotencyStore} per {@link
 * #build()}, expiry 24 h, in-flight timeout 1 h, {@link WallClock#system()}, key not required, keys
 * of at most 255 characters.
 *
 * <p>Mutable and not thread-safe; {@link #build()} copies the settings into an immutable {@link
 * IdempotencyConfig}.
 */
public final class IdempotencyHandlerBuilder {

  static final Duration DEFAULT_EXPIRY = Duration.ofHours(24);
  static final Duration DEFAULT_IN_FLIGHT_TIMEOUT = Duration.ofHours(1);
  static final int DEFAULT_MAX_KEY_LENGTH = 255;

  private IdempotencyStore store;
  private Duration expiry = DEFAULT_EXPIRY;
  private Duration inFlightTimeout = DEFAULT_IN_FLIGHT_TIMEOUT;
  private WallClock clock = WallClock.system();
  private boolean keyRequired;
  private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;

  IdempotencyHandlerBuilder() {}

  IdempotencyHandlerBuilder(IdempotencyConfig config) {
    Objects.requireNonNull(config, "config cannot be null");
    this.store = config.store();
    this.expiry = config.expiry();
    this.inFlightTimeout = config.inFlightTimeout();
    this.clock = config.clock();
    this.keyRequired = config.keyRequired();
    this.maxKeyLength = config.maxKeyLength();
  }

  /**
   * Sets where records live; default a new {@link InMemoryIdempotencyStore} per {@link #build()}.
   * Handlers that must see each other's keys (several routes of one API, several processes) share
   * one store.
   *
   * @param store the store
   * @return this builder
   * @throws NullPointerException if {@code store} is null
   */
  public IdempotencyHandlerBuilder withStore(IdempotencyStore store) {
    this.store = Objects.requireNonNull(store, "store cannot be null");
    return this;
  }

  /**
   * Sets how long a stored response is replayed, counted from when it was stored; default 24 h.
   * After that the key is free and a request with it executes again.
   *
   * @param expiry at least 1 ms
   * @return this builder
   * @throws NullPointerException if {@code expiry} is null
   * @throws IllegalArgumentException if {@code expiry} is shorter than 1 ms or longer than {@code
   *     Long.MAX_VALUE} ms
   */
  public IdempotencyHandlerBuilder withExpiry(Duration expiry) {
    this.expiry = IdempotencyConfig.checkDuration("expiry", expiry);
    return this;
  }

  /**
   * Sets how long a request that has not finished keeps its key claimed, counted from its start;
   * default 1 h. Duplicates get 409 meanwhile. Only a request whose process died (so neither stored
   * a response nor released the key) runs into it; set it above the longest time an operation may
   * take, or a slow operation may execute twice.
   *
   * @param inFlightTimeout at least 1 ms
   * @return this builder
   * @throws NullPointerException if {@code inFlightTimeout} is null
   * @throws IllegalArgumentException if {@code inFlightTimeout} is shorter than 1 ms or longer than
   *     {@code Long.MAX_VALUE} ms
   */
  public IdempotencyHandlerBuilder withInFlightTimeout(Duration inFlightTimeout) {
    this.inFlightTimeout = IdempotencyConfig.checkDuration("inFlightTimeout", inFlightTimeout);
    return this;
  }

  /**
   * Sets the clock that dates records; default {@link WallClock#system()}. Adapt relent-core's
   * clock with {@code withClock(clock::millis)}.
   *
   * @param clock the wall clock
   * @return this builder
   * @throws NullPointerException if {@code clock} is null
   */
  public IdempotencyHandlerBuilder withClock(WallClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock cannot be null");
    return this;
  }

  /**
   * Sets whether a request without {@code Idempotency-Key} gets 400 ({@code true}) or passes
   * through to the operation unprotected ({@code false}, the default).
   *
   * @param keyRequired whether the endpoint requires a key
   * @return this builder
   */
  public IdempotencyHandlerBuilder withKeyRequired(boolean keyRequired) {
    this.keyRequired = keyRequired;
    return this;
  }

  /**
   * Sets the longest key accepted, in characters after unquoting; default 255.
   *
   * @param maxKeyLength at least 1
   * @return this builder
   * @throws IllegalArgumentException if {@code maxKeyLength < 1}
   */
  public IdempotencyHandlerBuilder withMaxKeyLength(int maxKeyLength) {
    this.maxKeyLength = IdempotencyConfig.checkMaxKeyLength(maxKeyLength);
    return this;
  }

  /**
   * Builds the handler.
   *
   * @return an immutable, thread-safe handler
   */
  public IdempotencyHandler build() {
    IdempotencyStore s = store != null ? store : new InMemoryIdempotencyStore();
    return new DefaultIdempotencyHandler(
        new IdempotencyConfig(s, expiry, inFlightTimeout, clock, keyRequired, maxKeyLength));
  }
}
