package dev.relent.sim;

import static dev.relent.sim.Numbers.decimals;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentCounters;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.AdaptiveThrottle;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.RetryBudget;
import dev.relent.time.RandomSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * Model 2, retry storm: what retries do to a service that stalls and recovers, with Relent's real
 * executor, backoff, retry budget and circuit breaker on virtual time.
 *
 * <p>Requests arrive as a Poisson stream of {@value #RATE_PER_SECOND} per second for {@value
 * #ARRIVALS_SECONDS} s. The service has a capacity of {@value #CAPACITY_PER_SECOND} per second: at
 * most {@value #MAX_IN_FLIGHT} requests in service at once, each taking U(40, 60) ms; a request
 * beyond that is shed with a 503 at once. From {@value #STALL_START_SECONDS} s to {@value
 * #STALL_END_SECONDS} s the service stalls: it answers every request with a 503. Messages take
 * {@value #NETWORK_MILLIS} ms each way. Each request is one operation of a {@link RelentExecutor}
 * shared by all the clients of a trial, retrying every non-200 answer as the {@link Strategy} says.
 *
 * <p>Measured per trial: the offered load (attempts reaching the service) per second and its peak
 * over the normal load, the extra calls (attempts minus requests), the time from the end of the
 * stall until every later second until the arrivals stop has an offered load at most 10 % above the
 * requests arriving in it and at least 99 % of those requests succeeding, and the requests that
 * finally failed.
 *
 * <p>Deterministic for a seed: trial t uses a {@link SplittableRandom} and a {@link
 * RandomSource#seeded} source derived from (seed, t); every strategy sees the same arrivals.
 * Defaults: seed 1, 3 trials. Immutable and thread-safe once built.
 */
public final class Storm extends AbstractModel<Storm.Strategy, Storm.Row, Storm.Result> {
  /** Requests per second. */
  public static final int RATE_PER_SECOND = 1000;

  /** The service's capacity per second. */
  public static final int CAPACITY_PER_SECOND = 1500;

  /** Requests in service at once. */
  public static final int MAX_IN_FLIGHT = 75;

  /** When the stall begins, in seconds. */
  public static final int STALL_START_SECONDS = 5;

  /** When the stall ends, in seconds. */
  public static final int STALL_END_SECONDS = 10;

  /** When the arrivals stop, in seconds. */
  public static final int ARRIVALS_SECONDS = 25;

  /** One-way network delay in milliseconds. */
  public static final int NETWORK_MILLIS = 5;

  /** How long the breaker stays open, in seconds. */
  public static final int BREAKER_OPEN_SECONDS = 2;

  /** How long the quick breaker stays open, in milliseconds. */
  public static final int QUICK_OPEN_MILLIS = 250;

  /** The width of one bin of the load chart, in milliseconds. */
  public static final int BIN_MILLIS = 250;

  /** The bins of the load chart: one minute. */
  static final int BINS = 60_000 / BIN_MILLIS;

  private static final long SECOND = 1_000_000_000L;
  private static final long NETWORK = NETWORK_MILLIS * 1_000_000L;

  /** The model's metrics, in the order of the table and the CSV. */
  static final List<Metric<Row>> METRICS =
      List.of(
          Metric.text("strategy", r -> r.strategy().label()),
          Metric.number(
              "amplification", "peak load / normal", Row::amplification, decimals(3), decimals(2)),
          Metric.number("extra_calls", "extra calls", Row::extraCalls, decimals(1), decimals(0)),
          Metric.number(
              "recovery_s",
              "recovery (s)",
              Row::recoverySeconds,
              decimals(2),
              StormReport::recovery),
          Metric.number("failed", "failed requests", Row::failed, decimals(1), decimals(0)),
          Metric.number(
              "stall_requests",
              "arrived in the stall",
              Row::stallRequests,
              decimals(1),
              decimals(0)),
          Metric.tableOnly(
              "failed / stall",
              r -> r.failed() / r.stallRequests(),
              v -> Numbers.fixed(v, 2) + "×"),
          Metric.number("attempts", "attempts", Row::attempts, decimals(1), decimals(0)),
          Metric.number("requests", "requests", Row::requests, decimals(1), decimals(0)));

  /**
   * The strategies, in the order of the table and the CSV; the tables, the CSV and the charts call
   * them by their {@link #label() labels}: {@code naive}, {@code backoff}, {@code full}, {@code
   * full+budget}, {@code full+budget+breaker}.
   */
  public enum Strategy implements Legend {
    /** 3 immediate retries (a 1 ns backoff). */
    NAIVE,
    /** Relent's default policy (5 retries, 30 s deadline, base 500 ms, cap 30 s) without jitter. */
    BACKOFF,
    /** Relent's default policy, full jitter. */
    FULL,
    /**
     * Plus {@link RetryBudget#ofDefaults()} (10 % of first attempts plus 10 retries per second over
     * 10 s).
     */
    FULL_BUDGET,
    /**
     * Plus a {@link CircuitBreaker} with the defaults (50 % of the last 100 calls, at least 20, 3
     * probes) but open for {@value #BREAKER_OPEN_SECONDS} s instead of 30 s, on the order of the
     * outage.
     */
    FULL_BUDGET_BREAKER,
    /**
     * Full jitter and the budget with client-side adaptive throttling ({@link AdaptiveThrottle},
     * Google SRE: reject here with probability {@code max(0, (requests - 2 accepts) / (requests +
     * 1))} over 2 minutes).
     */
    FULL_BUDGET_THROTTLE,
    /**
     * Full jitter and the budget with a breaker whose probing is quick: open {@value
     * #QUICK_OPEN_MILLIS} ms, then 3 probes.
     */
    FULL_BUDGET_QUICK_BREAKER;

    /** Returns the name with its parts joined by '+', as they add up: {@code full+budget}. */
    @Override
    public String label() {
      return Legend.super.label().replace('-', '+').replace("quick+breaker", "quick-breaker");
    }
  }

  private Storm(Builder b) {
    super(b);
  }

  /**
   * Returns a builder with the defaults: seed 1, 3 trials.
   *
   * @return a new builder, not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  List<Strategy> cells() {
    return List.of(Strategy.values());
  }

  @Override
  Row row(Strategy strategy) {
    Mean m = mean(-1, seed -> trial(strategy, seed).sample());
    double[] f = m.figures();
    // The load per second, so that the chart's unit does not depend on the bin width.
    List<Double> load = m.series(0, v -> v * 1000.0 / BIN_MILLIS);
    return new Row(strategy, f[0], f[1], f[2], f[3], f[4], f[5], f[6], load);
  }

  @Override
  Result result(List<Row> rows) {
    return new Result(settings, rows);
  }

  /**
   * One trial's counts.
   *
   * @param requests requests that arrived
   * @param succeeded requests that finally succeeded
   * @param failed requests that finally failed
   * @param attempts attempts that reached the service
   * @param served attempts the service answered with 200
   * @param shed attempts refused for want of capacity
   * @param stalled attempts answered 503 during the stall
   * @param counters the executor's counters
   * @param attemptsPerBin attempts reaching the service per {@value #BIN_MILLIS} ms
   * @param attemptsPerSecond attempts reaching the service in each whole second
   * @param arrivedPerSecond requests arriving in each whole second
   * @param succeededPerSecond of those, the ones that finally succeeded
   * @param peakLoadPerSecond the most attempts in one whole second
   * @param recoverySeconds seconds from the end of the stall until load and success are normal
   */
  record Trial(
      long requests,
      long succeeded,
      long failed,
      long attempts,
      long served,
      long shed,
      long stalled,
      RelentCounters counters,
      long[] attemptsPerBin,
      long[] attemptsPerSecond,
      long[] arrivedPerSecond,
      long[] succeededPerSecond,
      long peakLoadPerSecond,
      int recoverySeconds) {
    /**
     * The requests that arrived while the service stalled: the failures no strategy can avoid
     * without retrying them, the storm's physical limit.
     */
    long stallRequests() {
      long n = 0;
      for (int s = STALL_START_SECONDS; s < STALL_END_SECONDS; s++) {
        n += arrivedPerSecond[s];
      }
      return n;
    }

    /** The figures of a {@link Row} in its order, and the attempts per bin. */
    Sample sample() {
      return new Sample(
          new double[] {
            peakLoadPerSecond / (double) RATE_PER_SECOND,
            counters.retries(),
            recoverySeconds,
            failed,
            attempts,
            requests,
            stallRequests()
          },
          attemptsPerBin);
    }
  }

  static RelentExecutor<Integer> executor(Strategy strategy, Simulation sim, long seed) {
    RetryPolicy.Builder policy = RetryPolicy.builder();
    if (strategy == Strategy.NAIVE) {
      Duration ns = Duration.ofNanos(1);
      policy
          .withMaxRetries(3)
          .withBackoff(Backoff.builder().withBase(ns).withCap(ns).withJitter(Jitter.NONE).build());
    } else if (strategy == Strategy.BACKOFF) {
      policy.withBackoff(Backoff.builder().withJitter(Jitter.NONE).build());
    }
    RelentExecutor.Builder<Integer> b =
        sim.<Integer>executor(policy.build(), seed).retryIf(s -> s != 200);
    if (strategy.compareTo(Strategy.FULL_BUDGET) >= 0) {
      b.withRetryBudget(RetryBudget.ofDefaults());
    }
    if (strategy == Strategy.FULL_BUDGET_BREAKER) {
      b.withCircuitBreaker(
          CircuitBreaker.builder()
              .withOpenDuration(Duration.ofSeconds(BREAKER_OPEN_SECONDS))
              .build());
    }
    if (strategy == Strategy.FULL_BUDGET_QUICK_BREAKER) {
      b.withCircuitBreaker(
          CircuitBreaker.builder().withOpenDuration(Duration.ofMillis(QUICK_OPEN_MILLIS)).build());
    }
    if (strategy == Strategy.FULL_BUDGET_THROTTLE) {
      b.withThrottle(AdaptiveThrottle.ofDefaults());
    }
    return b.build();
  }

  static Trial trial(Strategy strategy, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    Simulation sim = new Simulation();
    RelentExecutor<Integer> executor = executor(strategy, sim, seed);
    // requests, succeeded, failed, attempts, served, shed, stalled, inFlight
    long[] c = new long[8];
    long[] bins = new long[BINS];
    int seconds = 60;
    long[] perSecond = new long[seconds];
    long[] arrivedPerSecond = new long[seconds];
    long[] okPerSecond = new long[seconds];
    long stallStart = STALL_START_SECONDS * SECOND;
    long stallEnd = STALL_END_SECONDS * SECOND;
    // The Poisson arrivals are drawn first, so that every strategy sees the same ones.
    List<Long> arrivals = new ArrayList<>();
    double at = 0;
    while (true) {
      at += -Math.log(1 - rng.nextDouble()) / RATE_PER_SECOND * SECOND;
      if (at >= ARRIVALS_SECONDS * (double) SECOND) {
        break;
      }
      arrivals.add((long) at);
    }
    // One task per arrival, each scheduling the next, so that the queue stays small.
    Runnable[] arrive = new Runnable[1];
    int[] next = {0};
    arrive[0] =
        () -> {
          long arrival = arrivals.get(next[0]++);
          if (next[0] < arrivals.size()) {
            sim.at(arrivals.get(next[0]), arrive[0]);
          }
          c[0]++;
          int second = (int) (arrival / SECOND);
          arrivedPerSecond[second]++;
          executor
              .getAsync(
                  ctx -> {
                    CompletableFuture<Integer> reply = new CompletableFuture<>();
                    sim.after(
                        NETWORK,
                        () -> {
                          long now = sim.now();
                          c[3]++;
                          int bin = (int) Math.min(BINS - 1, now / (BIN_MILLIS * 1_000_000L));
                          bins[bin]++;
                          perSecond[(int) Math.min(seconds - 1, now / SECOND)]++;
                          if (now >= stallStart && now < stallEnd) {
                            c[6]++;
                            sim.answer(reply, 503, NETWORK);
                          } else if (c[7] >= MAX_IN_FLIGHT) {
                            c[5]++;
                            sim.answer(reply, 503, NETWORK);
                          } else {
                            c[7]++;
                            long service = 40_000_000L + rng.nextLong(20_000_001L);
                            sim.after(
                                service,
                                () -> {
                                  c[7]--;
                                  c[4]++;
                                  sim.answer(reply, 200, NETWORK);
                                });
                          }
                        });
                    return reply;
                  })
              .whenComplete(
                  (status, error) -> {
                    if (error == null) {
                      c[1]++;
                      okPerSecond[second]++;
                    } else {
                      c[2]++;
                    }
                  });
        };
    if (!arrivals.isEmpty()) {
      sim.at(arrivals.get(0), arrive[0]);
    }
    sim.run();
    long peak = 0;
    for (long v : perSecond) {
      peak = Math.max(peak, v);
    }
    int recovered = ARRIVALS_SECONDS;
    for (int s = ARRIVALS_SECONDS - 1; s >= STALL_END_SECONDS; s--) {
      boolean normal =
          // Against that second's own arrivals, so that the noise of the arrivals is no signal.
          perSecond[s] * 10 <= arrivedPerSecond[s] * 11
              && okPerSecond[s] * 100 >= arrivedPerSecond[s] * 99;
      if (!normal) {
        break;
      }
      recovered = s;
    }
    return new Trial(
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        c[5],
        c[6],
        executor.counters(),
        bins,
        perSecond,
        arrivedPerSecond,
        okPerSecond,
        peak,
        recovered - STALL_END_SECONDS);
  }

  /**
   * One strategy's means over the trials.
   *
   * @param strategy the strategy
   * @param amplification the peak offered load per second over the normal load
   * @param extraCalls retries: attempts beyond the first of each request that reached the service
   * @param recoverySeconds seconds from the end of the stall until load and success rate are back
   *     to normal; {@value #ARRIVALS_SECONDS} - {@value #STALL_END_SECONDS} if they never are
   * @param failed requests that finally failed
   * @param attempts attempts that reached the service
   * @param requests requests that arrived
   * @param stallRequests requests that arrived during the stall
   * @param loadPerSecond the offered load in attempts per second, one value per {@value
   *     #BIN_MILLIS} ms bin from t = 0
   */
  public record Row(
      Strategy strategy,
      double amplification,
      double extraCalls,
      double recoverySeconds,
      double failed,
      double attempts,
      double requests,
      double stallRequests,
      List<Double> loadPerSecond) {
    /**
     * Copies the series.
     *
     * @throws NullPointerException if a list is null
     */
    public Row {
      loadPerSecond = List.copyOf(loadPerSecond);
    }
  }

  /**
   * The outcome of a run: one {@link Row} per strategy, in the order of {@link Strategy}.
   * Immutable.
   */
  public static final class Result extends AbstractResult<Row, Result> {
    Result(AbstractBuilder.Settings settings, List<Row> rows) {
      super("storm", settings, rows, METRICS, StormReport::table, StormReport::html);
    }

    /**
     * Returns one strategy's row.
     *
     * @param strategy a strategy
     * @return the row
     */
    public Row row(Strategy strategy) {
      return rows().get(strategy.ordinal());
    }
  }

  /**
   * Builds a {@link Storm} run: seed 1 and 3 trials unless told otherwise. Mutable and not
   * thread-safe.
   */
  public static final class Builder extends AbstractBuilder<Builder, Storm> {
    Builder() {
      super(3, Storm::new);
    }
  }
}
