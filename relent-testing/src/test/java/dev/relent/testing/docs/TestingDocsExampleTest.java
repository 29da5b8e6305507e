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
import dev.relent.testing.FakeTime;
import dev.relent.testing.ManualScheduler;
import dev.relent.testing.MockServerExtension;
import dev.relent.testing.RecordingSleeper;
import dev.relent.time.RandomSource;
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
    RetryPolicy<HttpResponse<Void>> policy =
        RetryPolicy.<HttpResponse<Void>>builder()
            .retryIf(response -> response.statusCode() == 503)
            .withBackoff(backoff)
            .build();
    RelentExecutor<HttpResponse<Void>> executor =
        RelentExecutor.builder(policy)
            .withTicker(time) // the client waits on the same virtual time
            .withClock(time)
            .withSleeper(new RecordingSleeper(time))
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
    FakeTime time = new FakeTime();
    RecordingSleeper sleeper = new RecordingSleeper(time);
    RelentExecutor<String> executor =
        RelentExecutor.builder(RetryPolicy.<String>builder().retryOn(IOException.class).build())
            .withTicker(time)
            .withClock(time)
            .withSleeper(sleeper)
            .withRandom(RandomSource.seeded(42)) // the same jitter on every run
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
    assertThat(sleeper.waits()).hasSize(2); // one wait before each retry, none really slept
    assertThat(time.elapsed()).isEqualTo(sleeper.total());
    // --- end
  }

  @Test
  void manualScheduler() {
    // --- begin manual scheduler
    FakeTime time = new FakeTime();
    ManualScheduler scheduler = new ManualScheduler(time);
    RelentExecutor<String> executor =
        RelentExecutor.builder(RetryPolicy.<String>builder().retryIf("busy"::equals).build())
            .withTicker(time)
            .withClock(time)
            .withScheduler(scheduler)
            .withRandom(RandomSource.seeded(42))
            .build();

    int[] calls = {0};
    CompletableFuture<String> answer =
        executor.getAsync(ctx -> CompletableFuture.completedFuture(++calls[0] < 2 ? "busy" : "ok"));

    assertThat(answer).isNotDone(); // the retry waits in the scheduler, not on a thread
    assertThat(scheduler.pending()).isEqualTo(1);
    scheduler.runUntilIdle(); // moves the fake time to the retry and runs it here
    assertThat(answer).isCompletedWithValue("ok");
    assertThat(time.elapsed()).isEqualTo(scheduler.delays().get(0));
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
