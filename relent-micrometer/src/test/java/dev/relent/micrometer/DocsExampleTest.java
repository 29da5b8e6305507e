package dev.relent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.Scope;
import dev.relent.http.HttpScopes;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.testing.docs.DocSnippets;
import dev.relent.time.FakeTime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The examples of docs/micrometer.md, compiled and run; {@link #thePageShowsExactlyTheseExamples()}
 * checks that the page's Java blocks are the lines between {@code // --- begin} and {@code // ---
 * end} here, without those ending in {@code // test only}.
 */
class DocsExampleTest {
  private final FakeTime time = new FakeTime();

  @Test
  void anExecutor() throws Exception {
    Payments payments = new Payments();
    // --- begin executor
    MeterRegistry registry = new SimpleMeterRegistry(); // the application's registry
    RelentMetrics metrics = RelentMetrics.builder("payments").withTag("region", "eu").build();
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .retryOn(IOException.class)
            .withCircuitBreaker(CircuitBreaker.ofDefaults())
            .withTime(time) // test only
            .onEvent(metrics.listener())
            .build();
    metrics.withGuardsOf(executor).bindTo(registry);

    String receipt = executor.get(() -> payments.charge(100)); // a reset, then "receipt-1"
    // relent.calls{name=payments,outcome=success,reason=none,region=eu,retried=true} 1
    // relent.attempts{kind=first,...} 1, relent.attempts{kind=retry,...} 1
    // relent.circuit.breaker.state{...,scope=none,scope.kind=none,state=closed} 1
    // --- end
    assertThat(receipt).isEqualTo("receipt-1");
    assertThat(
            registry
                .get("relent.calls")
                .tags("name", "payments", "region", "eu", "outcome", "success", "retried", "true")
                .tag("reason", "none")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(registry.get("relent.attempts").tag("kind", "first").counter().count()).isEqualTo(1);
    assertThat(registry.get("relent.attempts").tag("kind", "retry").counter().count()).isEqualTo(1);
    assertThat(
            registry
                .get("relent.circuit.breaker.state")
                .tags("scope", "none", "scope.kind", "none", "state", "closed")
                .gauge()
                .value())
        .isEqualTo(1);
  }

  @Test
  void anHttpClientWithScopes() {
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    // --- begin http
    GuardRegistry scopes =
        GuardRegistry.builder()
            .withPacer(Scope.Kind.ENDPOINT, scope -> Pacer.of(10, Duration.ofSeconds(1)))
            .withTime(time) // test only
            .build();
    RelentMetrics metrics = RelentMetrics.of("catalog");
    RelentHttpClient http =
        RelentHttpClient.builder(HttpClient.newHttpClient())
            .withExecutor(x -> x.onEvent(metrics.listener()))
            .withScopes(HttpScopes.builder().withRoutes("/v1/items/{id}").build(), scopes)
            .withTime(time) // test only
            .build();
    metrics.withGuardsOf(http.executor()).bindTo(meterRegistry);
    // GET https://api.example.com/v1/items/7 is metered as the scope
    // relent.pacer.rate{name=catalog,scope=GET api.example.com/v1/items/{id},
    //                   scope.kind=endpoint} 10
    // --- end
    assertThat(meterRegistry.get("relent.scopes").tag("name", "catalog").gauge().value()).isZero();
  }

  @Test
  void thePageShowsExactlyTheseExamples() {
    DocSnippets.assertPageShowsSnippetsInOrderOf("../docs/micrometer.md", DocsExampleTest.class);
  }

  /** A payment API that resets the first connection. */
  static final class Payments {
    private int calls;

    String charge(int amount) throws IOException {
      if (++calls == 1) {
        throw new IOException("connection reset");
      }
      return "receipt-" + (amount / 100);
    }
  }
}
