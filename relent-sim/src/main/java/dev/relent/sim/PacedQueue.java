package dev.relent.sim;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.ServerHint;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.sim.internal.VirtualTime;
import dev.relent.time.RandomSource;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Model 3, a paced queue under a quota: the worked example of a shared account budget, with
 * Relent's real {@link Pacer}, {@link ConcurrencyLimit} and executor on virtual time.
 *
 * <p>{@value #REQUESTS} requests are queued at t = 0. The account's limit is {@value
 * #LIMIT_PER_MINUTE} per minute, enforced at the server by a token bucket (2 tokens per second, at
 * most {@value #BUCKET} held): a request finding no token gets a 429 after {@value #REJECT_MILLIS}
 * ms with {@code Retry-After} the whole seconds until the next token (at least 1); an accepted one
 * answers 200 after U(1 s, 3 s), 2 s on average, with {@code RateLimit} headers (limit, remaining
 * tokens). The physical limit is 600 at 120/min = {@value #PHYSICAL_LIMIT_SECONDS} s. In the {@code
 * shared} scenario another caller on the same account sends a burst of 10 requests every 30 s
 * (20/min); in {@code alone} it does not.
 *
 * <p>Strategies (all retry 429s without a retry limit, within a one-hour deadline):
 *
 * <ul>
 *   <li>{@code burst}: send everything at once, then retry as the executor's default policy says
 *       (full jitter, at least the {@code Retry-After});
 *   <li>{@code fixed-90}: Relent's pacer at the operating target 90/min (one start every 667 ms);
 *   <li>{@code relent-known}: the pacer at the limit read from the {@code RateLimit} headers,
 *       120/min, and a response with no tokens left pauses it until the next one;
 *   <li>{@code relent-unknown}: the limit is unknown, so the pacer runs at a guess, 300/min, and
 *       only a 429's {@code Retry-After} pauses it for every request that shares it;
 *   <li>{@code aimd}: a reference adaptive client that is not Relent: additive increase of 1/min
 *       per success from 60/min, halving the rate on a 429 (at most once per second) and pausing
 *       for the {@code Retry-After}.
 * </ul>
 *
 * <p>The Relent strategies hold a {@link ConcurrencyLimit} of 8 slots (its default size) so that
 * only a few requests have reserved a start at any time and a pause reaches the rest; without it,
 * all 600 starts would be reserved at t = 0 and a pause would come too late for them.
 *
 * <p>Measured: completion time (the last success), 429s received, peak concurrency (our requests in
 * flight at once), attempts, and the requests that finally failed. Defaults: seed 1, 10 trials.
 * Immutable and thread-safe once built.
 */
public final class PacedQueue {
  /** The strategies, in the order of the table and the CSV. */
  public static final List<String> STRATEGIES =
      List.of("burst", "fixed-90", "relent-known", "relent-unknown", "aimd");

  /** The scenarios: this client alone, or sharing the account with another caller. */
  public static final List<String> SCENARIOS = List.of("alone", "shared");

  /** Requests in the queue. */
  public static final int REQUESTS = 600;

  /** The account's limit per minute. */
  public static final int LIMIT_PER_MINUTE = 120;

  /** Tokens the server's bucket holds at most. */
  public static final int BUCKET = 10;

  /** How long a 429 takes, in milliseconds. */
  public static final int REJECT_MILLIS = 50;

  /** 600 at 120/min, in seconds. */
  public static final int PHYSICAL_LIMIT_SECONDS = REQUESTS * 60 / LIMIT_PER_MINUTE;

  /** The width of one step of the progress chart, in seconds. */
  public static final int STEP_SECONDS = 5;

  static final int STEPS = 1000 / STEP_SECONDS;

  private static final long SECOND = 1_000_000_000L;
  private static final long TOKEN_NANOS = 60 * SECOND / LIMIT_PER_MINUTE;

  private final long seed;
  private final int trials;

  private PacedQueue(Builder b) {
    this.seed = b.seed;
    this.trials = b.trials;
  }

  /**
   * Returns a builder with the defaults: seed 1, 10 trials.
   *
   * @return a new builder, not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Runs every strategy in both scenarios.
   *
   * @return the means over the trials
   */
  public Result run() {
    List<Row> rows = new ArrayList<>();
    for (int scenario = 0; scenario < SCENARIOS.size(); scenario++) {
      for (int strategy = 0; strategy < STRATEGIES.size(); strategy++) {
        rows.add(cell(strategy, scenario == 1));
      }
    }
    return new Result(seed, trials, rows);
  }

  private Row cell(int strategy, boolean shared) {
    double time = 0;
    double throttled = 0;
    double peak = 0;
    double attempts = 0;
    double failed = 0;
    double other = 0;
    double[] done = new double[STEPS];
    double[] rejected = new double[STEPS];
    for (int t = 0; t < trials; t++) {
      Trial trial = trial(strategy, shared, Contention.trialSeed(seed, -2, t));
      time += trial.completionNanos() / 1e9;
      throttled += trial.throttled();
      peak += trial.peakConcurrency();
      attempts += trial.attempts();
      failed += trial.failed();
      other += trial.otherThrottled();
      for (int i = 0; i < STEPS; i++) {
        done[i] += trial.donePerStep()[i];
        rejected[i] += trial.throttledPerStep()[i];
      }
    }
    List<Double> progress = new ArrayList<>();
    List<Double> throttles = new ArrayList<>();
    double sumDone = 0;
    double sumRejected = 0;
    for (int i = 0; i < STEPS; i++) {
      sumDone += done[i] / trials;
      sumRejected += rejected[i] / trials;
      progress.add(sumDone);
      throttles.add(sumRejected);
    }
    return new Row(
        STRATEGIES.get(strategy),
        SCENARIOS.get(shared ? 1 : 0),
        time / trials,
        throttled / trials,
        peak / trials,
        attempts / trials,
        failed / trials,
        other / trials,
        progress,
        throttles);
  }

  /**
   * One trial's counts.
   *
   * @param succeeded our requests that succeeded
   * @param failed our requests that finally failed
   * @param attempts our attempts
   * @param throttled 429s we received
   * @param accepted our attempts the server accepted
   * @param otherAccepted the other caller's accepted requests
   * @param otherThrottled the other caller's requests refused with a 429
   * @param peakConcurrency our requests in flight at once, at most
   * @param completionNanos when the last of ours succeeded
   * @param donePerStep successes per {@value #STEP_SECONDS} s step
   * @param throttledPerStep 429s per step
   */
  record Trial(
      long succeeded,
      long failed,
      long attempts,
      long throttled,
      long accepted,
      long otherAccepted,
      long otherThrottled,
      long peakConcurrency,
      long completionNanos,
      long[] donePerStep,
      long[] throttledPerStep) {}

  /** The server: a token bucket, kept in exact nanoseconds of credit. */
  static final class Server {
    private final VirtualTime time;
    private final SplittableRandom rng;
    private long credit = BUCKET * TOKEN_NANOS;
    private long updated;

    Server(VirtualTime time, SplittableRandom rng) {
      this.time = time;
      this.rng = rng;
    }

    private void refill() {
      long now = time.read();
      credit = Math.min(BUCKET * TOKEN_NANOS, credit + (now - updated));
      updated = now;
    }

    /** Takes a token: the remaining whole tokens (&ge; 0), or minus the Retry-After seconds. */
    long take() {
      refill();
      if (credit >= TOKEN_NANOS) {
        credit -= TOKEN_NANOS;
        return credit / TOKEN_NANOS;
      }
      long missing = TOKEN_NANOS - credit;
      return -Math.max(1, (missing + SECOND - 1) / SECOND);
    }

    long latency() {
      return SECOND + rng.nextLong(2 * SECOND + 1);
    }
  }

  /** A response: the status and the headers that matter here. */
  record Response(int status, long retryAfterSeconds, long remaining) {}

  static Trial trial(int strategy, boolean shared, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    VirtualTime time = new VirtualTime();
    Server server = new Server(time, rng);
    // succeeded, failed, attempts, throttled, accepted, otherAccepted, inFlight, peak, completion,
    // otherThrottled
    long[] c = new long[10];
    long[] done = new long[STEPS];
    long[] throttled = new long[STEPS];
    if (shared) {
      for (long at = 0; at < 3600 * SECOND; at += 30 * SECOND) {
        time.at(
            at,
            () -> {
              // The other caller stops once our queue is done, so that the run ends.
              if (c[0] + c[1] < REQUESTS) {
                for (int i = 0; i < 10; i++) {
                  if (server.take() >= 0) {
                    c[5]++;
                  } else {
                    c[9]++;
                  }
                }
              }
            });
      }
    }
    // One attempt: reaches the server at once, answers after the latency or the 429 delay.
    Supplier<CompletableFuture<Response>> send =
        () -> {
          CompletableFuture<Response> reply = new CompletableFuture<>();
          c[2]++;
          c[6]++;
          c[7] = Math.max(c[7], c[6]);
          long taken = server.take();
          if (taken >= 0) {
            c[4]++;
            time.schedule(
                () -> {
                  c[6]--;
                  reply.complete(new Response(200, 0, taken));
                },
                server.latency());
          } else {
            c[3]++;
            throttled[step(time.read())]++;
            time.schedule(
                () -> {
                  c[6]--;
                  reply.complete(new Response(429, -taken, 0));
                },
                REJECT_MILLIS * 1_000_000L);
          }
          return reply;
        };
    Runnable succeeded =
        () -> {
          c[0]++;
          done[step(time.read())]++;
          c[8] = Math.max(c[8], time.read());
        };
    if (strategy == 4) {
      aimd(time, send, succeeded);
    } else {
      RelentExecutor<Response> executor = executor(strategy, time, seed);
      for (int i = 0; i < REQUESTS; i++) {
        time.at(
            0,
            () ->
                executor
                    .getAsync(ctx -> send.get())
                    .whenComplete(
                        (r, error) -> {
                          if (error == null) {
                            succeeded.run();
                          } else {
                            c[1]++;
                          }
                        }));
      }
    }
    time.run();
    return new Trial(c[0], c[1], c[2], c[3], c[4], c[5], c[9], c[7], c[8], done, throttled);
  }

  private static int step(long nanos) {
    return (int) Math.min(STEPS - 1, nanos / (STEP_SECONDS * SECOND));
  }

  static RelentExecutor<Response> executor(int strategy, VirtualTime time, long seed) {
    boolean readsHeaders = strategy == 2;
    RetryPolicy policy =
        RetryPolicy.builder()
            .withMaxRetries(Integer.MAX_VALUE)
            .withDeadline(Duration.ofHours(1))
            .withAttemptTimeout(Duration.ofSeconds(10))
            .build();
    RelentExecutor.Builder<Response> b =
        RelentExecutor.<Response>builder(policy)
            .retryIf(r -> r.status() == 429)
            .withHintExtractor(
                (r, failure) -> {
                  if (r == null) {
                    return null;
                  }
                  if (r.status() == 429) {
                    return ServerHint.rateLimited(
                        Duration.ofSeconds(r.retryAfterSeconds()),
                        "Retry-After: " + r.retryAfterSeconds());
                  }
                  if (readsHeaders && r.remaining() == 0) {
                    // No token left: wait for the next one before anyone starts again.
                    return ServerHint.rateLimited(
                        Duration.ofNanos(TOKEN_NANOS), "RateLimit: remaining=0");
                  }
                  return null;
                })
            .withTime(time.source(RandomSource.seeded(seed ^ 0x5DEECE66DL)));
    if (strategy != 0) {
      int perMinute = strategy == 1 ? 90 : strategy == 2 ? LIMIT_PER_MINUTE : 300;
      b.withPacer(Pacer.of(perMinute, Duration.ofMinutes(1)))
          .withConcurrencyLimit(ConcurrencyLimit.of(8));
    }
    return b.build();
  }

  /**
   * The AIMD reference client: one dispatcher that starts the head of the queue at the current
   * rate, re-queues a throttled request at the head, and adapts the rate. Not a Relent class.
   */
  private static void aimd(
      VirtualTime time, Supplier<CompletableFuture<Response>> send, Runnable succeeded) {
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    for (int i = 0; i < REQUESTS; i++) {
      queue.add(i);
    }
    // rate per minute, paused until, last decrease, dispatcher scheduled
    double[] rate = {60};
    long[] state = {0, Long.MIN_VALUE / 2, 0};
    Runnable[] dispatch = new Runnable[1];
    dispatch[0] =
        () -> {
          state[2] = 0;
          long now = time.read();
          if (queue.isEmpty()) {
            return;
          }
          if (now < state[0]) {
            state[2] = 1;
            time.at(state[0], dispatch[0]);
            return;
          }
          Integer request = queue.poll();
          send.get()
              .thenAccept(
                  r -> {
                    if (r.status() == 200) {
                      rate[0] += 1;
                      succeeded.run();
                      return;
                    }
                    long at = time.read();
                    if (at - state[1] >= SECOND) {
                      rate[0] = Math.max(6, rate[0] / 2);
                      state[1] = at;
                    }
                    state[0] = Math.max(state[0], at + r.retryAfterSeconds() * SECOND);
                    queue.addFirst(request);
                    if (state[2] == 0) {
                      state[2] = 1;
                      time.at(state[0], dispatch[0]);
                    }
                  });
          state[2] = 1;
          time.schedule(dispatch[0], (long) (60 * SECOND / rate[0]));
        };
    time.at(0, dispatch[0]);
  }

  /**
   * One strategy in one scenario: the means over the trials.
   *
   * @param strategy the strategy's name, one of {@link #STRATEGIES}
   * @param scenario {@code alone} or {@code shared}
   * @param timeSeconds when the last request succeeded
   * @param throttled 429s received
   * @param peakConcurrency our requests in flight at once, at most
   * @param attempts our attempts, {@value #REQUESTS} plus the retries
   * @param failed requests that finally failed
   * @param otherThrottled 429s the other caller received ({@code shared} scenario)
   * @param progress requests done by the end of each {@value #STEP_SECONDS} s step
   * @param throttledSoFar 429s received by the end of each step
   */
  public record Row(
      String strategy,
      String scenario,
      double timeSeconds,
      double throttled,
      double peakConcurrency,
      double attempts,
      double failed,
      double otherThrottled,
      List<Double> progress,
      List<Double> throttledSoFar) {
    /**
     * Copies the series.
     *
     * @throws NullPointerException if a list is null
     */
    public Row {
      progress = List.copyOf(progress);
      throttledSoFar = List.copyOf(throttledSoFar);
    }
  }

  /** The outcome of a run: one {@link Row} per strategy and scenario. Immutable. */
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
     * Returns the rows: scenario {@code alone} first, strategies in the order of {@link
     * #STRATEGIES}.
     *
     * @return the rows
     */
    public List<Row> rows() {
      return rows;
    }

    /**
     * Returns one row.
     *
     * @param strategy a strategy name
     * @param scenario a scenario name
     * @return the row
     * @throws IllegalArgumentException if there is no such row
     */
    public Row row(String strategy, String scenario) {
      for (Row r : rows) {
        if (r.strategy().equals(strategy) && r.scenario().equals(scenario)) {
          return r;
        }
      }
      throw new IllegalArgumentException("no row for " + strategy + " " + scenario);
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
     * Returns the trials per row.
     *
     * @return the number of trials
     */
    public int trials() {
      return trials;
    }

    @Override
    public String model() {
      return "queue";
    }

    @Override
    public String table() {
      return QueueReport.table(this);
    }

    @Override
    public String csv() {
      StringBuilder sb =
          new StringBuilder(
              "strategy,scenario,time_s,limit_s,throttled,peak_concurrency,attempts,failed,"
                  + "other_throttled\n");
      for (Row r : rows) {
        sb.append(r.strategy())
            .append(',')
            .append(r.scenario())
            .append(',')
            .append(Numbers.fixed(r.timeSeconds(), 2))
            .append(',')
            .append(PHYSICAL_LIMIT_SECONDS)
            .append(',')
            .append(Numbers.fixed(r.throttled(), 1))
            .append(',')
            .append(Numbers.fixed(r.peakConcurrency(), 1))
            .append(',')
            .append(Numbers.fixed(r.attempts(), 1))
            .append(',')
            .append(Numbers.fixed(r.failed(), 1))
            .append(',')
            .append(Numbers.fixed(r.otherThrottled(), 1))
            .append('\n');
      }
      return sb.toString();
    }

    @Override
    public String html() {
      return QueueReport.html(this);
    }
  }

  /** Builds a {@link PacedQueue} run. Mutable and not thread-safe. */
  public static final class Builder {
    private long seed = 1;
    private int trials = 10;

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
     * Sets the trials per strategy and scenario; default 10.
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
    public PacedQueue build() {
      return new PacedQueue(this);
    }
  }
}
