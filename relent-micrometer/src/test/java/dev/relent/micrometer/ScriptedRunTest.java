package dev.relent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.CircuitOpenException;
import dev.relent.Jitter;
import dev.relent.RelentCounters;
import dev.relent.RetriesExhaustedException;
import dev.relent.RetryPolicy;
import dev.relent.ServerWaitTooLongException;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.testing.MockServerExtension;
import dev.relent.time.FakeTime;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One scripted run through the JDK client wrapper against the mock server, on fake time, and then
 * every meter's exact value: the counters, each timer's count, total and maximum, every gauge.
 * Attempts take no fake time (the server answers at once and the fake time moves only when the
 * client waits), so attempt timers read 0 and call timers read the waits alone.
 */
class ScriptedRunTest {
  private final FakeTime time = new FakeTime();

  @RegisterExtension
  final MockServerExtension mock =
      MockServerExtension.of(
              Scenario.builder()
                  .route("/flaky")
                  .steps(Step.status(503), Step.status(503), Step.status(200))
                  .route("/bad")
                  .steps(Step.status(400))
                  .route("/limited")
                  .steps(Step.status(429).withHeader("Retry-After", "1"), Step.status(200))
                  .route("/down")
                  .steps(Step.status(503))
                  .route("/busy")
                  .steps(Step.status(503).withHeader("Retry-After", "60"))
                  .build())
          .withClock(time);

  @Test
  void everyMeterReadsWhatTheRunDid(MockServer server) throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, new MockClock());
    RelentMetrics metrics = RelentMetrics.builder("api").withTag("region", "eu").build();
    CircuitBreaker breaker =
        CircuitBreaker.builder()
            .withCountWindow(10)
            .withMinimumCalls(4) // opens with the run's fourth counted call: 2 failures of 4
            .withTime(time)
            .build();
    RetryBudget budget = RetryBudget.builder().withTime(time).build();
    Pacer pacer = Pacer.builder().withRate(10, Duration.ofSeconds(1)).withTime(time).build();
    ConcurrencyLimit limit = ConcurrencyLimit.of(4);
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient())
            .withPolicy(
                RetryPolicy.builder()
                    .withMaxRetries(2)
                    .withBackoff(
                        Backoff.builder()
                            .withBase(Duration.ofMillis(200))
                            .withCap(Duration.ofMillis(200))
                            .withJitter(Jitter.NONE)
                            .build())
                    .withDeadline(Duration.ofSeconds(30))
                    .withMaxServerWait(Duration.ofSeconds(5))
                    .withServerWaitSpread(0)
                    .build())
            .withExecutor(
                x ->
                    x.withCircuitBreaker(breaker)
                        .withRetryBudget(budget)
                        .withPacer(pacer)
                        .withConcurrencyLimit(limit)
                        .onEvent(metrics.listener()))
            .withTime(time)
            .withoutLogging()
            .build();
    metrics.withGuardsOf(http.executor()).bindTo(registry);

    // t = 0: 503, wait 200 ms, 503, wait 200 ms, 200.
    assertThat(get(http, server, "/flaky")).isEqualTo(200);
    // t = 400 ms: the pacer holds the start 100 ms; a 400 is handed back as it is.
    assertThat(get(http, server, "/bad")).isEqualTo(400);
    // t = 500 ms: paced 100 ms; 429 with Retry-After: 1 pauses the pacer, wait 1 s, 200: for
    // the breaker one call, a success (the 429 is the server pacing, not failing).
    assertThat(get(http, server, "/limited")).isEqualTo(200);
    // t = 1.6 s: paced 100 ms; 503 three times, the retries used up: one failed call.
    assertThat(catchThrowable(() -> get(http, server, "/down")))
        .isInstanceOf(RetriesExhaustedException.class);
    // t = 2.1 s: paced 100 ms; 503 asking for 60 s, more than the 5 s allowed: the server is
    // failing, so the breaker's fourth call is its second failure, and it opens.
    assertThat(catchThrowable(() -> get(http, server, "/busy")))
        .isInstanceOf(ServerWaitTooLongException.class);
    // t = 2.2 s: the open breaker refuses before anything is sent.
    assertThat(catchThrowable(() -> get(http, server, "/flaky")))
        .isInstanceOf(CircuitOpenException.class);
    assertThat(time.elapsed()).isEqualTo(Duration.ofMillis(2200));

    String own = "{name=api,region=eu,scope=none,scope.kind=none}";
    assertThat(Meters.of(registry))
        .containsExactly(
            // By the status class of each attempt's outcome: 429 apart from the other 4xx.
            "relent.attempt.duration{kind=first,name=api,region=eu,status=429,verdict=retry}"
                + " count=1 total=0ms max=0ms",
            "relent.attempt.duration{kind=first,name=api,region=eu,status=4xx,verdict=abort}"
                + " count=1 total=0ms max=0ms",
            "relent.attempt.duration{kind=first,name=api,region=eu,status=5xx,verdict=retry}"
                + " count=3 total=0ms max=0ms",
            "relent.attempt.duration{kind=retry,name=api,region=eu,status=2xx,verdict=success}"
                + " count=2 total=0ms max=0ms",
            "relent.attempt.duration{kind=retry,name=api,region=eu,status=5xx,verdict=retry}"
                + " count=3 total=0ms max=0ms",
            "relent.attempts{kind=first,name=api,region=eu} 5",
            "relent.attempts{kind=retry,name=api,region=eu} 5",
            "relent.call.duration{name=api,outcome=failure,region=eu}"
                + " count=3 total=600ms max=500ms",
            "relent.call.duration{name=api,outcome=success,region=eu}"
                + " count=3 total=1600ms max=1100ms",
            "relent.calls{name=api,outcome=failure,reason=circuit-open,region=eu,retried=false} 1",
            "relent.calls{name=api,outcome=failure,reason=retries-exhausted,region=eu,retried=true}"
                + " 1",
            "relent.calls{name=api,outcome=failure,reason=server-wait-too-long,region=eu,"
                + "retried=false} 1",
            "relent.calls{name=api,outcome=success,reason=none,region=eu,retried=false} 1",
            "relent.calls{name=api,outcome=success,reason=none,region=eu,retried=true} 2",
            // 2 failed calls of 4, frozen as the breaker opened.
            "relent.circuit.breaker.failure.rate" + own + " 50",
            "relent.circuit.breaker.state{name=api,region=eu,scope=none,scope.kind=none,"
                + "state=closed} 0",
            "relent.circuit.breaker.state{name=api,region=eu,scope=none,scope.kind=none,"
                + "state=half-open} 0",
            "relent.circuit.breaker.state{name=api,region=eu,scope=none,scope.kind=none,"
                + "state=open} 1",
            "relent.concurrency.in.use" + own + " 0",
            "relent.concurrency.limit" + own + " 4",
            "relent.concurrency.waiting" + own + " 0",
            "relent.pacer.interval" + own + " 0.1s",
            "relent.pacer.pause" + own + " 0s",
            "relent.pacer.rate" + own + " 10",
            "relent.pacer.wait{name=api,region=eu} count=4 total=400ms max=100ms",
            // Floor 10 a second over the 10 s window; 5 retries drawn.
            "relent.retry.budget.available" + own + " 95",
            "relent.retry.budget.limit" + own + " 100",
            // Four backoffs of 200 ms; the 429's Retry-After: 1 was longer than its backoff.
            "relent.retry.wait{name=api,region=eu,source=backoff} count=4 total=800ms max=200ms",
            "relent.retry.wait{name=api,region=eu,source=server} count=1 total=1000ms"
                + " max=1000ms");

    // The breaker counted calls: /flaky, /limited, /down, /busy; not /bad (a 400) or attempts.
    assertThat(breaker.metrics().calls()).isEqualTo(4);
    assertThat(breaker.metrics().failures()).isEqualTo(2);

    // The counters read as the executor's own do.
    RelentCounters counters = http.executor().counters();
    assertThat(counters.firstAttempts()).isEqualTo(5);
    assertThat(counters.retries()).isEqualTo(5);
    assertThat(counters.successes()).isEqualTo(3);
    assertThat(counters.failures()).isEqualTo(3);
    assertThat(server.journal()).hasSize(10);
  }

  private static int get(RelentHttpClient http, MockServer server, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(server.uri(path)).build(), BodyHandlers.discarding())
        .statusCode();
  }
}
