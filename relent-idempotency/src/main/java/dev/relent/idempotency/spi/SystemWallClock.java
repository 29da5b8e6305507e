package dev.relent.idempotency.spi;

/** The default wall clock: the only main code of this module allowed to read the system's own. */
@SuppressForbidden("the default implementation of the WallClock SPI")
enum SystemWallClock implements WallClock {
  INSTANCE;

  @Override
  public long millis() {
    return System.currentTimeMillis();
  }
}
