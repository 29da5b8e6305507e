package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The request factory of {@link RelentRestClients} bounds each attempt by its limit: a first answer
 * that takes 20 s is abandoned after the attempt timeout, and the retry gets the second. The wait
 * here is the attempt timeout's, on the network; the backoff runs on virtual time.
 */
class AttemptTimeoutTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
          Scenario.parse(
              "{\"routes\": [{\"method\": \"GET\", \"path\": \"/v1/slow\", \"steps\": ["
                  + "{\"delay\": \"20s\", \"status\": 200, \"body\": \"late\"},"
                  + "{\"status\": 200, \"body\": \"in time\"}]}]}"));

  @Test
  void anAttemptThatOutlastsItsTimeoutIsAbandonedAndRetried(MockServer server) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
        .withBean(TimeSource.class, () -> time)
        .withPropertyValues(
            "relent.clients.slow.base-url=" + server.baseUri(),
            "relent.clients.slow.attempt-timeout=300ms")
        .run(
            context -> {
              RelentRestClients relent = context.getBean(RelentRestClients.class);

              String body =
                  relent.restClient("slow").get().uri("/v1/slow").retrieve().body(String.class);

              assertThat(body).isEqualTo("in time");
              assertThat(server.journal()).hasSize(2);
              assertThat(time.sleeper().waits()).hasSize(1);
            });
  }
}
