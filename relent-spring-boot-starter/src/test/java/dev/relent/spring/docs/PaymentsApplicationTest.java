package dev.relent.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.client.RestClient;

// --- begin test (with imports)
@SpringBootTest // the @SpringBootApplication of this package (or one above), as it is
@TestPropertySource(properties = "spring.config.name=none") // test only
class PaymentsApplicationTest {
  static final FakeTime TIME = new FakeTime();

  @RegisterExtension // static: one server for the application context of the class
  static final MockServerExtension PAYMENTS =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/v1/balance")
                  .steps(Step.status(503), Step.ok("{\"balance\":42}"))
                  .build())
          .withClock(TIME);

  @DynamicPropertySource
  static void payments(DynamicPropertyRegistry registry) {
    registry.add("relent.clients.payments.base-url", () -> PAYMENTS.server().baseUri().toString());
  }

  @TestConfiguration
  static class VirtualTime {
    @Bean
    TimeSource relentTime() { // every Relent client waits on the fake time
      return TIME;
    }
  }

  @Autowired RestClient payments;

  @Test
  void theBalanceIsRetriedAfterA503(MockServer server) {
    String balance = payments.get().uri("/v1/balance").retrieve().body(String.class);

    assertThat(balance).isEqualTo("{\"balance\":42}");
    assertThat(server.journal()).hasSize(2);
    assertThat(TIME.sleeper().waits()).hasSize(1); // the backoff, on virtual time
  }
}
// --- end
