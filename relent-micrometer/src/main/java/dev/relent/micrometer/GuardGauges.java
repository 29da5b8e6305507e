package dev.relent.micrometer;

import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The gauges of one set of guards (an executor's own, or a scope's). Each gauge holds its guard
 * weakly, as Micrometer's gauges do by default, and reads it with a function that captures nothing
 * but constants, so that no gauge keeps a guard, or the executor behind it, alive.
 */
final class GuardGauges {
  private static final double SECOND = 1_000_000_000d;

  private GuardGauges() {}

  /**
   * Registers the gauges of the guards given (null: none of that kind).
   *
   * @return the meters registered, to remove them with the scope
   */
  static List<Meter> register(
      MeterRegistry registry,
      Tags tags,
      CircuitBreaker breaker,
      RetryBudget budget,
      ConcurrencyLimit limit,
      Pacer pacer) {
    Registrar gauges = new Registrar(registry, tags);
    if (breaker != null) {
      for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
        gauges.add(
            "relent.circuit.breaker.state",
            tags.and("state", slug(state)),
            breaker,
            b -> b.state() == state ? 1 : 0,
            "1 for the circuit breaker's state, 0 for the others");
      }
      gauges.meters.add(
          Gauge.builder(
                  "relent.circuit.breaker.failure.rate", breaker, b -> b.metrics().failureRate())
              .description(
                  "Failed calls among the calls in the circuit breaker's window, in percent (0"
                      + " without calls; frozen while not closed, showing what opened it)")
              .baseUnit("percent")
              .tags(tags)
              .register(registry));
    }
    if (budget != null) {
      gauges.add(
          "relent.retry.budget.available",
          budget,
          RetryBudget::available,
          "Retries the retry budget allows now");
      gauges.add(
          "relent.retry.budget.limit",
          budget,
          RetryBudget::limit,
          "Retries the retry budget allows in its current window");
    }
    if (limit != null) {
      gauges.add(
          "relent.concurrency.in.use",
          limit,
          l -> l.maxConcurrent() - l.available(),
          "Concurrency slots held now");
      gauges.add(
          "relent.concurrency.limit",
          limit,
          ConcurrencyLimit::maxConcurrent,
          "Concurrency slots in all");
      gauges.add(
          "relent.concurrency.waiting",
          limit,
          ConcurrencyLimit::waiting,
          "Callers waiting for a concurrency slot");
    }
    if (pacer != null) {
      if (!pacer.isAdaptive()) {
        // An adaptive pacer may have no rate (before it learns one, after it drops a bound): a
        // gauge of it would read NaN, which Prometheus exports as it is. Its interval says it all.
        gauges.add(
            "relent.pacer.rate",
            pacer,
            GuardGauges::rate,
            "Starts per second the pacer allows (a fixed-rate pacer's rate)");
      }
      gauges.meters.add(
          TimeGauge.builder(
                  "relent.pacer.interval", pacer, TimeUnit.NANOSECONDS, GuardGauges::intervalNanos)
              .description(
                  "The spacing the pacer keeps between starts now (an adaptive pacer's learned"
                      + " one); 0 while an adaptive pacer does not pace")
              .tags(tags)
              .register(registry));
      gauges.meters.add(
          TimeGauge.builder(
                  "relent.pacer.pause",
                  pacer,
                  TimeUnit.NANOSECONDS,
                  p -> p.pauseRemaining().toNanos())
              .description("How long the pacer's pause lasts from now; 0 if not paused")
              .tags(tags)
              .register(registry));
    }
    return gauges.meters;
  }

  /** Registers gauges with the same tags, and keeps them. */
  private static final class Registrar {
    final MeterRegistry registry;
    final Tags tags;
    final List<Meter> meters = new ArrayList<>();

    Registrar(MeterRegistry registry, Tags tags) {
      this.registry = registry;
      this.tags = tags;
    }

    <T> void add(String name, T guard, ToDoubleFunction<T> value, String description) {
      add(name, tags, guard, value, description);
    }

    <T> void add(String name, Tags tags, T guard, ToDoubleFunction<T> value, String description) {
      meters.add(
          Gauge.builder(name, guard, value).description(description).tags(tags).register(registry));
    }
  }

  /** Starts per second of a fixed-rate pacer: one over its interval. */
  static double rate(Pacer pacer) {
    return SECOND / pacer.interval().toNanos();
  }

  /** The interval in nanoseconds; 0 for the 1 ns an adaptive pacer that does not pace reports. */
  static double intervalNanos(Pacer pacer) {
    long interval = pacer.interval().toNanos();
    return interval <= 1 ? 0 : interval;
  }

  static String slug(CircuitBreaker.State state) {
    return state.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
