package dev.relent.scenarios;

import static dev.relent.testing.RelentAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentCounters;
import dev.relent.RetryPolicy;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.JournalAssert;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The small-batch check: 20 reads from 8 threads, through a client limited to 4 at once, against a
 * route whose token bucket (10/s, burst 5) answers 429 with {@code Retry-After}. Counts first
 * attempts, retries, successes and final failures, the spacing of each request's retries and the
 * concurrency the server actually saw. Waits are virtual: client and server share the fake time, so
 * the server's bucket refills exactly as the client waits.
 */
class SmallBatchTest {
  private static final int REQUESTS = 20;

  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.parse(
                  "{\"routes\": [{\"path\": \"/quotes\", \"steps\": [{\"status\": 200, \"body\":"
                      + " \"q\"}], \"rateLimit\": {\"limit\": 10, \"window\": \"1s\", \"burst\": 5,"
                      + " \"key\": \"global\"}}]}"))
          .withClock(time);

  @Test
  void twentyReadsUnder429sAllSucceedSpacedAsTheServerAsked(MockServer server) throws Exception {
    ConcurrencyLimit limit = ConcurrencyLimit.of(4);
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient())
            .withPolicy(
                RetryPolicy.builder()
                    .withMaxRetries(10)
                    .withDeadline(Duration.ofMinutes(5))
                    .build())
            .withExecutor(x -> x.withConcurrencyLimit(limit))
            .withTime(time.withSeed(3))
            .build();

    ExecutorService workers = Executors.newFixedThreadPool(8);
    List<Future<Integer>> results = new ArrayList<>();
    try {
      for (int i = 0; i < REQUESTS; i++) {
        HttpRequest read =
            HttpRequest.newBuilder(server.uri("/quotes")).header("X-Request-Id", "r" + i).build();
        results.add(
            workers.submit(
                () -> http.send(read, HttpResponse.BodyHandlers.discarding()).statusCode()));
      }
      for (Future<Integer> result : results) {
        assertThat(result.get()).isEqualTo(200);
      }
    } finally {
      workers.shutdownNow();
    }

    RelentCounters counters = http.counters();
    List<JournalEntry> journal = server.journal();
    long throttled = assertThat(journal).countWithStatus(429);
    assertThat(counters.firstAttempts()).isEqualTo(REQUESTS);
    assertThat(counters.successes()).isEqualTo(REQUESTS);
    assertThat(counters.failures()).isZero();
    // The bucket starts with 5 tokens, and the shared time moves only when a throttled request
    // waits, so each 429 buys at most a refill of 5 (the burst): 20 successes need at least 3. More
    // is usual, but how many depends on how the threads interleave.
    assertThat(throttled)
        .as("the bucket holds 5 and refills only while a throttled client waits")
        .isGreaterThanOrEqualTo((REQUESTS - 5 + 4) / 5);
    assertThat(counters.retries()).isEqualTo(throttled);
    assertThat(journal).hasAttempts(REQUESTS + (int) throttled);
    assertThat(assertThat(journal).countWithStatus(200)).isEqualTo(REQUESTS);
    for (int i = 0; i < REQUESTS; i++) {
      // Retry-After here is at least 1 s: no request came back sooner.
      JournalAssert attempts = assertThat(journal).withHeader("X-Request-Id", "r" + i);
      attempts.spacedAtLeast(Duration.ofSeconds(1));
    }
    assertThat(server).hadAtMostConcurrent(4);
    assertThat(limit.available()).isEqualTo(4);
  }
}
