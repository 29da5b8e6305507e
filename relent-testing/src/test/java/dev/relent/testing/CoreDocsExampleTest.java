package dev.relent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.ServerHint;
import dev.relent.Verdict;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.testing.docs.DocSnippets;
import dev.relent.time.FakeTime;
import dev.relent.time.RecordingSleeper;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The examples of docs/core.md, compiled and run; the page must show exactly this code. */
class CoreDocsExampleTest {
  record Response(int status, ServerHint retryAfter) {}

  // --- begin classifying
  static final Verdict RETRY_503 = Verdict.retry("http-503");
  static final Verdict NOT_FOUND = Verdict.abort("http-404");

  static RelentExecutor.Builder<Response> classified(RetryPolicy policy) {
    return RelentExecutor.<Response>builder(policy)
        .withClassifier(
            (response, failure) ->
                failure != null
                    ? Verdict.RETRY
                    : response.status() == 503
                        ? RETRY_503
                        : response.status() == 404 ? NOT_FOUND : Verdict.SUCCESS)
        .withHintExtractor(
            (response, failure) ->
                response == null ? null : response.retryAfter()); // a ServerHint, or null
  }

  // --- end

  @Test
  void classifierAndFakeTimeExamplesWork() {
    // --- begin time
    FakeTime time = new FakeTime(); // ticker, clock, sleeper, scheduler and seeded randomness
    RelentExecutor<Response> executor = classified(RetryPolicy.ofDefaults()).withTime(time).build();
    RecordingSleeper sleeper = time.sleeper(); // every wait, recorded
    // --- end

    int[] calls = {0};
    Response response =
        executor.get(
            () ->
                ++calls[0] == 1
                    ? new Response(
                        503, ServerHint.retryAfter(Duration.ofSeconds(2), "Retry-After: 2"))
                    : new Response(404, null));

    assertThat(response.status()).isEqualTo(404);
    assertThat(sleeper.waits()).hasSize(1);
    assertThat(sleeper.waits().get(0)).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2200));
  }

  private int calls;
  private int freeDuringTheCall = -1;
  private final ConcurrencyLimit limit = ConcurrencyLimit.of(1);

  private void callTheService() {
    calls++;
    freeDuringTheCall = limit.available();
  }

  @Test
  void thePermitExampleHoldsTheSlotForTheCallAndGivesItBack() throws InterruptedException {
    // --- begin permit
    ConcurrencyLimit.Permit slot = limit.acquire(Duration.ofSeconds(2)).orElseThrow();
    try {
      callTheService();
    } finally {
      slot.release(); // a second release would do nothing
    }
    // --- end

    slot.release();
    assertThat(calls).isEqualTo(1);
    assertThat(freeDuringTheCall).isZero();
    assertThat(limit.available()).isEqualTo(1);
  }

  @Test
  void theAdaptivePacerAndTheOverloadExamplesBuild() {
    // --- begin adaptive
    Pacer pacer = Pacer.builder().adaptive().withRate(600, Duration.ofMinutes(1)).build();
    RelentExecutor<Response> paced =
        classified(RetryPolicy.ofDefaults())
            .withPacer(pacer) // learns the rate, never above 600/min
            .withConcurrencyLimit(ConcurrencyLimit.of(8))
            .build();
    // --- end
    // --- begin bracket
    Pacer learned = Pacer.builder().adaptive(Pacer.Congestion.BRACKET).build();
    // --- end
    // --- begin overload
    RelentExecutor<Response> guarded =
        classified(RetryPolicy.ofDefaults())
            .withRetryBudget(RetryBudget.ofDefaults())
            .withCircuitBreaker(
                CircuitBreaker.builder().withOpenDuration(Duration.ofMillis(250)).build())
            .build();
    // --- end

    assertThat(pacer.isAdaptive()).isTrue();
    assertThat(pacer.interval()).isEqualTo(Duration.ofMillis(100));
    assertThat(paced.toString()).contains("adaptive=aimd");
    assertThat(learned.toString()).contains("adaptive=bracket");
    assertThat(guarded.toString()).contains("openDuration=250 ms");
  }

  @Test
  void thePageShowsExactlyThisCode() {
    DocSnippets.assertPageShowsSnippetsOf(
        "../docs/core.md", CoreDocsExampleTest.class, ScopesDocsExampleTest.class);
  }
}
