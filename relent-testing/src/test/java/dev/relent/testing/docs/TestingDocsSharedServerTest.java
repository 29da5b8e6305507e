package dev.relent.testing.docs;

import static dev.relent.testing.RelentAssertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.mockserver.MockServer;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The docs/testing.md example of one server for a whole test class, compiled and run. */
class TestingDocsSharedServerTest {
  // --- begin shared server
  static final FakeTime TIME = new FakeTime();

  @RegisterExtension // static: one server for every test of the class
  static final MockServerExtension PAYMENTS =
      MockServerExtension.fromResource("/scenarios/payments.json").withClock(TIME);
  // --- end

  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void aTimedOutPaymentIsRetriedWithItsKeyAndCreatedOnce(MockServer server) {
    RelentExecutor<HttpResponse<Void>> executor =
        RelentExecutor.<HttpResponse<Void>>builder(RetryPolicy.ofDefaults())
            .retryIf(r -> r.statusCode() == 504)
            .withTime(TIME)
            .build();
    HttpRequest pay =
        HttpRequest.newBuilder(server.uri("/payments"))
            .header("Idempotency-Key", "order-42")
            .header("Authorization", "Bearer sk_test_123")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 100}"))
            .build();
    executor.get(() -> client.send(pay, BodyHandlers.discarding()));

    // --- begin server assertions
    assertThat(server) // the first POST timed out after creating; the retry was replayed
        .createdExactlyOnePerKey("payments")
        .createdResources("payments", 1)
        .hadAtMostConcurrent(1);
    assertThat(server.journal())
        .onEndpoint("payments")
        .hasAttempts(2)
        .allCarrySameHeader("Idempotency-Key")
        .carriedNoSecret("sk_test_123"); // the journal redacts Authorization itself
    // --- end
  }
}
