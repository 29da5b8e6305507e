package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import dev.relent.time.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClientException;

/**
 * A body that stalls or breaks off after a 2xx is part of its attempt for an idempotent request: it
 * is read inside the attempt (up to {@code attempt-body-limit}), so the attempt timeout covers it
 * and the retry gets the next answer; a body larger than the limit streams to the caller after the
 * attempt, as it did, and a stall in its rest fails the caller's read once. The stalls here last
 * the attempt timeout, on the network; the backoff runs on virtual time. The timeout is 1 s, not
 * 300 ms: it is the JDK client's connect timeout too, and with 300 ms on a loaded machine the JDK
 * was seen to send one attempt's request twice, on two connections 2 ms apart, which added a
 * request to the journal.
 */
class StalledBodyTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
          Scenario.parse(
              "{\"routes\": ["
                  + "{\"method\": \"GET\", \"path\": \"/v1/stalled\", \"steps\": ["
                  + "{\"status\": 200, \"fault\": \"stall\", \"body\": \"never all of it\"},"
                  + "{\"status\": 200, \"body\": \"in time\"}]},"
                  + "{\"method\": \"GET\", \"path\": \"/v1/cut\", \"steps\": ["
                  + "{\"status\": 200, \"fault\": \"truncate\", \"body\": \"half of it\"},"
                  + "{\"status\": 200, \"body\": \"whole\"}]},"
                  + "{\"method\": \"GET\", \"path\": \"/v1/large\", \"steps\": ["
                  + "{\"status\": 200, \"fault\": \"stall\", \"faultBytes\": 512},"
                  + "{\"status\": 200, \"body\": \"not reached\"}]}"
                  + "]}"));

  private ApplicationContextRunner runner(MockServer server) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RelentAutoConfiguration.class))
        .withBean(TimeSource.class, () -> time)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(
            "relent.clients.api.base-url=" + server.baseUri(),
            "relent.clients.api.attempt-timeout=1s");
  }

  @Test
  void aBodyThatStallsAfterA200IsRetriedWithinTheAttemptTimeout(MockServer server) {
    runner(server)
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              context.getBean(RelentClientMetrics.class).bindTo(registry);

              String body = get(context.getBean(RelentRestClients.class), "/v1/stalled");

              assertThat(body).isEqualTo("in time");
              assertThat(server.journal()).hasSize(2);
              assertThat(time.sleeper().waits()).hasSize(1);
              assertThat(
                      registry
                          .get("relent.attempts")
                          .tags("name", "api", "kind", "retry")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
            });
  }

  @Test
  void aBodyCutShortAfterA200IsRetried(MockServer server) {
    runner(server)
        .run(
            context -> {
              assertThat(get(context.getBean(RelentRestClients.class), "/v1/cut"))
                  .isEqualTo("whole");
              assertThat(server.journal()).hasSize(2);
            });
  }

  @Test
  void aBodyLargerThanTheLimitStreamsAfterTheAttemptAsBefore(MockServer server) {
    runner(server)
        .withPropertyValues("relent.clients.api.attempt-body-limit=256B")
        .run(
            context -> {
              Throwable failure =
                  catchThrowable(() -> get(context.getBean(RelentRestClients.class), "/v1/large"));

              // 256 bytes were read in the attempt, the stall came after them: not retried.
              assertThat(failure).isInstanceOf(RestClientException.class);
              assertThat(server.journal()).hasSize(1);
            });
  }

  private static String get(RelentRestClients relent, String path) {
    return relent.restClient("api").get().uri(path).retrieve().body(String.class);
  }
}
