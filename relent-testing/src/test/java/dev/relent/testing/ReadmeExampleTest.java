package dev.relent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.testing.docs.DocSnippets;
import dev.relent.time.FakeTime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's example, compiled and run; the README shows exactly this code, with the imports it
 * uses, on the system time (the lines marked {@code // test only} are left out).
 */
class ReadmeExampleTest {
  record Quote(String currency, double rate) {}

  /** A stand-in for a remote API that fails twice, then answers. */
  static final class Rates {
    final List<Duration> timeouts = new ArrayList<>();

    Quote fetch(String currency, Duration timeout) throws IOException {
      timeouts.add(timeout);
      if (timeouts.size() < 3) {
        throw new IOException("connection reset");
      }
      return new Quote(currency, 1.08);
    }
  }

  @Test
  void theReadmeExampleRetriesThroughTwoResets() {
    Rates rates = new Rates();
    FakeTime time = new FakeTime();

    // --- begin README (with imports)
    // One policy and one executor per downstream, shared by every call.
    RetryPolicy policy =
        RetryPolicy.builder()
            .withMaxRetries(4)
            .withDeadline(Duration.ofSeconds(30)) // the whole operation, waits included
            .build();

    RelentExecutor<Quote> executor =
        RelentExecutor.<Quote>builder(policy)
            .retryOn(IOException.class) // transient faults; other exceptions fail fast
            .withCircuitBreaker(CircuitBreaker.ofDefaults())
            .withRetryBudget(RetryBudget.ofDefaults())
            .withPacer(Pacer.of(90, Duration.ofMinutes(1)))
            .withTime(time) // test only
            .build();

    // Each attempt learns its time limit: min(attempt timeout, deadline left).
    Quote quote = executor.get(ctx -> rates.fetch("EUR", ctx.timeout()));
    // --- end

    assertThat(quote).isEqualTo(new Quote("EUR", 1.08));
    assertThat(rates.timeouts).hasSize(3);
    assertThat(rates.timeouts.get(0)).isEqualTo(Duration.ofSeconds(10));
    assertThat(executor.counters().retries()).isEqualTo(2);
  }

  @Test
  void theReadmeShowsExactlyThisCode() {
    DocSnippets.assertPageShowsSnippetsOf("../README.md", ReadmeExampleTest.class);
  }
}
