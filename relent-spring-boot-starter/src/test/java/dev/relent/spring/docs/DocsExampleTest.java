package dev.relent.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.testing.MockServerExtension;
import dev.relent.testing.docs.DocSnippets;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.web.client.RestClient;

/**
 * The examples of docs/spring-boot.md: the page shows {@link PaymentsApplication}, the two
 * properties and {@link PaymentsApplicationTest} as they are, and the application, started with
 * those two properties alone, retries the mock server's 503.
 */
class DocsExampleTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.fromResource("/sample-scenario.json").withClock(time);

  @Test
  void theApplicationRunsWithTwoProperties(MockServer server) {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(PaymentsApplication.class)
            .web(WebApplicationType.NONE)
            .initializers(
                c -> {
                  c.getBeanFactory().registerSingleton("time", (TimeSource) time);
                  c.getBeanFactory().registerSingleton("tests", new TestConfigurationsLeftOut());
                })
            .properties(
                "spring.config.name=none", // not the sample's application.properties
                "relent.clients.payments.base-url=" + server.baseUri(),
                "relent.clients.payments.max-retries=3")
            .run()) {
      RestClient payments = context.getBean("payments", RestClient.class);

      String balance = payments.get().uri("/v1/balance").retrieve().body(String.class);

      assertThat(balance).isEqualTo("{\"balance\":42}");
      assertThat(server.journal()).hasSize(2);
      assertThat(time.sleeper().waits()).hasSize(1);
    }
  }

  /**
   * Leaves the other tests' configurations of this package out of the application's component scan,
   * as the context of a Spring test does.
   */
  static final class TestConfigurationsLeftOut extends TypeExcludeFilter {
    @Override
    public boolean match(MetadataReader reader, MetadataReaderFactory factory) {
      return reader.getAnnotationMetadata().hasAnnotation(TestConfiguration.class.getName());
    }
  }

  @Test
  void thePageShowsTheApplicationAndTheProperties() throws Exception {
    String page = Files.readString(Path.of("../docs/spring-boot.md"), StandardCharsets.UTF_8);
    DocSnippets.assertPageShowsSnippetsOf(
        "../docs/spring-boot.md", PaymentsApplication.class, PaymentsApplicationTest.class);
    assertThat(page).contains("`dev.relent.time.TimeSource`");
    assertThat(page)
        .contains(
            "```properties\n"
                + "relent.clients.payments.base-url=https://api.example.com\n"
                + "relent.clients.payments.max-retries=3\n"
                + "```");
    assertThat(page).contains("<artifactId>relent-spring-boot-starter</artifactId>");
  }
}
