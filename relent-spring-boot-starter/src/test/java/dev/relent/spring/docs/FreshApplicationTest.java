package dev.relent.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.jayway.jsonpath.JsonPath;
import dev.relent.CircuitOpenException;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

/**
 * A fresh Spring MVC application with the actuator, built from docs/spring-boot.md alone: {@link
 * PaymentsApplication}, the page's properties and nothing else (not the sample's
 * application.properties). While the downstream answers 503 its breaker opens, and {@code
 * /actuator/health} stays 200 UP with the open breaker in the {@code relent} details; Relent's
 * meters are in the registry and at {@code /actuator/metrics}, with no bean or dependency beyond
 * the starter's.
 */
@SpringBootTest(
    classes = PaymentsApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.config.name=none",
      // A fresh application:
      "relent.clients.payments.max-retries=3",
      // Health:
      "relent.clients.payments.breaker.enabled=true",
      "management.endpoint.health.show-details=always",
      "management.endpoints.web.exposure.include=health,metrics,relent"
    })
@Import(FreshApplicationTest.VirtualTime.class)
class FreshApplicationTest {
  static final FakeTime TIME = new FakeTime();

  @RegisterExtension
  static final MockServerExtension DOWNSTREAM =
      MockServerExtension.of(
              Scenario.builder().route("/v1/balance").steps(Step.status(503)).build())
          .withClock(TIME);

  @DynamicPropertySource
  static void downstream(DynamicPropertyRegistry registry) {
    registry.add(
        "relent.clients.payments.base-url", () -> DOWNSTREAM.server().baseUri().toString());
  }

  @TestConfiguration
  static class VirtualTime {
    @Bean
    TimeSource relentTime() {
      return TIME;
    }
  }

  @Autowired RestClient payments;

  @Autowired MeterRegistry meters;

  @LocalServerPort int port;

  @Test
  void theHealthStaysUpWhileTheBreakerIsOpenAndTheMetersAreThere() throws Exception {
    Throwable refused = null;
    for (int call = 0; call < 30 && refused == null; call++) {
      Throwable failure =
          catchThrowable(() -> payments.get().uri("/v1/balance").retrieve().body(String.class));
      assertThat(failure).isInstanceOf(RestClientException.class);
      if (failure.getCause() instanceof CircuitOpenException) {
        refused = failure;
      }
    }
    assertThat(refused).as("the breaker opened").isNotNull();
    assertThat(TIME.sleeper().waits()).as("the backoff, on virtual time").isNotEmpty();

    HttpResponse<String> health = get("/actuator/health");
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    assertThat(read(health, "$.status")).isEqualTo("UP");
    assertThat(read(health, "$.components.relent.status")).isEqualTo("UP");
    assertThat(read(health, "$.components.relent.details.payments.status")).isEqualTo("DOWN");
    assertThat(read(health, "$.components.relent.details.payments.circuitBreaker.state"))
        .isEqualTo("open");

    assertThat(
            meters
                .get("relent.circuit.breaker.state")
                .tags("name", "payments", "state", "open")
                .gauge()
                .value())
        .isEqualTo(1.0);
    assertThat(
            meters
                .get("relent.calls")
                .tags("name", "payments", "reason", "circuit-open")
                .counter()
                .count())
        .isGreaterThanOrEqualTo(1.0);
    HttpResponse<String> calls = get("/actuator/metrics/relent.calls?tag=name:payments");
    assertThat(calls.statusCode()).as(calls.body()).isEqualTo(200);
    List<Number> measured = JsonPath.read(calls.body(), "$.measurements[*].value");
    assertThat(measured).singleElement().satisfies(n -> assertThat(n.doubleValue()).isPositive());
  }

  @Test
  void thePageShowsTheseProperties() throws Exception {
    String page = Files.readString(Path.of("../docs/spring-boot.md"), StandardCharsets.UTF_8);
    assertThat(page)
        .contains(
            "```properties\n"
                + "relent.clients.payments.breaker.enabled=true\n"
                + "management.endpoint.health.show-details=always\n"
                + "management.endpoints.web.exposure.include=health,metrics,relent\n"
                + "```");
  }

  private static String read(HttpResponse<String> response, String path) {
    return JsonPath.read(response.body(), path);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
