package dev.relent.testing.docs;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.Backoff;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.Envelope;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples of docs/testing.md that start one server per test, and those on fake time alone,
 * compiled and run; {@link #thePageShowsExactlyTheseExamples()} checks that the page shows them as
 * they are here.
 */
class TestingDocsExampleTest {
  // --- begin first test (with imports)
  private final FakeTime time = new FakeTime();
  private final HttpClient client = HttpClient.newHttpClient();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/flaky")
                  .steps(Step.status(503), Step.status(503), Step.status(200))
                  .build())
          .withClock(time); // the server stamps its journal on the test's virtual time

  @Test
  void retriesTwiceInsideTheBackoffEnvelope(MockServer server) {
    Backoff backoff = Backoff.ofDefaults(); // full jitter, 500 ms doubling up to 30 s
    RelentExecutor<HttpResponse<Void>> executor =
        RelentExecutor.<HttpResponse<Void>>builder(
                RetryPolicy.builder().withBackoff(backoff).build())
            .retryIf(response -> response.statusCode() == 503)
            .withTime(time) // the client waits on the same virtual time
            .build();

    HttpRequest request = HttpRequest.newBuilder(server.uri("/flaky")).build();
    HttpResponse<Void> response =
        executor.get(() -> client.send(request, BodyHandlers.discarding()));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(server.journal()).onPath("/flaky").hasAttempts(3).spacedWithin(Envelope.of(backoff));
  }

  // --- end

  @Test
  void recordingSleeper() {
    // --- begin recording sleeper
    FakeTime time = new FakeTime(); // ticker, clock, sleeper, scheduler and seeded randomness
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .retryOn(IOException.class)
            .withTime(time)
            .build();

    int[] calls = {0};
    String answer =
        executor.get(
            () -> {
              if (++calls[0] < 3) {
                throw new IOException("connection reset");
              }
              return "ok";
            });

    assertThat(answer).isEqualTo("ok");
    assertThat(time.sleeper().waits()).hasSize(2); // one wait before each retry, none slept
    assertThat(time.elapsed()).isEqualTo(time.sleeper().total());
    // --- end
  }

  @Test
  void manualScheduler() {
    // --- begin manual scheduler
    FakeTime time = new FakeTime();
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .retryIf("busy"::equals)
            .withTime(time)
            .build();

    int[] calls = {0};
    CompletableFuture<String> answer =
        executor.getAsync(ctx -> CompletableFuture.completedFuture(++calls[0] < 2 ? "busy" : "ok"));

    assertThat(answer).isNotDone(); // the retry waits in the scheduler, not on a thread
    assertThat(time.scheduler().pending()).isEqualTo(1);
    time.scheduler().runUntilIdle(); // moves the fake time to the retry and runs it here
    assertThat(answer).isCompletedWithValue("ok");
    assertThat(time.elapsed()).isEqualTo(time.scheduler().delays().get(0));
    // --- end
  }

  @Test
  void thePageShowsExactlyTheseExamples() {
    DocSnippets.assertPageShowsSnippetsOf(
        "../docs/testing.md",
        TestingDocsExampleTest.class,
        TestingDocsLowerBoundsTest.class,
        TestingDocsSharedServerTest.class);
  }
}
