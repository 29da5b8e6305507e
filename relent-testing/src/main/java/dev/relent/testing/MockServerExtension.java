package dev.relent.testing;

import dev.relent.mockserver.MockClock;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts a Relent mock server on loopback for each test, or once for a test class, and injects it.
 * Register it on a field:
 *
 * <pre>{@code
 * final FakeTime time = new FakeTime();
 *
 * @RegisterExtension
 * final MockServerExtension mock = MockServerExtension.of(Scenario.parse(json)).withClock(time); // per test
 *
 * @RegisterExtension
 * static final MockServerExtension shared = MockServerExtension.fromResource("/flaky.json"); // per class
 *
 * @Test
 * void retries(MockServer server) { ... server.uri("/flaky") ... }
 * }</pre>
 *
 * <p>An instance field gives every test a fresh server (fresh step counters and journal); a static
 * field starts one server before all tests of the class and stops it after.
 *
 * <p>Spacing assertions ({@link JournalAssert#spacedWithin(Envelope)} and the others that measure
 * gaps) need virtual time: give the extension the same {@link FakeTime} as the client ({@link
 * #withClock(TimeSource)}) and the journal records arrivals on the client's clock, exact to the
 * millisecond. On the default system clock the gaps are whatever the machine took, so those
 * assertions fail at once on a journal recorded there, saying so.
 *
 * <p>Not thread-safe: JUnit calls it from one thread per test class.
 */
public final class MockServerExtension
    implements BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        ParameterResolver {
  private final Scenario scenario;
  private MockClock clock = MockClock.system();
  private MockServer server;
  private boolean perClass;

  private MockServerExtension(Scenario scenario) {
    this.scenario = scenario;
  }

  /**
   * Creates an extension for a scenario.
   *
   * @param scenario what the server answers
   * @return a new extension
   * @throws NullPointerException if {@code scenario} is null
   */
  public static MockServerExtension of(Scenario scenario) {
    return new MockServerExtension(Objects.requireNonNull(scenario, "scenario cannot be null"));
  }

  /**
   * Creates an extension for a scenario file on the class path (JSON).
   *
   * @param resource the resource name, e.g. {@code "/scenarios/flaky.json"}
   * @return a new extension
   * @throws IllegalArgumentException if the resource is missing or not a valid scenario (the
   *     message names the resource, the line and what was expected)
   */
  public static MockServerExtension fromResource(String resource) {
    Objects.requireNonNull(resource, "resource cannot be null");
    try (InputStream in = MockServerExtension.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no scenario on the class path at " + resource);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return of(Scenario.parse(text, resource));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read scenario " + resource, e);
    }
  }

  /**
   * Runs the server on the client's time, usually the test's {@link FakeTime}: the journal stamps
   * arrivals and the rate limits count on it. Default: the system clock, on which spacing
   * assertions fail.
   *
   * @param time the client's time source
   * @return this
   * @throws NullPointerException if {@code time} is null
   */
  public MockServerExtension withClock(TimeSource time) {
    return withClock(ServerClock.of(time));
  }

  /**
   * Sets the server's clock. Default: the system clock, on which spacing assertions fail.
   *
   * @param clock the clock
   * @return this
   * @throws NullPointerException if {@code clock} is null
   */
  public MockServerExtension withClock(MockClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock cannot be null");
    return this;
  }

  /**
   * Returns the running server.
   *
   * @return the server
   * @throws IllegalStateException outside a test
   */
  public MockServer server() {
    if (server == null) {
      throw new IllegalStateException("the mock server runs only during a test");
    }
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    perClass = true;
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    stop();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!perClass) {
      start();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (!perClass) {
      stop();
    }
  }

  private void start() {
    server = MockServer.builder(scenario).withClock(clock).start();
  }

  private void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == MockServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return server();
  }
}
