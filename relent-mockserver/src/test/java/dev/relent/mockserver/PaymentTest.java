package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The idempotent resource endpoint: faults after creation, and exactly one resource per key. */
class PaymentTest {

  private static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");
  private final HttpClient client = HttpClient.newHttpClient();

  private static MockServer server(Step... steps) {
    Scenario scenario =
        Scenario.builder().resource("/payments").withIdPrefix("pay_").steps(steps).build();
    return MockServer.builder(scenario).withClock(new FakeClock(NOW)).start();
  }

  private HttpResponse<String> post(MockServer server, String key, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.uri("/payments"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(MockServer server, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(server.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void a504AfterCreationThenARetryWithTheKeyReplaysTheSamePayment() throws Exception {
    try (MockServer server = server(Step.status(504), Step.normal())) {
      HttpResponse<String> first = post(server, "k-1", "{\"amount\":100}");
      assertThat(first.statusCode()).isEqualTo(504);
      assertThat(first.body()).isEmpty();
      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(1);

      HttpResponse<String> retry = post(server, "k-1", "{\"amount\":100}");
      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(retry.headers().firstValue("Location")).hasValue("/payments/pay_1");
      String payment =
          "{\"id\":\"pay_1\",\"createdAt\":\"2025-06-01T12:00:00Z\",\"idempotencyKey\":\"k-1\","
              + "\"requestBody\":\"{\\\"amount\\\":100}\"}";
      assertThat(retry.body()).isEqualTo(payment);

      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(1);
      assertThat(server.stats().resourcesCreatedPerKey("/payments")).isEqualTo(Map.of("k-1", 1L));
      assertThat(get(server, "/payments").body()).isEqualTo("[" + payment + "]");
      assertThat(get(server, "/payments/pay_1").body()).isEqualTo(payment);
      assertThat(get(server, "/payments/pay_2").statusCode()).isEqualTo(404);
      assertThat(server.journal())
          .extracting(JournalEntry::outcome)
          .containsExactly("created", "replayed", "listed", "read", "not-found");
    }
  }

  @Test
  void withoutAKeyTheSameRetryChargesTwice() throws Exception {
    try (MockServer server = server(Step.status(504), Step.normal())) {
      assertThat(post(server, null, "{\"amount\":100}").statusCode()).isEqualTo(504);
      HttpResponse<String> retry = post(server, null, "{\"amount\":100}");
      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(retry.headers().firstValue("Location")).hasValue("/payments/pay_2");
      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(2);
      assertThat(server.stats().resourcesCreatedPerKey("/payments")).isEqualTo(Map.of("", 2L));
    }
  }

  @Test
  void aResetAfterCreationLosesTheAnswerButNotThePayment() throws Exception {
    try (MockServer server = server(Step.fault(InjectedFault.RESET), Step.normal())) {
      assertThatThrownBy(() -> post(server, "k-2", "{}")).isInstanceOf(IOException.class);
      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(1);
      HttpResponse<String> retry = post(server, "k-2", "{}");
      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(server.stats().resourcesCreatedPerKey("/payments")).isEqualTo(Map.of("k-2", 1L));
      assertThat(server.journal())
          .extracting(JournalEntry::outcome, JournalEntry::fault)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("created", "reset"),
              org.assertj.core.groups.Tuple.tuple("replayed", null));
    }
  }

  @Test
  void aFaultBeforeCreationCreatesNothing() throws Exception {
    try (MockServer server = server(Step.status(503).withoutCreating(), Step.normal())) {
      assertThat(post(server, "k-3", "{}").statusCode()).isEqualTo(503);
      assertThat(server.stats().resourcesCreated("/payments")).isZero();
      HttpResponse<String> retry = post(server, "k-3", "{}");
      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(1);
    }
  }

  @Test
  void theSameKeyWithAnotherBodyIsRejectedAndCreatesNothing() throws Exception {
    try (MockServer server = server(Step.normal())) {
      assertThat(post(server, "k-4", "{\"amount\":100}").statusCode()).isEqualTo(201);
      HttpResponse<String> other = post(server, "k-4", "{\"amount\":999}");
      assertThat(other.statusCode()).isEqualTo(422);
      assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(1);
      assertThat(server.stats().outcomes("/payments"))
          .containsEntry("created", 1L)
          .containsEntry("idempotency-problem", 1L);
    }
  }

  @Test
  void manyConcurrentDuplicatesCreateExactlyOnePayment() throws Exception {
    try (MockServer server = server(Step.normal())) {
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        calls.add(
            client.sendAsync(
                HttpRequest.newBuilder(server.uri("/payments"))
                    .header("Idempotency-Key", "same")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      for (CompletableFuture<HttpResponse<String>> call : calls) {
        assertThat(call.get().statusCode()).isIn(201, 409);
      }
      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(1);
      assertThat(server.stats().resourcesCreatedPerKey("/payments")).isEqualTo(Map.of("same", 1L));
    }
  }

  @Test
  void aRequiredKeyIsEnforcedAndOtherMethodsAreRefused() throws Exception {
    Scenario scenario =
        Scenario.parse(
            "{\"resources\":[{\"path\":\"/orders\",\"requireKey\":true,\"idPrefix\":\"ord_\"}]}");
    try (MockServer server = MockServer.start(scenario)) {
      HttpResponse<String> noKey =
          client.send(
              HttpRequest.newBuilder(server.uri("/orders"))
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(noKey.statusCode()).isEqualTo(400);
      HttpResponse<String> delete =
          client.send(
              HttpRequest.newBuilder(server.uri("/orders")).DELETE().build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(delete.statusCode()).isEqualTo(405);
      assertThat(delete.headers().firstValue("Allow")).hasValue("GET, HEAD, POST");
      assertThat(server.stats().resourcesCreated("/orders")).isZero();
      assertThat(get(server, "/orders").body()).isEqualTo("[]");
    }
  }

  @Test
  void resetForgetsPaymentsAndKeys() throws Exception {
    try (MockServer server = server(Step.normal())) {
      assertThat(post(server, "k-5", "{}").statusCode()).isEqualTo(201);
      server.reset();
      HttpResponse<String> again = post(server, "k-5", "{}");
      assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
      assertThat(again.headers().firstValue("Location")).hasValue("/payments/pay_1");
      assertThat(server.stats().resourcesCreated("/payments")).isEqualTo(1);
    }
  }
}
