package dev.relent.spring.docs;

// --- begin application
import dev.relent.spring.RelentRestClients;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestClient;

@SpringBootApplication
public class PaymentsApplication {

  public static void main(String[] args) {
    SpringApplication.run(PaymentsApplication.class, args);
  }

  @Bean
  RestClient payments(RelentRestClients relent) {
    return relent.restClient("payments"); // set by relent.clients.payments.*
  }
}
// --- end
