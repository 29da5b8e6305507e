package dev.relent.spring.sample;

import dev.relent.spring.RelentRestClients;
import dev.relent.spring.RelentWebClients;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A Spring Boot application as a user writes it: the starter on the class path, two properties per
 * client in application.properties, and one line per client.
 */
@SpringBootApplication
public class SampleApplication {

  /** The payments API, retried by Relent. */
  @Bean
  RestClient payments(RelentRestClients relent) {
    return relent.restClient("payments");
  }

  /** The same API, reactive; it shares the client's guards. */
  @Bean
  WebClient paymentsReactive(RelentWebClients relent) {
    return relent.webClient("payments");
  }

  /** A client whose breaker opens after a few failures. */
  @Bean
  RestClient fragile(RelentRestClients relent) {
    return relent.restClient("fragile");
  }
}
