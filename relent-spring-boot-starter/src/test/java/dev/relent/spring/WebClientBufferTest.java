package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RetryPolicy;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Hooks;

/**
 * A WebClient response that will be retried has its body read into memory and handed on as a copy,
 * without Spring releasing the body already read: that release failed ("The client response body
 * can only be consumed once") and Reactor logged the dropped error at ERROR for every retried
 * answer.
 */
class WebClientBufferTest {
  private final FakeTime time = new FakeTime();
  private final List<Throwable> dropped = new CopyOnWriteArrayList<>();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/v1/rates")
                  .steps(Step.status(503), Step.ok("{\"eur\":1.1}"))
                  .build())
          .withClock(time);

  @BeforeEach
  void watchDroppedErrors() {
    Hooks.onErrorDropped(dropped::add);
  }

  @AfterEach
  void stopWatching() {
    Hooks.resetOnErrorDropped();
  }

  @Test
  void aBufferedResponseDropsNoError(MockServer server) throws Exception {
    WebClient client =
        WebClient.builder()
            .baseUrl(server.baseUri().toString())
            .filter(
                RelentWebClientFilter.builder()
                    .withTime(time)
                    .withPolicy(RetryPolicy.builder().withMaxRetries(1).build())
                    .build())
            .build();

    CompletableFuture<String> call =
        client.get().uri("/v1/rates").retrieve().bodyToMono(String.class).toFuture();

    assertThat(FakeTimeCalls.drive(time, call)).isEqualTo("{\"eur\":1.1}");
    assertThat(server.journal()).hasSize(2);
    assertThat(dropped).isEmpty();
  }
}
