package dev.relent.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RetryPolicy;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.FakeTime;
import dev.relent.testing.MockServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

    assertThat(drive(call)).isEqualTo("{\"eur\":1.1}");
    assertThat(server.journal()).hasSize(2);
    assertThat(dropped).isEmpty();
  }

  /** Waits for the call, running its backoff (shorter than the attempt's 10 s) on the fake time. */
  private <T> T drive(CompletableFuture<T> call) throws Exception {
    int seen = 0;
    for (int round = 0; round < 10_000; round++) {
      try {
        return call.get(5, TimeUnit.MILLISECONDS); // for the mock server's answer
      } catch (TimeoutException notYet) {
        List<Duration> delays = time.scheduler().delays();
        for (; seen < delays.size(); seen++) {
          if (delays.get(seen).compareTo(Duration.ofSeconds(5)) < 0) {
            time.scheduler().advance(delays.get(seen));
          }
        }
      }
    }
    throw new AssertionError("the call did not end: " + call);
  }
}
