package dev.relent.testing;

import dev.relent.mockserver.MockClock;
import dev.relent.time.Clock;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import java.util.Objects;

/**
 * The mock server's clock read from a client's {@link TimeSource}, usually the test's {@link
 * dev.relent.time.FakeTime}: the server stamps its journal and runs its rate limits on the same
 * virtual time as the client under test. {@link MockServerExtension#withClock(TimeSource)} uses it;
 * a test that builds a {@code MockServer} itself writes {@code
 * MockServer.builder(scenario).withClock(ServerClock.of(time))}.
 *
 * <p>(The mock server shares no code with the client it tests, so it cannot take a {@code
 * TimeSource} itself.) Thread-safe when the time source is, as {@code FakeTime} is.
 */
public final class ServerClock implements MockClock {
  private final Ticker ticker;
  private final Clock clock;

  private ServerClock(TimeSource time) {
    this.ticker = time.ticker();
    this.clock = time.clock();
  }

  /**
   * Returns the server clock that reads the given time source's ticker and wall clock.
   *
   * @param time the client's time, e.g. a {@code FakeTime}
   * @return a clock for {@code MockServer.Builder.withClock}
   * @throws NullPointerException if {@code time} is null
   */
  public static MockClock of(TimeSource time) {
    return new ServerClock(Objects.requireNonNull(time, "time cannot be null"));
  }

  @Override
  public long wallMillis() {
    return clock.millis();
  }

  @Override
  public long monotonicNanos() {
    return ticker.read();
  }
}
