package dev.relent.sim;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentCounters;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.RetryBudget;
import dev.relent.sim.internal.VirtualTime;
import dev.relent.time.RandomSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

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
 * shared by all the clients of a trial, retrying every non-200 answer:
 *
 * <ul>
 *   <li>{@code naive}: 3 immediate retries (a 1 ns backoff);
 *   <li>{@code backoff}: Relent's default policy (5 retries, 30 s deadline, base 500 ms, cap 30 s)
 *       without jitter;
 *   <li>{@code full}: Relent's default policy, full jitter;
 *   <li>{@code full+budget}: plus {@link RetryBudget#ofDefaults()} (10 % of first attempts plus 10
 *       retries per second over 10 s);
 *   <li>{@code full+budget+breaker}: plus a {@link CircuitBreaker} with the defaults (50 % of the
 *       last 100 calls, at least 20, 3 probes) but open for {@value #BREAKER_OPEN_SECONDS} s
 *       instead of 30 s, on the order of the outage.
 * </ul>
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
public final class Storm {
  /** The strategies, in the order of the table and the CSV. */
  public static final List<String> STRATEGIES =
      List.of("naive", "backoff", "full", "full+budget", "full+budget+breaker");

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

  /** The width of one bin of the load chart, in milliseconds. */
  public static final int BIN_MILLIS = 250;

  /** The bins of the load chart: one minute. */
  static final int BINS = 60_000 / BIN_MILLIS;

  private static final long SECOND = 1_000_000_000L;
  private static final long NETWORK = NETWORK_MILLIS * 1_000_000L;

  private final long seed;
  private final int trials;

  private Storm(Builder b) {
    this.seed = b.seed;
    this.trials = b.trials;
  }

  /**
   * Returns a builder with the defaults: seed 1, 3 trials.
   *
   * @return a new builder, not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Runs every strategy.
   *
   * @return the means over the trials
   */
  public Result run() {
    Row[] rows =
        IntStream.range(0, STRATEGIES.size())
            .parallel()
            .mapToObj(this::strategy)
            .toArray(Row[]::new);
    return new Result(seed, trials, List.of(rows));
  }

  private Row strategy(int strategy) {
    double amplification = 0;
    double extra = 0;
    double recovery = 0;
    double failed = 0;
    double attempts = 0;
    double requests = 0;
    double[] load = new double[BINS];
    for (int t = 0; t < trials; t++) {
      Trial trial = trial(strategy, Contention.trialSeed(seed, -1, t));
      amplification += trial.peakLoadPerSecond() / (double) RATE_PER_SECOND;
      extra += trial.counters().retries();
      recovery += trial.recoverySeconds();
      failed += trial.failed();
      attempts += trial.attempts();
      requests += trial.requests();
      for (int i = 0; i < BINS; i++) {
        load[i] += trial.attemptsPerBin()[i];
      }
    }
    List<Double> series = new ArrayList<>(BINS);
    for (double v : load) {
      // Per second, so that the chart's unit does not depend on the bin width.
      series.add(v / trials * 1000.0 / BIN_MILLIS);
    }
    return new Row(
        STRATEGIES.get(strategy),
        amplification / trials,
        extra / trials,
        recovery / trials,
        failed / trials,
        attempts / trials,
        requests / trials,
        series);
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
      int recoverySeconds) {}

  static RelentExecutor<Integer> executor(int strategy, VirtualTime time, long seed) {
    RetryPolicy.Builder policy = RetryPolicy.builder();
    switch (strategy) {
      case 0:
        Duration ns = Duration.ofNanos(1);
        policy
            .withMaxRetries(3)
            .withBackoff(
                Backoff.builder().withBase(ns).withCap(ns).withJitter(Jitter.NONE).build());
        break;
      case 1:
        policy.withBackoff(Backoff.builder().withJitter(Jitter.NONE).build());
        break;
      default:
        break;
    }
    RelentExecutor.Builder<Integer> b =
        RelentExecutor.<Integer>builder(policy.build())
            .retryIf(s -> s != 200)
            .withTime(time.source(RandomSource.seeded(seed ^ 0x5DEECE66DL)));
    if (strategy >= 3) {
      b.withRetryBudget(RetryBudget.ofDefaults());
    }
    if (strategy >= 4) {
      b.withCircuitBreaker(
          CircuitBreaker.builder()
              .withOpenDuration(Duration.ofSeconds(BREAKER_OPEN_SECONDS))
              .build());
    }
    return b.build();
  }

  static Trial trial(int strategy, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    VirtualTime time = new VirtualTime();
    RelentExecutor<Integer> executor = executor(strategy, time, seed);
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
            time.at(arrivals.get(next[0]), arrive[0]);
          }
          c[0]++;
          int second = (int) (arrival / SECOND);
          arrivedPerSecond[second]++;
          executor
              .getAsync(
                  ctx -> {
                    CompletableFuture<Integer> reply = new CompletableFuture<>();
                    time.schedule(
                        () -> {
                          long now = time.read();
                          c[3]++;
                          int bin = (int) Math.min(BINS - 1, now / (BIN_MILLIS * 1_000_000L));
                          bins[bin]++;
                          perSecond[(int) Math.min(seconds - 1, now / SECOND)]++;
                          if (now >= stallStart && now < stallEnd) {
                            c[6]++;
                            time.schedule(() -> reply.complete(503), NETWORK);
                          } else if (c[7] >= MAX_IN_FLIGHT) {
                            c[5]++;
                            time.schedule(() -> reply.complete(503), NETWORK);
                          } else {
                            c[7]++;
                            long service = 40_000_000L + rng.nextLong(20_000_001L);
                            time.schedule(
                                () -> {
                                  c[7]--;
                                  c[4]++;
                                  time.schedule(() -> reply.complete(200), NETWORK);
                                },
                                service);
                          }
                        },
                        NETWORK);
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
      time.at(arrivals.get(0), arrive[0]);
    }
    time.run();
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
   * @param strategy the strategy's name, one of {@link #STRATEGIES}
   * @param amplification the peak offered load per second over the normal load
   * @param extraCalls retries: attempts beyond the first of each request that reached the service
   * @param recoverySeconds seconds from the end of the stall until load and success rate are back
   *     to normal; {@value #ARRIVALS_SECONDS} - {@value #STALL_END_SECONDS} if they never are
   * @param failed requests that finally failed
   * @param attempts attempts that reached the service
   * @param requests requests that arrived
   * @param loadPerSecond the offered load in attempts per second, one value per {@value
   *     #BIN_MILLIS} ms bin from t = 0
   */
  public record Row(
      String strategy,
      double amplification,
      double extraCalls,
      double recoverySeconds,
      double failed,
      double attempts,
      double requests,
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

  /** The outcome of a run: one {@link Row} per strategy. Immutable. */
  public static final class Result implements ModelResult {
    private final long seed;
    private final int trials;
    private final List<Row> rows;

    Result(long seed, int trials, List<Row> rows) {
      this.seed = seed;
      this.trials = trials;
      this.rows = List.copyOf(rows);
    }

    /**
     * Returns the rows in the order of {@link #STRATEGIES}.
     *
     * @return the rows
     */
    public List<Row> rows() {
      return rows;
    }

    /**
     * Returns one strategy's row.
     *
     * @param strategy a strategy name
     * @return the row
     * @throws IllegalArgumentException if there is no such strategy
     */
    public Row row(String strategy) {
      for (Row r : rows) {
        if (r.strategy().equals(strategy)) {
          return r;
        }
      }
      throw new IllegalArgumentException("no row for " + strategy);
    }

    /**
     * Returns the seed of the run.
     *
     * @return the seed
     */
    public long seed() {
      return seed;
    }

    /**
     * Returns the trials per strategy.
     *
     * @return the number of trials
     */
    public int trials() {
      return trials;
    }

    @Override
    public String model() {
      return "storm";
    }

    @Override
    public String table() {
      return StormReport.table(this);
    }

    @Override
    public String csv() {
      StringBuilder sb =
          new StringBuilder(
              "strategy,amplification,extra_calls,recovery_s,failed,attempts,requests\n");
      for (Row r : rows) {
        sb.append(r.strategy())
            .append(',')
            .append(Numbers.fixed(r.amplification(), 3))
            .append(',')
            .append(Numbers.fixed(r.extraCalls(), 1))
            .append(',')
            .append(Numbers.fixed(r.recoverySeconds(), 2))
            .append(',')
            .append(Numbers.fixed(r.failed(), 1))
            .append(',')
            .append(Numbers.fixed(r.attempts(), 1))
            .append(',')
            .append(Numbers.fixed(r.requests(), 1))
            .append('\n');
      }
      return sb.toString();
    }

    @Override
    public String html() {
      return StormReport.html(this);
    }
  }

  /** Builds a {@link Storm} run. Mutable and not thread-safe. */
  public static final class Builder {
    private long seed = 1;
    private int trials = 3;

    Builder() {}

    /**
     * Sets the seed; default 1.
     *
     * @param seed any value
     * @return this builder
     */
    public Builder withSeed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Sets the trials per strategy; default 3.
     *
     * @param trials from 1 to 100 000
     * @return this builder
     * @throws IllegalArgumentException if {@code trials} is outside [1, 100000]
     */
    public Builder withTrials(int trials) {
      this.trials = Numbers.requireTrials(trials);
      return this;
    }

    /**
     * Returns the run with the current settings.
     *
     * @return a new run, immutable
     */
    public Storm build() {
      return new Storm(this);
    }
  }
}
