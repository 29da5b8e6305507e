package dev.relent.sim;

import static dev.relent.sim.Numbers.decimals;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.ServerHint;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
 * tokens). The physical limit is 600 at 120/min = {@value #PHYSICAL_LIMIT_SECONDS} s. In the {@link
 * Scenario#SHARED shared} scenario another caller on the same account sends a burst of 10 requests
 * every 30 s (20/min); {@link Scenario#ALONE alone} it does not.
 *
 * <p>Every {@link Strategy} retries 429s without a retry limit, within a one-hour deadline. The
 * Relent strategies hold a {@link ConcurrencyLimit} of 8 slots (its default size) so that only a
 * few requests have reserved a start at any time and a pause reaches the rest; without it, all 600
 * starts would be reserved at t = 0 and a pause would come too late for them.
 *
 * <p>Measured: completion time (the last success), 429s received, peak concurrency (our requests in
 * flight at once), attempts, and the requests that finally failed. Defaults: seed 1, 10 trials.
 * Immutable and thread-safe once built.
 */
public final class PacedQueue
    extends AbstractModel<PacedQueue.Cell, PacedQueue.Row, PacedQueue.Result> {
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

  /**
   * The model's metrics, in the order of the table and the CSV; the CSV holds the physical limit
   * where the table shows the time over it.
   */
  static final List<Metric<Row>> METRICS =
      List.of(
          Metric.text("strategy", r -> r.strategy().label()),
          Metric.text("scenario", r -> r.scenario().label()),
          Metric.number("time_s", "time (s)", Row::timeSeconds, decimals(2), decimals(1)),
          Metric.csvOnly("limit_s", r -> String.valueOf(r.scenario().limitSeconds())),
          Metric.tableOnly(
              "vs limit",
              r -> r.timeSeconds() / r.scenario().limitSeconds(),
              v -> Numbers.fixed(v, 2) + "×"),
          Metric.number("throttled", "429s", Row::throttled, decimals(1), decimals(1)),
          Metric.tableOnly(
              "429s / requests",
              r -> r.throttled() * 100 / REQUESTS,
              v -> Numbers.fixed(v, 1) + " %"),
          Metric.number(
              "peak_concurrency",
              "peak concurrency",
              Row::peakConcurrency,
              decimals(1),
              decimals(1)),
          Metric.number("attempts", "attempts", Row::attempts, decimals(1), decimals(1)),
          Metric.number("failed", "failed", Row::failed, decimals(1), decimals(1)),
          Metric.number(
              "other_throttled",
              "other caller's 429s",
              Row::otherThrottled,
              decimals(1),
              decimals(1)),
          Metric.csvOnly("other_requests", r -> decimals(1).apply(r.otherRequests())));

  /**
   * The strategies, in the order of the table and the CSV; the tables, the CSV and the charts call
   * them by their {@link #label() labels}: {@code burst}, {@code fixed-90}, {@code relent-known},
   * {@code relent-unknown}, {@code aimd}, {@code aws-adaptive}, {@code relent-cubic}, {@code
   * relent-aimd}, {@code relent-adaptive}.
   */
  public enum Strategy implements Legend {
    /**
     * Send everything at once, then retry as the executor's default policy says (full jitter, at
     * least the {@code Retry-After}).
     */
    BURST(0),
    /** Relent's pacer at the operating target 90/min (one start every 667 ms). */
    FIXED_90(90),
    /**
     * The pacer at the limit read from the {@code RateLimit} headers, 120/min, and a response with
     * no tokens left pauses it until the next one.
     */
    RELENT_KNOWN(LIMIT_PER_MINUTE),
    /**
     * The limit is unknown, so the pacer runs at a guess, 300/min, and only a 429's {@code
     * Retry-After} pauses it for every request that shares it.
     */
    RELENT_UNKNOWN(300),
    /**
     * A reference adaptive client that is not Relent: additive increase of 1/min per success from
     * 60/min, halving the rate on a 429 (at most once per second) and pausing for the {@code
     * Retry-After}.
     */
    AIMD(0),
    /**
     * A reference that is not Relent: the AWS SDKs' adaptive retry mode as botocore implements it,
     * with 8 workers. A client-side token bucket (fill rate = capacity = the allowed rate, at least
     * 0.5/s) is enabled by the first throttle; the send rate is measured per 0.5 s and smoothed
     * 0.8/0.2; CUBIC (beta 0.7, C 0.4) sets the allowed rate, at most twice the measured one. It
     * reads neither {@code Retry-After} nor the RateLimit headers; a throttled request goes back to
     * the head of the queue.
     */
    AWS_ADAPTIVE(0),
    /**
     * Relent's adaptive pacer ({@link Pacer.Congestion#CUBIC}), learning from 429s only (the
     * headers are not read); a 429's {@code Retry-After} pauses it.
     */
    RELENT_CUBIC(-1),
    /** The same with {@link Pacer.Congestion#AIMD}. */
    RELENT_AIMD(-1),
    /**
     * {@link Pacer#adaptive()} as it comes, reading the {@code RateLimit} headers too: the policy
     * ({@code 10;w=5}) as a quota that always holds, 9 left until a reset in 5 s, gives the rate
     * before any 429, and {@code remaining=0} pauses it for a token; the policy itself ({@link
     * ServerHint#withPolicy}) tells it of the other caller. The limit is never told.
     */
    RELENT_ADAPTIVE(-1);

    /** The pacer's rate per minute; 0 for none; -1 for an adaptive pacer without a ceiling. */
    private final int perMinute;

    Strategy(int perMinute) {
      this.perMinute = perMinute;
    }
  }

  /** Whether this client has the account to itself, and how strict the server is. */
  public enum Scenario {
    /** This client alone on the account. */
    ALONE(PHYSICAL_LIMIT_SECONDS),
    /**
     * Another caller on the same account sends a burst of 10 requests every 30 s, the first at t =
     * 0, each later one at a moment of its second drawn at random (its clock is not this client's):
     * 20 of the 120 per minute are its, so this client's physical limit is 600 at 100/min, 360 s.
     */
    SHARED(REQUESTS * 60 / (LIMIT_PER_MINUTE - 20)),
    /**
     * A strict limiter, as nginx's {@code limit_req} with burst 0: a bucket of one token (one
     * request every 500 ms, none saved up), every 429 with {@code Retry-After: 1}, and no
     * rate-limit headers. Alone on the account.
     */
    STRICT(PHYSICAL_LIMIT_SECONDS);

    private final int limitSeconds;

    Scenario(int limitSeconds) {
      this.limitSeconds = limitSeconds;
    }

    /**
     * Returns the physical limit: the least time in which this client's {@value #REQUESTS} requests
     * can succeed, in seconds.
     *
     * @return 300 alone and strict, 360 shared
     */
    public int limitSeconds() {
      return limitSeconds;
    }

    /**
     * Returns the name as the table and the CSV spell it.
     *
     * @return {@code alone} or {@code shared}
     */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private PacedQueue(Builder b) {
    super(b);
  }

  /**
   * Returns a builder with the defaults: seed 1, 10 trials.
   *
   * @return a new builder, not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Every strategy in both scenarios, {@code alone} first. */
  @Override
  List<Cell> cells() {
    List<Cell> cells = new ArrayList<>();
    for (Scenario scenario : Scenario.values()) {
      for (Strategy strategy : Strategy.values()) {
        cells.add(new Cell(strategy, scenario));
      }
    }
    return cells;
  }

  record Cell(Strategy strategy, Scenario scenario) {}

  @Override
  Row row(Cell cell) {
    Mean m = mean(-2, seed -> trial(cell.strategy(), cell.scenario(), seed).sample());
    double[] f = m.figures();
    List<Double> done = soFar(m, 0);
    List<Double> rejected = soFar(m, 1);
    return new Row(
        cell.strategy(), cell.scenario(), f[0], f[1], f[2], f[3], f[4], f[5], f[6], done, rejected);
  }

  @Override
  Result result(List<Row> rows) {
    return new Result(settings, rows);
  }

  /** A series of means per step as running totals: what happened by the end of each step. */
  private static List<Double> soFar(Mean m, int series) {
    double[] total = {0};
    return m.series(series, v -> total[0] += v);
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
      long[] throttledPerStep) {
    /** The figures of a {@link Row} in its order, and the successes and 429s per step. */
    Sample sample() {
      return new Sample(
          new double[] {
            completionNanos / 1e9,
            throttled,
            peakConcurrency,
            attempts,
            failed,
            otherThrottled,
            otherAccepted + otherThrottled
          },
          donePerStep,
          throttledPerStep);
    }
  }

  /**
   * The server: a token bucket, kept in exact nanoseconds of credit; {@value #BUCKET} tokens, or
   * one for the strict limiter.
   */
  static final class Server {
    private final Simulation sim;
    private final SplittableRandom rng;
    private final boolean strict;
    private final long full;
    private long credit;
    private long updated;

    Server(Simulation sim, SplittableRandom rng, boolean strict) {
      this.sim = sim;
      this.rng = rng;
      this.strict = strict;
      this.full = (strict ? 1 : BUCKET) * TOKEN_NANOS;
      this.credit = full;
    }

    private void refill() {
      long now = sim.now();
      credit = Math.min(full, credit + (now - updated));
      updated = now;
    }

    /**
     * Takes a token: the remaining whole tokens (&ge; 0), or minus the Retry-After seconds (always
     * 1 for the strict limiter).
     */
    long take() {
      refill();
      if (credit >= TOKEN_NANOS) {
        credit -= TOKEN_NANOS;
        return credit / TOKEN_NANOS;
      }
      long missing = TOKEN_NANOS - credit;
      return strict ? -1 : -Math.max(1, (missing + SECOND - 1) / SECOND);
    }

    /**
     * The {@code reset} of the RateLimit headers, right after {@link #take()}: the time until the
     * bucket is full again, when every request allowed in the window is available once more.
     */
    long resetNanos() {
      return full - credit;
    }

    /** Whether the server sends RateLimit headers; the strict limiter (nginx) sends none. */
    boolean headers() {
      return !strict;
    }

    long latency() {
      return SECOND + rng.nextLong(2 * SECOND + 1);
    }
  }

  /**
   * A response: the status and the headers that matter here; {@code remaining} and {@code
   * resetNanos} are -1 when the server sends no RateLimit headers.
   */
  record Response(int status, long retryAfterSeconds, long remaining, long resetNanos) {}

  static Trial trial(Strategy strategy, Scenario scenario, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    Simulation sim = new Simulation();
    Server server = new Server(sim, rng, scenario == Scenario.STRICT);
    // succeeded, failed, attempts, throttled, accepted, otherAccepted, inFlight, peak, completion,
    // otherThrottled
    long[] c = new long[10];
    long[] done = new long[STEPS];
    long[] throttled = new long[STEPS];
    if (scenario == Scenario.SHARED) {
      // The other caller's clock is not this client's: each burst after the first comes at a
      // moment of its second drawn at random, so that it does not fall at the same point of a
      // pacer's schedule every time (30 s is a whole number of 667 ms intervals).
      SplittableRandom phase = new SplittableRandom(seed * 31 + 7);
      for (long at = 0; at < 3600 * SECOND; at += 30 * SECOND) {
        sim.at(
            at == 0 ? 0 : at + phase.nextLong(SECOND),
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
          long reset = server.headers() ? server.resetNanos() : -1;
          if (taken >= 0) {
            c[4]++;
            long remaining = server.headers() ? taken : -1;
            sim.after(
                server.latency(),
                () -> {
                  c[6]--;
                  reply.complete(new Response(200, 0, remaining, reset));
                });
          } else {
            c[3]++;
            throttled[step(sim.now())]++;
            long remaining = server.headers() ? 0 : -1;
            sim.after(
                REJECT_MILLIS * 1_000_000L,
                () -> {
                  c[6]--;
                  reply.complete(new Response(429, -taken, remaining, reset));
                });
          }
          return reply;
        };
    Runnable succeeded =
        () -> {
          c[0]++;
          done[step(sim.now())]++;
          c[8] = Math.max(c[8], sim.now());
        };
    if (strategy == Strategy.AIMD) {
      aimd(sim, send, succeeded);
    } else if (strategy == Strategy.AWS_ADAPTIVE) {
      AwsAdaptive.run(sim, send, succeeded, REQUESTS, 8);
    } else {
      RelentExecutor<Response> executor = executor(strategy, sim, seed);
      for (int i = 0; i < REQUESTS; i++) {
        sim.at(
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
    sim.run();
    return new Trial(c[0], c[1], c[2], c[3], c[4], c[5], c[9], c[7], c[8], done, throttled);
  }

  private static int step(long nanos) {
    return (int) Math.min(STEPS - 1, nanos / (STEP_SECONDS * SECOND));
  }

  static RelentExecutor<Response> executor(Strategy strategy, Simulation sim, long seed) {
    boolean readsHeaders = strategy == Strategy.RELENT_KNOWN;
    boolean readsQuota = strategy == Strategy.RELENT_ADAPTIVE;
    RetryPolicy policy =
        RetryPolicy.builder()
            .withMaxRetries(Integer.MAX_VALUE)
            .withDeadline(Duration.ofHours(1))
            .withAttemptTimeout(Duration.ofSeconds(10))
            .build();
    RelentExecutor.Builder<Response> b =
        sim.<Response>executor(policy, seed)
            .retryIf(r -> r.status() == 429)
            .withHintExtractor(
                (r, failure) -> {
                  if (r == null) {
                    return null;
                  }
                  if (readsQuota && r.remaining() >= 0) {
                    // RateLimit-Policy: 10;w=5 — the bucket refills 10 in every 5 s, so whatever
                    // it holds, 9 more can start before 5 s from now and the tenth at 5 s: "9
                    // left until a reset in 5 s" always holds.
                    Duration window = Duration.ofNanos(BUCKET * TOKEN_NANOS);
                    long left = BUCKET - 1;
                    ServerHint hint;
                    if (r.status() == 429) {
                      hint =
                          ServerHint.rateLimited(
                                  Duration.ofSeconds(r.retryAfterSeconds()), "Retry-After")
                              .withQuota(left, window);
                    } else if (r.remaining() == 0) {
                      hint =
                          ServerHint.rateLimited(Duration.ofNanos(TOKEN_NANOS), "RateLimit")
                              .withQuota(left, window);
                    } else {
                      hint = ServerHint.quota(left, window, "RateLimit-Policy");
                    }
                    return hint.withPolicy(BUCKET, window);
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
                });
    if (strategy.perMinute > 0) {
      b.withPacer(Pacer.of(strategy.perMinute, Duration.ofMinutes(1)))
          .withConcurrencyLimit(ConcurrencyLimit.of(8));
    } else if (strategy.perMinute < 0) {
      Pacer pacer =
          switch (strategy) {
            case RELENT_CUBIC -> Pacer.builder().adaptive(Pacer.Congestion.CUBIC).build();
            case RELENT_AIMD -> Pacer.builder().adaptive(Pacer.Congestion.AIMD).build();
            default -> Pacer.adaptive();
          };
      b.withPacer(pacer).withConcurrencyLimit(ConcurrencyLimit.of(8));
    }
    return b.build();
  }

  /**
   * The AIMD reference client: one dispatcher that starts the head of the queue at the current
   * rate, re-queues a throttled request at the head, and adapts the rate. Not a Relent class.
   */
  private static void aimd(
      Simulation sim, Supplier<CompletableFuture<Response>> send, Runnable succeeded) {
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
          long now = sim.now();
          if (queue.isEmpty()) {
            return;
          }
          if (now < state[0]) {
            state[2] = 1;
            sim.at(state[0], dispatch[0]);
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
                    long at = sim.now();
                    if (at - state[1] >= SECOND) {
                      rate[0] = Math.max(6, rate[0] / 2);
                      state[1] = at;
                    }
                    state[0] = Math.max(state[0], at + r.retryAfterSeconds() * SECOND);
                    queue.addFirst(request);
                    if (state[2] == 0) {
                      state[2] = 1;
                      sim.at(state[0], dispatch[0]);
                    }
                  });
          state[2] = 1;
          sim.after((long) (60 * SECOND / rate[0]), dispatch[0]);
        };
    sim.at(0, dispatch[0]);
  }

  /**
   * One strategy in one scenario: the means over the trials.
   *
   * @param strategy the strategy
   * @param scenario alone on the account or sharing it
   * @param timeSeconds when the last request succeeded
   * @param throttled 429s received
   * @param peakConcurrency our requests in flight at once, at most
   * @param attempts our attempts, {@value #REQUESTS} plus the retries
   * @param failed requests that finally failed
   * @param otherThrottled 429s the other caller received ({@code shared} scenario)
   * @param otherRequests the other caller's requests ({@code shared} scenario)
   * @param progress requests done by the end of each {@value #STEP_SECONDS} s step
   * @param throttledSoFar 429s received by the end of each step
   */
  public record Row(
      Strategy strategy,
      Scenario scenario,
      double timeSeconds,
      double throttled,
      double peakConcurrency,
      double attempts,
      double failed,
      double otherThrottled,
      double otherRequests,
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

  /**
   * The outcome of a run: one {@link Row} per strategy and scenario, scenario {@code alone} first,
   * strategies in the order of {@link Strategy}. Immutable.
   */
  public static final class Result extends AbstractResult<Row, Result> {
    Result(AbstractBuilder.Settings settings, List<Row> rows) {
      super("queue", settings, rows, METRICS, QueueReport::table, QueueReport::html);
    }

    /**
     * Returns one row.
     *
     * @param strategy a strategy
     * @param scenario a scenario
     * @return the row
     */
    public Row row(Strategy strategy, Scenario scenario) {
      return rows().get(scenario.ordinal() * Strategy.values().length + strategy.ordinal());
    }
  }

  /**
   * Builds a {@link PacedQueue} run: seed 1 and 10 trials unless told otherwise. Mutable and not
   * thread-safe.
   */
  public static final class Builder extends AbstractBuilder<Builder, PacedQueue> {
    Builder() {
      super(10, PacedQueue::new);
    }
  }
}
