package dev.relent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.RetryPolicy;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.mockserver.InjectedFault;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An unkeyed POST held back after a 503 throws at the caller, so {@code relent.calls} must count a
 * failure, and for the same reason as the same POST held back after a connection reset.
 */
class Issue24HeldBackWriteTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("POST", "/answered")
                  .steps(Step.status(503))
                  .route("POST", "/reset")
                  .steps(Step.fault(InjectedFault.RESET))
                  .build())
          .withClock(time);

  @Test
  void aHeldBackWriteIsCountedAsAFailureSyncAndAsync(MockServer server) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelentMetrics metrics = RelentMetrics.of("payments");
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient())
            .withPolicy(RetryPolicy.ofDefaults())
            .withExecutor(x -> x.onEvent(metrics.listener()))
            .withTime(time)
            .withoutLogging()
            .build();
    metrics.withGuardsOf(http.executor()).bindTo(registry);

    for (String path : new String[] {"/answered", "/reset", "/answered", "/reset"}) {
      HttpRequest post =
          HttpRequest.newBuilder(server.uri(path))
              .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
              .build();
      assertThat(catchThrowable(() -> http.send(post, BodyHandlers.discarding())))
          .isInstanceOf(NotRetriedWriteException.class);
    }
    for (String path : new String[] {"/answered", "/reset"}) {
      HttpRequest post =
          HttpRequest.newBuilder(server.uri(path))
              .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}"))
              .build();
      Throwable async =
          catchThrowable(() -> http.sendAsync(post, BodyHandlers.discarding()).join());
      assertThat(async).isInstanceOf(CompletionException.class);
      assertThat(async.getCause()).isInstanceOf(NotRetriedWriteException.class);
    }

    assertThat(Meters.of(registry))
        .filteredOn(line -> line.startsWith("relent.calls{"))
        .containsExactly(
            "relent.calls{name=payments,outcome=failure,reason=not-retryable,retried=false} 6");
  }
}
