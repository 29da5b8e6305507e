package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Which {@code RestClient.Builder} the RestClients of {@code relent.clients.*} start from is said
 * once, when the first is built: Spring Boot's (its customizers and observations), or, without one
 * (a reactive application, an application that excludes spring-boot-restclient), Spring's plain
 * {@code RestClient.builder()}, with a warning saying what is missing and what to add.
 */
@ExtendWith(OutputCaptureExtension.class)
class RestClientBuilderTest {
  private static final String PROPERTY = "relent.clients.payments.base-url=https://api.example.com";

  @Test
  void withSpringBootsBuilderTheStartUpSaysSoAndItsCustomizersApply(CapturedOutput output) {
    AtomicInteger customized = new AtomicInteger();
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(RestClientAutoConfiguration.class, RelentAutoConfiguration.class))
        .withBean(TimeSource.class, FakeTime::new)
        .withBean(RestClientCustomizer.class, () -> b -> customized.incrementAndGet())
        .withPropertyValues(PROPERTY)
        .run(
            context -> {
              RelentRestClients relent = context.getBean(RelentRestClients.class);
              relent.restClient("payments");
              relent.restClient("payments");

              assertThat(customized).hasValue(2);
              assertThat(output)
                  .containsOnlyOnce(
                      "Relent RestClients are built from Spring Boot's RestClient.Builder");
              assertThat(output).doesNotContain("RestClient.builder()");
            });
  }

  @Test
  void withoutABuilderBeanTheStartUpWarnsWhatIsMissingAndWhatToAdd(CapturedOutput output) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
        .withBean(TimeSource.class, FakeTime::new)
        .withPropertyValues(PROPERTY)
        .run(
            context -> {
              RelentRestClients relent = context.getBean(RelentRestClients.class);
              assertThat(output).doesNotContain("Relent RestClients are built");

              relent.restClient("payments");
              relent.restClient("payments");

              assertThat(output.getOut().lines().filter(l -> l.contains("Relent RestClients")))
                  .singleElement()
                  .satisfies(
                      line -> assertThat(line).contains("WARN").contains("dev.relent.spring"));
              assertThat(output)
                  .containsOnlyOnce(
                      "Relent RestClients are built from"
                          + " RestClient.builder(): there is no RestClient.Builder bean, so they"
                          + " get no http.client.requests observations and no"
                          + " RestClientCustomizer. Spring Boot 4 makes one with"
                          + " spring-boot-restclient (org.springframework.boot:"
                          + "spring-boot-starter-restclient), in a servlet or non-web application;"
                          + " a reactive one gets none: declare a RestClient.Builder bean, or use"
                          + " relent.customizer(name) on a builder of your own");
            });
  }
}
