package dev.relent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.time.FakeTime;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The names as the Prometheus registry renders them: counters end in {@code _total}, timers are
 * summaries in {@code _seconds}, and every meter of a name has the same label keys (the executor's
 * own guards say {@code scope="none"}), which Prometheus requires and its registry enforces.
 */
class PrometheusNamesTest {
  private static final Pattern TYPE = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$");

  @Test
  void everyMeterRendersAsAnIdiomaticPrometheusFamily() {
    FakeTime time = new FakeTime();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    GuardRegistry scopes =
        GuardRegistry.builder()
            .withCircuitBreaker(
                Scope.Kind.ENDPOINT, s -> CircuitBreaker.builder().withTime(time).build())
            .withRetryBudget(Scope.Kind.ENDPOINT, s -> RetryBudget.builder().withTime(time).build())
            .withConcurrencyLimit(Scope.Kind.ENDPOINT, s -> ConcurrencyLimit.of(2))
            .withPacer(Scope.Kind.ENDPOINT, s -> Pacer.of(100, Duration.ofSeconds(1)))
            .withTime(time)
            .build();
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .retryIf("busy"::equals)
            .withCircuitBreaker(CircuitBreaker.builder().withTime(time).build())
            .withRetryBudget(RetryBudget.builder().withTime(time).build())
            .withConcurrencyLimit(ConcurrencyLimit.of(4))
            .withPacer(Pacer.builder().withRate(10, Duration.ofSeconds(1)).withTime(time).build())
            .withScopes(scopes)
            .withTime(time)
            .onEvent(metrics.listener())
            .build();
    metrics.withGuardsOf(executor).bindTo(registry);
    int[] calls = {0};
    List<Scope> endpoint = List.of(Scope.endpoint("GET api.example.com/v1/items/{id}"));
    executor.get(endpoint, ctx -> ++calls[0] < 2 ? "busy" : "ok", null);
    executor.get(endpoint, ctx -> "ok", null); // paced

    String text = registry.scrape();

    Set<String> families = new TreeSet<>();
    Matcher m = TYPE.matcher(text);
    while (m.find()) {
      families.add(m.group(1) + " " + m.group(2));
    }
    assertThat(families)
        .containsExactly(
            "relent_attempt_duration_seconds summary",
            "relent_attempt_duration_seconds_max gauge",
            "relent_attempts_total counter",
            "relent_call_duration_seconds summary",
            "relent_call_duration_seconds_max gauge",
            "relent_calls_total counter",
            "relent_circuit_breaker_failure_rate_percent gauge",
            "relent_circuit_breaker_state gauge",
            "relent_concurrency_in_use gauge",
            "relent_concurrency_limit gauge",
            "relent_concurrency_waiting gauge",
            "relent_pacer_interval_seconds gauge",
            "relent_pacer_pause_seconds gauge",
            "relent_pacer_rate gauge",
            "relent_pacer_wait_seconds summary",
            "relent_pacer_wait_seconds_max gauge",
            "relent_retry_budget_available gauge",
            "relent_retry_budget_limit gauge",
            "relent_retry_wait_seconds summary",
            "relent_retry_wait_seconds_max gauge",
            "relent_scope_pause_seconds gauge",
            "relent_scope_pauses_total counter",
            "relent_scopes gauge",
            "relent_scopes_paused gauge");
    assertThat(text)
        .contains(
            "relent_calls_total{name=\"api\",outcome=\"success\",reason=\"none\",retried=\"true\"}"
                + " 1.0")
        .contains(
            "relent_circuit_breaker_state{name=\"api\",scope=\"none\",scope_kind=\"none\","
                + "state=\"closed\"} 1.0")
        .contains(
            "relent_pacer_rate{name=\"api\",scope=\"GET api.example.com/v1/items/{id}\","
                + "scope_kind=\"endpoint\"} 100.0")
        .contains(
            "relent_circuit_breaker_failure_rate_percent{name=\"api\",scope=\"none\","
                + "scope_kind=\"none\"} 0.0")
        .contains("relent_retry_wait_seconds_count{name=\"api\",source=\"backoff\"} 1")
        .contains("status=\"none\",verdict=\"retry\"");
  }
}
