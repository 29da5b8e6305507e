package dev.relent.testing;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.Backoff;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.time.FakeTime;
import java.net.http.HttpClient;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An extension left on the system clock: every assertion that measures gaps fails at once and says
 * how to give the extension a fake time, whatever the gaps happen to be; the others still work.
 */
class RealClockTest {
  private static final Scenario SCENARIO =
      Scenario.builder().route("/flaky").steps(Step.status(429), Step.status(200)).build();

  private final HttpClient client = HttpClient.newHttpClient();

  @RegisterExtension final MockServerExtension mock = MockServerExtension.of(SCENARIO);

  private static void failsForWantOfVirtualTime(ThrowingCallable assertion) {
    assertThatThrownBy(assertion)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "spacing checks need virtual time, but the mock server stamped this journal with the"
                + " system clock, so its gaps are whatever the machine took. Give the extension a"
                + " FakeTime, MockServerExtension.of(scenario).withClock(time), and the client the"
                + " same FakeTime");
  }

  @Test
  void everySpacingAssertionFailsOnTheSystemClock(MockServer server) throws Exception {
    Requests.get(client, server, "/flaky");
    Requests.get(client, server, "/flaky");
    Envelope envelope = Envelope.of(Backoff.ofDefaults());

    failsForWantOfVirtualTime(() -> assertThat(server.journal()).spacedWithin(envelope));
    failsForWantOfVirtualTime(
        () -> assertThat(server.journal()).spacedAtLeast(Duration.ofMillis(0)));
    failsForWantOfVirtualTime(
        () -> assertThat(server.journal()).honoursRetryAfter(429, Duration.ZERO));
    failsForWantOfVirtualTime(() -> assertThat(server.journal()).gapsLookJittered(envelope));
    failsForWantOfVirtualTime(
        () -> assertThat(server.journal()).gapsLookJittered(envelope, "Host"));
    failsForWantOfVirtualTime(
        () -> assertThat(server.journal()).onPath("/flaky").spacedWithin(envelope));
    failsForWantOfVirtualTime(() -> assertThat(server).journal().spacedWithin(envelope));

    // What does not measure time still works.
    assertThat(server.journal()).hasAttempts(2);
    assertThat(server).journal().onPath("/flaky").hasAttempts(2);
    assertThat(assertThat(server.journal()).gaps()).hasSize(1);
  }

  @Test
  void aServerOnFakeTimeBesideItIsStillChecked(MockServer onSystemClock) throws Exception {
    Requests.get(client, onSystemClock, "/flaky");
    FakeTime time = new FakeTime();
    try (MockServer onFakeTime =
        MockServer.builder(SCENARIO).withClock(ServerClock.of(time)).start()) {
      Requests.get(client, onFakeTime, "/flaky");
      time.advance(Duration.ofSeconds(3));
      Requests.get(client, onFakeTime, "/flaky");

      assertThat(onFakeTime.journal()).honoursRetryAfter(429, Duration.ofSeconds(3));
      assertThat(onFakeTime).journal().spacedAtLeast(Duration.ofSeconds(3));
    }
  }

  @Test
  void aServerStartedByHandOnTheSystemClockIsCheckedToo() throws Exception {
    try (MockServer byHand = MockServer.start(SCENARIO)) {
      Requests.get(client, byHand, "/flaky");
      Requests.get(client, byHand, "/flaky");

      assertThat(byHand.journal().stream().allMatch(JournalEntry::onSystemClock)).isTrue();
      failsForWantOfVirtualTime(
          () -> assertThat(byHand.journal()).spacedAtLeast(Duration.ofMillis(0)));
      failsForWantOfVirtualTime(() -> assertThat(byHand).journal().spacedAtLeast(Duration.ZERO));
    }
  }
}
