package dev.relent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.relent.OutcomeDescriber;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.Pacer;
import dev.relent.time.FakeTime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What RelentMetrics refuses and why, and how it behaves around binding, async calls and GC. */
class RelentMetricsTest {
  private final FakeTime time = new FakeTime();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void aMissingOrBlankNameIsRefusedSayingWhatToGive() {
    assertThatThrownBy(() -> RelentMetrics.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name cannot be null");
    assertThatThrownBy(() -> RelentMetrics.of("  "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "name cannot be blank: name the executor, for example after the downstream it calls"
                + " (\"payments\")");
    assertThatThrownBy(() -> RelentMetrics.builder("x".repeat(101)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "name must be at most 100 characters: 101 (it is a tag value: name the executor, not a"
                + " request)");
  }

  @Test
  void aNullRegistryIsRefused() {
    RelentMetrics metrics = RelentMetrics.of("api");
    assertThatThrownBy(() -> metrics.bindTo(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("registry cannot be null");
    assertThatThrownBy(() -> metrics.withGuardsOf(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("executor cannot be null");
  }

  @Test
  void badTagsAndBoundsAreRefused() {
    RelentMetrics.Builder b = RelentMetrics.builder("api");
    assertThatThrownBy(() -> b.withTag("outcome", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tag key \"outcome\" is set by RelentMetrics itself: choose another key");
    assertThatThrownBy(() -> b.withTag("scope.kind", "x"))
        .hasMessage("tag key \"scope.kind\" is set by RelentMetrics itself: choose another key");
    assertThatThrownBy(() -> b.withTag("region", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tag key and value cannot be blank: \"region\"=\" \"");
    assertThatThrownBy(() -> b.withTag(null, "eu"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("tag key cannot be null");
    assertThatThrownBy(() -> b.withTag("region", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("tag value cannot be null");
    assertThatThrownBy(() -> b.withMaxScopes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxScopes must be >= 0: -1");
    assertThatThrownBy(() -> b.withScopeRefresh(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("scopeRefresh must be > 0: PT0S");
    assertThatThrownBy(() -> b.withScopeRefresh(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("interval cannot be null");
  }

  @Test
  void oneRegistryAndOneExecutorPerMetrics() {
    RelentMetrics metrics = RelentMetrics.of("api");
    metrics.bindTo(registry);
    metrics.bindTo(registry); // the same one again: nothing happens
    assertThatThrownBy(() -> metrics.bindTo(new SimpleMeterRegistry()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the metrics \"api\" are bound to a registry already: bind to one registry (a"
                + " CompositeMeterRegistry for several)");
    RelentExecutor<String> executor = executor(metrics);
    metrics.withGuardsOf(executor);
    assertThatThrownBy(() -> metrics.withGuardsOf(executor))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the metrics \"api\" already gauge the guards of an executor: make one RelentMetrics"
                + " per executor, each with its own name");
  }

  @Test
  void isAMeterBinderAndCountsNothingBeforeItIsBound() {
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor = executor(metrics);
    executor.get(() -> "ok");
    MeterBinder binder = metrics;

    binder.bindTo(registry);
    assertThat(registry.getMeters()).isEmpty(); // event meters come with their first event
    executor.get(() -> "ok");

    assertThat(Meters.of(registry))
        .containsExactly(
            // A describer without HTTP names no status class.
            "relent.attempt.duration{kind=first,name=api,status=none,verdict=success} count=1"
                + " total=0ms max=0ms",
            "relent.attempts{kind=first,name=api} 1",
            "relent.call.duration{name=api,outcome=success} count=1 total=0ms max=0ms",
            "relent.calls{name=api,outcome=success,reason=none,retried=false} 1");
    assertThat(metrics.name()).isEqualTo("api");
    assertThat(metrics.<String>listener()).isSameAs(metrics.<Integer>listener());
  }

  @Test
  void anUncheckedFailureRethrownAsItIsCountsAsNotRetryable() {
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .retryOn(IOException.class)
            .withTime(time)
            .onEvent(metrics.listener())
            .build();
    metrics.bindTo(registry);

    assertThatThrownBy(
            () ->
                executor.get(
                    () -> {
                      throw new IllegalArgumentException("bad input");
                    }))
        .hasMessage("bad input");

    assertThat(Meters.of(registry))
        .contains("relent.calls{name=api,outcome=failure,reason=not-retryable,retried=false} 1");
  }

  @Test
  void asyncCallsGiveTheSameMetersAsSyncOnes() {
    List<String> sync = run(false);
    List<String> async = run(true);
    assertThat(async).isEqualTo(sync);
    assertThat(sync)
        .contains(
            "relent.attempts{kind=retry,name=api} 2",
            "relent.calls{name=api,outcome=success,reason=none,retried=true} 1");
  }

  private static List<String> run(boolean async) {
    FakeTime time = new FakeTime();
    MeterRegistry registry = new SimpleMeterRegistry();
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .retryIf("busy"::equals)
            .withTime(time)
            .onEvent(metrics.listener())
            .build();
    metrics.withGuardsOf(executor).bindTo(registry);
    int[] calls = {0};
    if (async) {
      CompletableFuture<String> answer =
          executor.getAsync(
              ctx -> CompletableFuture.completedFuture(++calls[0] < 3 ? "busy" : "ok"));
      time.scheduler().runUntilIdle();
      assertThat(answer).isCompletedWithValue("ok");
    } else {
      assertThat(executor.get(() -> ++calls[0] < 3 ? "busy" : "ok")).isEqualTo("ok");
    }
    return Meters.of(registry);
  }

  @Test
  void callsOnManyThreadsAreEachCountedOnce() throws Exception {
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor = executor(metrics);
    metrics.bindTo(registry);
    int threads = 4;
    int perThread = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perThread; i++) {
                    executor.get(() -> "ok");
                  }
                  return null;
                }));
      }
      start.countDown(); // every thread races to make the first meters
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }

    assertThat(registry.get("relent.calls").counter().count()).isEqualTo(threads * perThread);
    assertThat(registry.get("relent.attempts").counter().count()).isEqualTo(threads * perThread);
    assertThat(registry.get("relent.call.duration").timer().count()).isEqualTo(threads * perThread);
  }

  @Test
  void anAdaptivePacersIntervalIsZeroUntilItLearnsOneAndNoGaugeReadsNaN() {
    Pacer pacer = Pacer.builder().adaptive().withTime(time).build();
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .withPacer(pacer)
            .withTime(time)
            .onEvent(metrics.listener())
            .build();
    metrics.withGuardsOf(executor).bindTo(registry);
    assertThat(interval()).isZero();
    assertThat(registry.find("relent.pacer.rate").meters()).isEmpty();
    assertThat(Meters.of(registry)).noneMatch(line -> line.contains("NaN"));

    pacer.observeQuota(0, 10, Duration.ofSeconds(10).toNanos()); // 10 more in the next 10 s

    assertThat(interval()).isEqualTo(pacer.interval().toNanos() / 1e9).isCloseTo(1.0, within(0.01));
  }

  @Test
  void aFixedRatePacerHasItsRateAndInterval() {
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .withPacer(Pacer.builder().withRate(4, Duration.ofSeconds(1)).withTime(time).build())
            .withTime(time)
            .onEvent(metrics.listener())
            .build();
    metrics.withGuardsOf(executor).bindTo(registry);

    assertThat(registry.get("relent.pacer.rate").gauge().value()).isEqualTo(4.0);
    assertThat(interval()).isEqualTo(0.25);
  }

  private double interval() {
    return registry.get("relent.pacer.interval").timeGauge().value(TimeUnit.SECONDS);
  }

  @Test
  void gaugesDoNotKeepAnExecutorsGuardsAlive() {
    RelentMetrics metrics = RelentMetrics.of("gone");
    WeakReference<CircuitBreaker> breaker = bindAndDropAnExecutor(metrics);
    for (int i = 0; i < 20 && breaker.get() != null; i++) {
      System.gc();
    }

    assertThat(breaker.get()).as("the breaker, once the executor is dropped").isNull();
    assertThat(registry.get("relent.circuit.breaker.state").tag("state", "closed").gauge().value())
        .isNaN();
  }

  private WeakReference<CircuitBreaker> bindAndDropAnExecutor(RelentMetrics metrics) {
    CircuitBreaker breaker = CircuitBreaker.builder().withTime(time).build();
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .withCircuitBreaker(breaker)
            .withTime(time)
            .onEvent(metrics.listener())
            .build();
    metrics.withGuardsOf(executor).bindTo(registry);
    assertThat(registry.get("relent.circuit.breaker.state").tag("state", "closed").gauge().value())
        .isEqualTo(1);
    return new WeakReference<>(breaker);
  }

  @Test
  void aStatusClassOutsideTheKnownSetIsOtherSoTheTagStaysBounded() {
    RelentMetrics metrics = RelentMetrics.of("api");
    RelentExecutor<String> executor =
        RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
            .withOutcomeDescriber(
                new OutcomeDescriber<>() {
                  @Override
                  public String describe(String result, Throwable failure) {
                    return "result";
                  }

                  @Override
                  public String outcomeClass(String result, Throwable failure) {
                    return result; // an exact value per call: unbounded
                  }
                })
            .withTime(time)
            .onEvent(metrics.listener())
            .build();
    metrics.bindTo(registry);
    for (String value : new String[] {"2xx", "HTTP 200", "HTTP 201", "/v1/items/7"}) {
      executor.get(() -> value);
    }
    assertThat(Meters.of(registry))
        .filteredOn(line -> line.startsWith("relent.attempt.duration"))
        .containsExactly(
            "relent.attempt.duration{kind=first,name=api,status=2xx,verdict=success} count=1"
                + " total=0ms max=0ms",
            "relent.attempt.duration{kind=first,name=api,status=other,verdict=success} count=3"
                + " total=0ms max=0ms");
  }

  private RelentExecutor<String> executor(RelentMetrics metrics) {
    return RelentExecutor.<String>builder(RetryPolicy.ofDefaults())
        .withTime(time)
        .onEvent(metrics.listener())
        .build();
  }
}
