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
    List<Meter> meters = new ArrayList<>();
    if (breaker != null) {
      for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
        meters.add(
            Gauge.builder("relent.circuit.breaker.state", breaker, b -> b.state() == state ? 1 : 0)
                .description("1 for the circuit breaker's state, 0 for the others")
                .tags(tags)
                .tag("state", slug(state))
                .register(registry));
      }
    }
    if (budget != null) {
      meters.add(
          Gauge.builder("relent.retry.budget.available", budget, RetryBudget::available)
              .description("Retries the retry budget allows now")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("relent.retry.budget.limit", budget, RetryBudget::limit)
              .description("Retries the retry budget allows in its current window")
              .tags(tags)
              .register(registry));
    }
    if (limit != null) {
      meters.add(
          Gauge.builder("relent.concurrency.in.use", limit, l -> l.maxConcurrent() - l.available())
              .description("Concurrency slots held now")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("relent.concurrency.limit", limit, ConcurrencyLimit::maxConcurrent)
              .description("Concurrency slots in all")
              .tags(tags)
              .register(registry));
      meters.add(
          Gauge.builder("relent.concurrency.waiting", limit, ConcurrencyLimit::waiting)
              .description("Callers waiting for a concurrency slot")
              .tags(tags)
              .register(registry));
    }
    if (pacer != null) {
      meters.add(
          Gauge.builder("relent.pacer.rate", pacer, GuardGauges::rate)
              .description(
                  "Starts per second the pacer allows now (an adaptive pacer's learned rate);"
                      + " NaN while an adaptive pacer does not pace yet")
              .tags(tags)
              .register(registry));
      meters.add(
          TimeGauge.builder(
                  "relent.pacer.pause",
                  pacer,
                  TimeUnit.NANOSECONDS,
                  p -> p.pauseRemaining().toNanos())
              .description("How long the pacer's pause lasts from now; 0 if not paused")
              .tags(tags)
              .register(registry));
    }
    return meters;
  }

  /** Starts per second: one over the interval; NaN for the 1 ns of a pacer that does not pace. */
  static double rate(Pacer pacer) {
    long interval = pacer.interval().toNanos();
    return interval <= 1 ? Double.NaN : SECOND / interval;
  }

  static String slug(CircuitBreaker.State state) {
    return state.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
