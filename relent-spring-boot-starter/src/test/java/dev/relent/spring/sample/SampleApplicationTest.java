package dev.relent.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.jayway.jsonpath.JsonPath;
import dev.relent.RelentException;
import dev.relent.http.CallOptions;
import dev.relent.http.DecisionTable;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.spring.FakeTimeCalls;
import dev.relent.spring.RelentRestClients;
import dev.relent.spring.RelentRestInterceptor;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The sample application against the mock server, on virtual time: the RestClient and the WebClient
 * retry a 503, a POST keeps its Idempotency-Key across retries, the health contributor shows an
 * open breaker and stays UP, and the relent endpoint's JSON.
 */
@SpringBootTest(
    classes = SampleApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "relent.clients.secretive.base-url=https://api.example.com/v1?api_key=s3cr3t")
@Import(SampleApplicationTest.VirtualTime.class)
class SampleApplicationTest {
  static final FakeTime TIME = new FakeTime();

  @RegisterExtension
  static final MockServerExtension MOCK =
      MockServerExtension.fromResource("/sample-scenario.json").withClock(TIME);

  @DynamicPropertySource
  static void mockServer(DynamicPropertyRegistry registry) {
    registry.add("relent.clients.payments.base-url", () -> MOCK.server().baseUri().toString());
    registry.add("relent.clients.fragile.base-url", () -> MOCK.server().baseUri().toString());
  }

  /** Every client's waits are the fake time's: nobody sleeps for real. */
  @TestConfiguration
  static class VirtualTime {
    @Bean
    TimeSource time() {
      return TIME;
    }
  }

  @Autowired
  @Qualifier("payments")
  RestClient payments;

  @Autowired WebClient paymentsReactive;

  @Autowired
  @Qualifier("fragile")
  RestClient fragile;

  @Autowired MeterRegistry meters;

  @Autowired RelentRestClients relent;

  @LocalServerPort int port;

  @Test
  void theRestClientRetriesA503() {
    String body = payments.get().uri("/v1/balance").retrieve().body(String.class);

    assertThat(body).isEqualTo("{\"balance\":42}");
    assertThat(arrivals("GET", "/v1/balance")).hasSize(2);
    assertThat(
            meters
                .get("relent.attempts")
                .tag("name", "payments")
                .tag("kind", "retry")
                .counter()
                .count())
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void aRestTemplateOfTheClientRetriesA503() {
    RestTemplate template = relent.restTemplate("payments");

    ResponseEntity<String> fees = template.getForEntity("/v1/fees", String.class);

    assertThat(fees.getBody()).isEqualTo("{\"fee\":2}");
    assertThat(arrivals("GET", "/v1/fees")).hasSize(2);
  }

  @Test
  void theWebClientRetriesA503WithoutBlockingAThread() throws Exception {
    CompletableFuture<String> body =
        paymentsReactive.get().uri("/v1/rates").retrieve().bodyToMono(String.class).toFuture();

    assertThat(FakeTimeCalls.drive(TIME, body)).isEqualTo("{\"eur\":1.1}");
    assertThat(arrivals("GET", "/v1/rates")).hasSize(2);
  }

  @Test
  void aPostKeepsItsIdempotencyKeyAcrossRetries() {
    ResponseEntity<String> created =
        payments
            .post()
            .uri("/v1/payments")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"amount\":100}")
            .retrieve()
            .toEntity(String.class);

    assertThat(created.getStatusCode().value()).isEqualTo(201);
    List<JournalEntry> posts = arrivals("POST", "/v1/payments");
    assertThat(posts).hasSize(2);
    String key = posts.get(0).header("Idempotency-Key");
    assertThat(key).isNotBlank();
    assertThat(posts.get(1).header("Idempotency-Key")).isEqualTo(key);
  }

  @Test
  void aWebClientPostKeepsItsIdempotencyKeyAcrossRetries() throws Exception {
    CompletableFuture<ResponseEntity<String>> created =
        paymentsReactive
            .post()
            .uri("/v1/refunds")
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue("{\"payment\":\"p-1\"}")
            .retrieve()
            .toEntity(String.class)
            .toFuture();

    assertThat(FakeTimeCalls.drive(TIME, created).getStatusCode().value()).isEqualTo(201);
    List<JournalEntry> posts = arrivals("POST", "/v1/refunds");
    assertThat(posts).hasSize(2);
    String key = posts.get(0).header("Idempotency-Key");
    assertThat(key).isNotBlank();
    assertThat(posts.get(1).header("Idempotency-Key")).isEqualTo(key);
    assertThat(posts.get(1).bodyBytes()).isEqualTo(posts.get(0).bodyBytes()).isPositive();
  }

  @Test
  void aCallsOwnDecisionTableIsHonouredByBothClients() throws Exception {
    CallOptions no503 =
        CallOptions.builder()
            .withDecisionTable(DecisionTable.ofDefaults().with(503, DecisionTable.Rule.NEVER))
            .build();

    ResponseEntity<String> rest =
        payments
            .get()
            .uri("/v1/limits")
            .attribute(RelentRestInterceptor.OPTIONS_ATTRIBUTE, no503)
            .retrieve()
            .onStatus(status -> true, (request, response) -> {})
            .toEntity(String.class);
    CompletableFuture<Integer> web =
        paymentsReactive
            .get()
            .uri("/v1/quotas")
            .attribute(RelentRestInterceptor.OPTIONS_ATTRIBUTE, no503)
            .exchangeToMono(
                response -> response.releaseBody().thenReturn(response.statusCode().value()))
            .toFuture();

    assertThat(rest.getStatusCode().value()).isEqualTo(503);
    assertThat(FakeTimeCalls.drive(TIME, web)).isEqualTo(503);
    assertThat(arrivals("GET", "/v1/limits")).hasSize(1);
    assertThat(arrivals("GET", "/v1/quotas")).hasSize(1);
  }

  @Test
  void theHealthShowsAnOpenBreakerAndStaysUpAndTheEndpointShowsWhy() throws Exception {
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> fragile.get().uri("/v1/broken").retrieve().body(String.class))
          .isInstanceOf(RestClientException.class)
          .hasCauseInstanceOf(RelentException.class)
          .hasMessageContaining("HTTP 500");
    }

    HttpResponse<String> health = get("/actuator/health");
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    assertThat((String) JsonPath.read(health.body(), "$.components.relent.status")).isEqualTo("UP");
    assertThat((String) JsonPath.read(health.body(), "$.components.relent.details.fragile.status"))
        .isEqualTo("DOWN");
    assertThat(
            (String)
                JsonPath.read(
                    health.body(), "$.components.relent.details.fragile.circuitBreaker.state"))
        .isEqualTo("open");
    assertThat((String) JsonPath.read(health.body(), "$.components.relent.details.payments.status"))
        .isEqualTo("UP");

    HttpResponse<String> fragileState = get("/actuator/relent/fragile");
    assertThat(fragileState.statusCode()).isEqualTo(200);
    assertThat((String) JsonPath.read(fragileState.body(), "$.status")).isEqualTo("DOWN");
    assertThat((Integer) JsonPath.read(fragileState.body(), "$.circuitBreaker.failures"))
        .isEqualTo(2);
  }

  @Test
  void theEndpointListsEveryClientWithItsGuardsAndNoSecret() throws Exception {
    HttpResponse<String> relent = get("/actuator/relent");

    assertThat(relent.statusCode()).isEqualTo(200);
    String json = relent.body();
    Map<String, Object> clients = JsonPath.read(json, "$.clients");
    assertThat(clients).containsOnlyKeys("payments", "fragile", "secretive");
    assertThat((Integer) JsonPath.read(json, "$.clients.payments.policy.maxRetries")).isEqualTo(3);
    assertThat((String) JsonPath.read(json, "$.clients.payments.policy.deadline"))
        .isEqualTo("PT30S");
    assertThat((String) JsonPath.read(json, "$.clients.payments.policy.backoff.jitter"))
        .isEqualTo("full");
    assertThat((Boolean) JsonPath.read(json, "$.clients.payments.idempotencyKeys")).isTrue();
    assertThat((String) JsonPath.read(json, "$.clients.payments.baseUrl"))
        .isEqualTo(MOCK.server().baseUri().toString().replaceAll("/$", ""));
    assertThat((Integer) JsonPath.read(json, "$.clients.fragile.circuitBreaker.calls"))
        .isGreaterThanOrEqualTo(0);
    assertThat((String) JsonPath.read(json, "$.clients.secretive.baseUrl"))
        .startsWith("https://api.example.com/v1?api_key=");
    assertThat(json).doesNotContain("s3cr3t");
    assertThat(get("/actuator/relent/nobody").statusCode()).isEqualTo(404);
  }

  private List<JournalEntry> arrivals(String method, String path) {
    MockServer server = MOCK.server();
    return server.journal().stream()
        .filter(e -> e.method().equals(method) && e.target().equals(path))
        .collect(Collectors.toList());
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
