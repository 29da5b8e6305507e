package dev.relent.testing;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.time.FakeTime;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The test kit against a real mock server: the extension starts and injects it, the assertions pass
 * on what they should and fail, with a useful message, on what they should not. A plain JDK client
 * drives the server by hand, advancing the shared fake time between requests, so the spacing is
 * known exactly.
 */
class TestKitTest {
  private final FakeTime time = new FakeTime();
  private final HttpClient client = HttpClient.newHttpClient();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.parse(
                  "{\"routes\": [{\"path\": \"/flaky\", \"steps\": [{\"status\": 503},"
                      + " {\"status\": 200}]}],"
                      + " \"resources\": [{\"name\": \"payments\", \"path\": \"/payments\"}]}"))
          .withClock(time);

  private int post(MockServer server, String path, String key)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(server.uri(path))
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 100}"))
            .build();
    return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void gapsAreMeasuredOnTheSharedFakeTime(MockServer server) throws Exception {
    Backoff backoff =
        Backoff.builder()
            .withBase(Duration.ofMillis(500))
            .withCap(Duration.ofSeconds(30))
            .withJitter(Jitter.EQUAL)
            .build();
    Requests.get(client, server, "/flaky");
    time.advance(Duration.ofMillis(400)); // inside [250, 500] ms, the equal-jitter envelope
    Requests.get(client, server, "/flaky");
    time.advance(Duration.ofMillis(900)); // inside [500, 1000] ms
    Requests.get(client, server, "/flaky");

    assertThat(server.journal())
        .onPath("/flaky")
        .hasAttempts(3)
        .spacedWithin(Envelope.of(backoff))
        .spacedAtLeast(Duration.ofMillis(400));

    assertThatThrownBy(
            () ->
                assertThat(server.journal()).onPath("/flaky").spacedAtLeast(Duration.ofSeconds(1)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("request 2 came PT0.4S after the one before, earlier than the PT1S");
    assertThatThrownBy(() -> assertThat(server.journal()).hasAttempts(2))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected 2 attempts but the server saw 3");
  }

  @Test
  void aGapOutsideTheEnvelopeFails(MockServer server) throws Exception {
    Backoff none =
        Backoff.builder()
            .withBase(Duration.ofSeconds(1))
            .withCap(Duration.ofSeconds(8))
            .withJitter(Jitter.NONE)
            .build();
    Requests.get(client, server, "/flaky");
    time.advance(Duration.ofMillis(10)); // a tight loop, not a 1 s backoff
    Requests.get(client, server, "/flaky");

    assertThatThrownBy(() -> assertThat(server.journal()).spacedWithin(Envelope.of(none)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("gap before retry 1 was PT0.01S, outside");
  }

  @Test
  void resourcesAreCountedPerKey(MockServer server) throws Exception {
    post(server, "/payments", "key-1");
    post(server, "/payments", "key-1"); // a retry: replayed, not created again
    post(server, "/payments", "key-2");

    assertThat(server).createdExactlyOnePerKey("payments").createdResources("payments", 2);
    assertThat(server.journal()).onPath("/payments").hasAttempts(3);

    post(server, "/payments", "");
  }

  @Test
  void aKeylessDoubleChargeIsCaught(MockServer server) throws Exception {
    HttpRequest keyless =
        HttpRequest.newBuilder(server.uri("/payments"))
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 100}"))
            .build();
    client.send(keyless, HttpResponse.BodyHandlers.discarding());
    client.send(keyless, HttpResponse.BodyHandlers.discarding());

    assertThatThrownBy(() -> assertThat(server).createdExactlyOnePerKey("payments"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("created 2 resources for requests without a key");
  }

  @Test
  void sameKeyOnEveryRetryIsChecked(MockServer server) throws Exception {
    post(server, "/payments", "k1");
    post(server, "/payments", "k1");
    assertThat(server.journal()).allCarrySameHeader("Idempotency-Key");

    post(server, "/payments", "k2");
    assertThatThrownBy(() -> assertThat(server.journal()).allCarrySameHeader("Idempotency-Key"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("request 3 carried Idempotency-Key: k2, not the k1");
  }

  @Test
  void secretsInUrlsAndHeadersAreCaught(MockServer server) throws Exception {
    Requests.get(client, server, "/flaky", "Authorization", "Bearer sk_live_123");
    assertThat(server.journal()).carriedNoSecret("sk_live_123");

    Requests.get(client, server, "/flaky?api_key=sk_live_123");
    assertThatThrownBy(() -> assertThat(server.journal()).carriedNoSecret("sk_live_123"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("request 2 sent a credential in its URL");

    server.reset();
    Requests.get(client, server, "/flaky", "X-Debug", "sk_live_123");
    assertThatThrownBy(() -> assertThat(server.journal()).carriedNoSecret("sk_live_123"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("carried a secret in header X-Debug");
  }

  @Test
  void peakConcurrencyIsTheServersOwnCount(MockServer server) throws Exception {
    Requests.get(client, server, "/flaky");
    Requests.get(client, server, "/flaky");
    assertThat(server).hadAtMostConcurrent(1);
  }

  @Test
  void theExtensionGivesEachTestAFreshServer(MockServer server) {
    assertThat(server.journal()).hasAttempts(0);
    assertThat(mock.server()).isSameAs(server);
    assertThat(server.baseUri().getHost()).isEqualTo("127.0.0.1");
  }

  @Test
  void aMissingScenarioResourceSaysWhichOne() {
    assertThatThrownBy(() -> MockServerExtension.fromResource("/no-such-scenario.json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no scenario on the class path at /no-such-scenario.json");
  }
}
