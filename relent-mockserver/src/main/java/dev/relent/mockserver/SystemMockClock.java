package dev.relent.mockserver;

/** The default {@link MockClock}: the only main code of this module that reads system time. */
@SuppressForbidden("the default implementation of the mock server's clock")
enum SystemMockClock implements MockClock {
  INSTANCE;

  @Override
  public long wallMillis() {
    return System.currentTimeMillis();
  }

  @Override
  public long monotonicNanos() {
    return System.nanoTime();
  }
}
