package dev.relent.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@link RelentProxy#close()} drains: calls in flight end, new connections are not accepted. */
class DrainTest {
  @Test
  void aCallInFlightEndsAndNewConnectionsAreRefused() throws Exception {
    ProxyFixture f =
        new ProxyFixture(
            Scenario.builder()
                .route("/slow")
                .steps(Step.ok("finished").withDelay(Duration.ofMillis(500)))
                .build());
    try {
      CompletableFuture<HttpResponse<String>> inFlight =
          f.client.sendAsync(
              java.net.http.HttpRequest.newBuilder(f.uri("/slow")).build(),
              HttpResponse.BodyHandlers.ofString());
      while (f.proxy.inFlight() == 0) {
        Thread.onSpinWait();
      }
      CompletableFuture<Void> closing = CompletableFuture.runAsync(f.proxy::close);
      while (!f.proxy.draining()) {
        Thread.onSpinWait();
      }
      assertThat(inFlight.get().statusCode()).isEqualTo(200);
      assertThat(inFlight.get().body()).isEqualTo("finished");
      closing.get();
      assertThatThrownBy(() -> new Raw(f.address())).isInstanceOf(IOException.class);
    } finally {
      f.close();
    }
  }
}
