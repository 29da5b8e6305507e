package dev.relent.sim;

import static dev.relent.sim.Numbers.decimals;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.Scope;
import dev.relent.spi.PacerState;
import dev.relent.time.TimeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Model 4, the real limiters of {@code bench/limiters.sh}: {@code relent batch} as it runs there,
 * with relent-core's real executor, BRACKET pacers, registry of scopes and concurrency limit
 * configured as the batch configures them ({@link BatchClient}), on virtual time against models of
 * the bench's limiters ({@link Limiter}): nginx {@code limit_req} 10 r/s with burst 0 (a bare 429,
 * or {@code Retry-After: 1}) and {@code burst=20 nodelay}, HAProxy's sliding counter {@code
 * http_req_rate(10s)} over 100, and {@code bench/HeaderLimiter.java}'s fixed and moving windows
 * with their headers; and a fleet of processes sharing one schedule and one concurrency limit in a
 * simulated Redis ({@link SharedStore}).
 *
 * <p>What a run costs besides the limiter's schedule ({@link Costs}): the JVM's start before the
 * first request (each fleet process its own, four JVMs starting at once on two cores), its end
 * after the last answer, the loopback round trip of each attempt, {@code HeaderLimiter}'s service
 * time (one request at a time), and in the fleet Redis's round trips. The figure is the bench's:
 * the wall time from the launch to the exit of the last process, the 429s the limiter answered, and
 * their share of every request it saw.
 *
 * <p>Defaults: seed 1, 20 trials, every case, the default costs. Immutable and thread-safe once
 * built.
 */
public final class Limiters extends AbstractModel<Limiters.Case, Limiters.Row, Limiters.Result> {
  static final long SECOND = 1_000_000_000L;
  static final long MILLI = 1_000_000L;

  /** The epoch the limiters' wall clocks start near: 2026-01-01T00:00:00Z. */
  static final long EPOCH_MS = 1_767_225_600_000L;

  /** The cases of {@code bench/limiters.sh}, in its order. */
  public enum Case implements Legend {
    /** nginx limit_req 10 r/s, burst 0, a bare 429; 150 GETs. */
    NGINX_BURST0(1, 150, 4, 0),
    /** The same with {@code Retry-After: 1} on the 429. */
    NGINX_BURST0_RETRY_AFTER(1, 150, 4, 0),
    /** nginx limit_req 10 r/s {@code burst=20 nodelay}, a bare 429. */
    NGINX_BURST20(1, 150, 4, 0),
    /** nginx burst 0 with {@code --rate 570/min}. */
    NGINX_BURST0_RATE(1, 150, 4, 570),
    /** HAProxy {@code http_req_rate(10s)} over 100: 429 with {@code Retry-After: 1}. */
    HAPROXY_SLIDING(1, 150, 4, 0),
    /** HeaderLimiter fixed window 100 per 10 s, headers on every answer; 250 GETs. */
    WINDOW_FIXED(1, 250, 4, 0),
    /** HeaderLimiter moving window 10 per 1 s, headers on every answer. */
    WINDOW_MOVING(1, 150, 4, 0),
    /** 4 processes x 50 GETs sharing Redis, {@code --rate 570/min}, against nginx burst 0. */
    FLEET_NGINX_KNOWN(4, 50, 2, 570),
    /** The same fleet without {@code --rate}. */
    FLEET_NGINX_UNKNOWN(4, 50, 2, 0);

    private final int processes;
    private final int requests;
    private final int concurrency;
    private final int ratePerMinute;

    Case(int processes, int requests, int concurrency, int ratePerMinute) {
      this.processes = processes;
      this.requests = requests;
      this.concurrency = concurrency;
      this.ratePerMinute = ratePerMinute;
    }

    /**
     * Returns the case by the bench's name.
     *
     * @param label a name such as {@code nginx-burst0}
     * @return the case
     * @throws IllegalArgumentException if no case has that name
     */
    public static Case of(String label) {
      for (Case c : values()) {
        if (c.label().equals(label)) {
          return c;
        }
      }
      throw new IllegalArgumentException("no case named '" + label + "'");
    }

    /**
     * Returns the processes of the case: 4 for a fleet, else 1.
     *
     * @return the processes
     */
    public int processes() {
      return processes;
    }

    /**
     * Returns the GETs each process sends.
     *
     * @return 150, 250, or 50 in a fleet
     */
    public int requests() {
      return requests;
    }

    /**
     * Returns {@code --concurrency}: 4, or 2 in a fleet (one limit for the account).
     *
     * @return the concurrency
     */
    public int concurrency() {
      return concurrency;
    }

    /**
     * Returns {@code --rate} per minute, 0 when not given.
     *
     * @return the rate
     */
    public int ratePerMinute() {
      return ratePerMinute;
    }

    /** Whether the processes share their schedule in Redis ({@code --shared}). */
    boolean fleet() {
      return processes > 1;
    }

    /**
     * Returns the bench's minimum: the earliest moment the limiter lets the last request through,
     * the first passing at 0 ({@code bench/limiters.sh}'s {@code minimum}).
     *
     * @return seconds
     */
    public double minimumSeconds() {
      int n = processes * requests;
      switch (this) {
        case NGINX_BURST20:
          return (n - 1 - 20) / 10.0;
        case HAPROXY_SLIDING:
          return n * 10.0 / 100;
        case WINDOW_FIXED:
          return (Math.ceil(n / 100.0) - 1) * 10;
        case WINDOW_MOVING:
          return Math.ceil(n / 10.0) - 1;
        default:
          return (n - 1) / 10.0;
      }
    }

    /** A fresh limiter of the case; {@code epochMs} is its wall clock at virtual time 0. */
    Limiter limiter(long epochMs) {
      switch (this) {
        case NGINX_BURST0_RETRY_AFTER:
          return new Limiter.TokenBucket(10, 0, true);
        case NGINX_BURST20:
          return new Limiter.TokenBucket(10, 20, false);
        case HAPROXY_SLIDING:
          return new Limiter.SlidingCounter(100, 10_000);
        case WINDOW_FIXED:
          return new Limiter.HeaderWindow(false, 100, 10_000, epochMs);
        case WINDOW_MOVING:
          return new Limiter.HeaderWindow(true, 10, 1_000, epochMs);
        default:
          return new Limiter.TokenBucket(10, 0, false);
      }
    }

    /** Whether the limiter is {@code bench/HeaderLimiter.java}, a JVM serving one at a time. */
    boolean headerLimiter() {
      return this == WINDOW_FIXED || this == WINDOW_MOVING;
    }
  }

  /**
   * What a run costs besides the limiter's schedule, in nanoseconds, and how it is spread: each
   * cost is drawn per trial (per process, per attempt) uniformly between its low and high figure.
   *
   * @param startLow the JVM's start, from the launch until the workers take their first requests,
   *     at least
   * @param startHigh at most
   * @param warmLow the HTTP client's first send, from the workers' start: every attempt started
   *     before then (its start reserved by the pacers on time) leaves the process with it, at least
   * @param warmHigh at most
   * @param coldAnswers the answers to the attempts that left with the first send are handled by a
   *     JVM still cold: each after an extra wait drawn between 0 and this, so that they are not
   *     handled in the order they came
   * @param fleetStartLow the JVM's start of each process of a fleet (four JVMs starting at once),
   *     at least
   * @param fleetStartHigh at most
   * @param exit from the last answer to the process's exit (the summary, the JVM's end)
   * @param rttLow an attempt's loopback round trip, at least (half of it on the way there)
   * @param rttHigh at most
   * @param headerService {@code HeaderLimiter}'s time per request, served one at a time
   * @param redis one Redis round trip of a fleet process: each attempt waits {@value #REDIS_TRIPS}
   *     of them before it is sent (the ceiling's and the scopes' reservations, the slot), and a
   *     worker one between its requests
   */
  public record Costs(
      long startLow,
      long startHigh,
      long warmLow,
      long warmHigh,
      long coldAnswers,
      long fleetStartLow,
      long fleetStartHigh,
      long exit,
      long rttLow,
      long rttHigh,
      long headerService,
      long redis) {
    /** Redis round trips before each attempt of a fleet process. */
    public static final int REDIS_TRIPS = 4;

    /**
     * The costs measured on the bench's machine (docs/simulator.md): start 0.3 to 0.4 s, the
     * client's first send 0.35 to 0.45 s later, its answers handled up to 0.15 s late, a fleet
     * process's start 1 to 5 s, exit 0.35 s, round trip 1 to 2 ms, HeaderLimiter 12.5 ms (80 a
     * second), Redis 0.5 ms.
     */
    public static final Costs MEASURED =
        new Costs(
            300 * MILLI,
            400 * MILLI,
            350 * MILLI,
            450 * MILLI,
            150 * MILLI,
            1000 * MILLI,
            5000 * MILLI,
            350 * MILLI,
            1 * MILLI,
            2 * MILLI,
            12_500_000L,
            MILLI / 2);

    /**
     * Checks the figures.
     *
     * @throws IllegalArgumentException if one is negative or a low is above its high
     */
    public Costs {
      long[] all = {
        startLow,
        startHigh,
        warmLow,
        warmHigh,
        coldAnswers,
        fleetStartLow,
        fleetStartHigh,
        exit,
        rttLow,
        rttHigh,
        headerService,
        redis
      };
      for (long v : all) {
        if (v < 0) {
          throw new IllegalArgumentException("costs must be >= 0: " + Arrays.toString(all));
        }
      }
      if (startLow > startHigh
          || warmLow > warmHigh
          || fleetStartLow > fleetStartHigh
          || rttLow > rttHigh) {
        throw new IllegalArgumentException("a low cost is above its high: " + Arrays.toString(all));
      }
    }
  }

  /** The model's metrics, in the order of the table and the CSV. */
  static final List<Metric<Row>> METRICS =
      List.of(
          Metric.text("case", r -> r.scenario().label()),
          Metric.number("time_s", "time (s)", Row::timeSeconds, decimals(2), decimals(1)),
          Metric.number("mean_s", "mean (s)", Row::meanTimeSeconds, decimals(2), decimals(1)),
          Metric.number("sd_s", "sd (s)", Row::timeSdSeconds, decimals(2), decimals(1)),
          Metric.number(
              "minimum_s",
              "minimum (s)",
              r -> r.scenario().minimumSeconds(),
              decimals(1),
              decimals(1)),
          Metric.tableOnly(
              "ratio",
              r -> r.timeSeconds() / r.scenario().minimumSeconds(),
              v -> Numbers.fixed(v, 2) + "x"),
          Metric.number("n_429", "429s", Row::throttled, decimals(2), decimals(1)),
          Metric.number(
              "share", "429 share", Row::share, decimals(4), v -> Numbers.fixed(100 * v, 1) + " %"),
          Metric.number("failed", "failed", Row::failed, decimals(2), decimals(1)),
          Metric.number("first_s", "first (s)", Row::firstSeconds, decimals(2), decimals(2)));

  private final List<Case> cases;
  private final Costs costs;

  private Limiters(Builder b) {
    super(b);
    this.cases = List.copyOf(b.cases);
    this.costs = b.costs;
  }

  /**
   * Returns a builder with the defaults: seed 1, 20 trials, every case, {@link Costs#MEASURED}.
   *
   * @return a new builder, not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  List<Case> cells() {
    return cases;
  }

  @Override
  Row row(Case c) {
    int trials = settings.trials();
    double[][] f = new double[trials][];
    for (int t = 0; t < trials; t++) {
      f[t] = trial(c, costs, seed(settings.seed(), c.ordinal(), t)).figures();
    }
    return new Row(
        c,
        median(f, 0),
        mean(f, 0),
        Math.sqrt(Math.max(0, mean(f, 1) - mean(f, 0) * mean(f, 0))),
        median(f, 2),
        median(f, 3),
        mean(f, 4),
        mean(f, 5),
        mean(f, 6));
  }

  /** The mean of column {@code j}. */
  private static double mean(double[][] f, int j) {
    double sum = 0;
    for (double[] row : f) {
      sum += row[j];
    }
    return sum / f.length;
  }

  /** The median of column {@code j}, as the bench takes it (of an even count, the middle two). */
  static double median(double[][] f, int j) {
    double[] v = new double[f.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = f[i][j];
    }
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  @Override
  Result result(List<Row> rows) {
    return new Result(settings, rows, costs);
  }

  /**
   * One trial's counts and times.
   *
   * @param seconds the wall time from the launch to the last process's exit
   * @param accepted 200s the limiter answered
   * @param throttled 429s the limiter answered
   * @param failed requests that finally failed (their retries used up, or their deadline)
   * @param firstSeconds when the limiter saw the first request, from the launch
   * @param log every request the limiter decided, in order: its time (ns from the launch), its
   *     process, its status
   */
  record Trial(
      double seconds,
      long accepted,
      long throttled,
      long failed,
      double firstSeconds,
      List<long[]> log) {
    /** The figures of a {@link Row}: time, time squared, 429s, share, failed, attempts, first. */
    double[] figures() {
      long seen = accepted + throttled;
      return new double[] {
        seconds,
        seconds * seconds,
        throttled,
        seen == 0 ? 0 : (double) throttled / seen,
        failed,
        seen,
        firstSeconds
      };
    }
  }

  /**
   * The limiter as a server: one at a time when it has a service time ({@code HeaderLimiter}),
   * deciding each request when its turn comes; at once otherwise.
   */
  private static final class Server {
    private final Simulation sim;
    private final Limiter limiter;
    private final long service;
    private long busyUntil;
    private long accepted;
    private long throttled;
    private long first = -1;
    private final List<long[]> log = new ArrayList<>();

    Server(Simulation sim, Limiter limiter, long service) {
      this.sim = sim;
      this.limiter = limiter;
      this.service = service;
    }

    /** A request reaches the server now; {@code answered} gets its answer when it is sent. */
    void arrive(int process, java.util.function.Consumer<Limiter.Answer> answered) {
      long start = Math.max(sim.now(), busyUntil);
      busyUntil = start + service;
      sim.at(
          start,
          () -> {
            Limiter.Answer a = limiter.decide(sim.now());
            if (first < 0) {
              first = sim.now();
            }
            if (a.accepted()) {
              accepted++;
            } else {
              throttled++;
            }
            log.add(new long[] {sim.now(), process, a.status()});

            sim.after(service, () -> answered.accept(a));
          });
    }
  }

  /** One {@code relent batch} process: its executor, its queue, its workers. */
  private static final class Process {
    final int index;
    final int requests;
    final RelentExecutor<Limiter.Answer> executor;
    final List<Scope> scopes;
    int next;
    int workersLeft;
    long endedAt = -1;

    Process(int index, int requests, RelentExecutor<Limiter.Answer> executor, List<Scope> scopes) {
      this.index = index;
      this.requests = requests;
      this.executor = executor;
      this.scopes = scopes;
    }
  }

  static Trial trial(Case c, Costs costs, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    Simulation sim = new Simulation();
    Server server =
        new Server(
            sim,
            c.limiter(EPOCH_MS + rng.nextLong(1000)),
            c.headerLimiter() ? costs.headerService() : 0);
    RetryPolicy policy = BatchClient.policy();
    int port = 18600;
    Map<String, PacerState> redis = new HashMap<>();
    SharedStore.Count slots = new SharedStore.Count(c.concurrency());
    long[] failed = {0};
    long[] end = {0};
    List<Process> processes = new ArrayList<>();
    for (int k = 0; k < c.processes(); k++) {
      TimeSource time = sim.time(seed * 31 + k);
      Function<Scope, PacerState> states =
          c.fleet()
              ? scope ->
                  redis.computeIfAbsent(
                      scope.kind() + " " + scope.name(), n -> new SharedStore.Pacer(sim))
              : scope -> null;
      GuardRegistry registry = BatchClient.registry(c.ratePerMinute(), states, time);
      Pacer ceiling =
          BatchClient.ceiling(
              c.ratePerMinute(),
              c.fleet() ? redis.computeIfAbsent("ceiling", n -> new SharedStore.Pacer(sim)) : null,
              time);
      ConcurrencyLimit limit =
          c.fleet()
              ? new SharedStore.Slots(sim, slots, costs.redis())
              : ConcurrencyLimit.of(c.concurrency());
      RelentExecutor.Builder<Limiter.Answer> x =
          RelentExecutor.<Limiter.Answer>builder(policy)
              .withTime(time)
              .retryIf(a -> a.status() == 429)
              .withHintExtractor((a, failure) -> a == null ? null : BatchClient.hint(a))
              .withConcurrencyLimit(limit)
              .withScopes(registry)
              .withPauseTarget((a, failure, hint) -> a == null ? null : Scope.Kind.ENDPOINT);
      if (ceiling != null) {
        x.withPacer(ceiling);
      }
      String prefix = c.fleet() ? "/r/" : "/path/";
      Process p = new Process(k, c.requests(), x.build(), BatchClient.scopes(port, prefix));

      processes.add(p);
      long start =
          c.fleet()
              ? between(rng, costs.fleetStartLow(), costs.fleetStartHigh())
              : between(rng, costs.startLow(), costs.startHigh());
      long warmAt = start + between(rng, costs.warmLow(), costs.warmHigh());
      p.workersLeft = Math.min(c.concurrency(), c.requests());
      long redisTrips = c.fleet() ? Costs.REDIS_TRIPS * costs.redis() : 0;
      long gap = c.fleet() ? costs.redis() : 0;
      Runnable[] work = new Runnable[1];
      work[0] =
          () -> {
            if (p.next >= p.requests) {
              if (--p.workersLeft == 0) {
                p.endedAt = sim.now();
                end[0] = Math.max(end[0], sim.now() + costs.exit());
              }
              return;
            }
            p.next++;
            CompletableFuture<Limiter.Answer> call =
                p.executor.getAsync(
                    p.scopes,
                    ctx -> {
                      CompletableFuture<Limiter.Answer> reply = new CompletableFuture<>();
                      long rtt = between(rng, costs.rttLow(), costs.rttHigh());
                      // A cold client sends nothing before its first send is out, and handles the
                      // answers of those that left with it late, each as late as it happens to be.
                      boolean cold = sim.now() < warmAt;
                      long late = cold ? between(rng, 0, costs.coldAnswers()) : 0;
                      sim.at(
                          Math.max(sim.now(), warmAt) + redisTrips + rtt / 2,
                          () ->
                              server.arrive(
                                  p.index, a -> sim.answer(reply, a, rtt - rtt / 2 + late)));
                      return reply;
                    },
                    null);
            call.whenComplete(
                (a, error) -> {
                  if (error != null) {
                    failed[0]++;
                  }
                  sim.after(gap, work[0]);
                });
          };
      for (int w = 0; w < p.workersLeft; w++) {
        sim.at(start, work[0]);
      }
    }
    sim.run();
    return new Trial(
        end[0] / 1e9,
        server.accepted,
        server.throttled,
        failed[0],
        server.first / 1e9,
        List.copyOf(server.log));
  }

  private static long between(SplittableRandom rng, long low, long high) {
    return low == high ? low : low + rng.nextLong(high - low + 1);
  }

  /**
   * One case over its trials: medians where the bench takes medians, else means.
   *
   * @param scenario the case
   * @param timeSeconds the median wall time from the launch to the last exit, as the bench times it
   * @param meanTimeSeconds the mean of that time
   * @param timeSdSeconds its standard deviation
   * @param throttled the median of the 429s the limiter answered
   * @param share the median of the 429s' share of every request the limiter saw
   * @param failed the mean of the requests that finally failed (a run with one exits 4 or 5)
   * @param requestsSeen the mean of every request the limiter saw, retries included
   * @param firstSeconds the mean of when the limiter saw the first request, from the launch
   */
  public record Row(
      Case scenario,
      double timeSeconds,
      double meanTimeSeconds,
      double timeSdSeconds,
      double throttled,
      double share,
      double failed,
      double requestsSeen,
      double firstSeconds) {}

  /** The outcome of a run: one {@link Row} per case, in the order asked for. Immutable. */
  public static final class Result extends AbstractResult<Row, Result> {
    private final Costs costs;

    Result(AbstractBuilder.Settings settings, List<Row> rows, Costs costs) {
      super("limiters", settings, rows, METRICS, LimitersReport::table, LimitersReport::html);
      this.costs = costs;
    }

    /**
     * Returns the row of a case.
     *
     * @param c a case of the run
     * @return its row
     * @throws IllegalArgumentException if the run did not have the case
     */
    public Row row(Case c) {
      for (Row r : rows()) {
        if (r.scenario() == c) {
          return r;
        }
      }
      throw new IllegalArgumentException("the run has no case " + c.label());
    }

    /** "medians of 20 trials, seed 1": what the time and the 429s are. */
    String figuresOf() {
      return "time and 429s the medians of " + Numbers.trials(trials()) + ", seed " + seed();
    }

    /**
     * Returns the costs the run assumed.
     *
     * @return the costs
     */
    public Costs costs() {
      return costs;
    }

    /**
     * Returns the real runs beside the prediction, a line per case the run and the measurements
     * both have: the real median time and 429 share, the predicted ones, and the errors.
     *
     * @param measured the bench's medians by case ({@link Measured#parse})
     * @return the text table
     */
    public String compare(Map<String, Measured> measured) {
      return LimitersReport.compare(this, measured);
    }
  }

  /**
   * What the bench measured for one case: the medians of its runs ({@code results.tsv}'s seconds
   * and share, each column's median on its own, as the bench's {@code medians.tsv}).
   *
   * @param runs how many runs
   * @param seconds the median wall time
   * @param share the median 429 share
   * @param n429 the median 429 count
   */
  public record Measured(int runs, double seconds, double share, double n429) {
    /**
     * Reads the bench's {@code results.tsv} (a header line, then {@code case, run, seconds,
     * minimum, ratio, n_200, n_429, share, exit} per run) into the medians per case.
     *
     * @param tsv the file's text
     * @return the medians by case name, in the file's order
     * @throws IllegalArgumentException if a line is not such a run
     */
    public static Map<String, Measured> parse(String tsv) {
      Objects.requireNonNull(tsv, "tsv cannot be null");
      Map<String, List<double[]>> runs = new java.util.LinkedHashMap<>();
      String[] lines = tsv.split("\n");
      for (int i = 0; i < lines.length; i++) {
        String line = lines[i].strip();
        if (line.isEmpty() || (i == 0 && line.startsWith("case"))) {
          continue;
        }
        String[] f = line.split("\t");
        if (f.length < 9) {
          throw new IllegalArgumentException(
              "line " + (i + 1) + " is not a run of results.tsv (at least 9 columns): " + line);
        }
        try {
          runs.computeIfAbsent(f[0], k -> new ArrayList<>())
              .add(
                  new double[] {
                    Double.parseDouble(f[2]), Double.parseDouble(f[7]), Double.parseDouble(f[6])
                  });
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "line " + (i + 1) + " has a column that is not a number: " + line, e);
        }
      }
      Map<String, Measured> out = new java.util.LinkedHashMap<>();
      runs.forEach(
          (name, list) -> {
            double[][] f = list.toArray(new double[0][]);
            out.put(name, new Measured(f.length, median(f, 0), median(f, 1), median(f, 2)));
          });
      return out;
    }
  }

  /**
   * Builds a {@link Limiters} run: seed 1, 20 trials, every case, the measured costs unless told
   * otherwise. Mutable and not thread-safe.
   */
  public static final class Builder extends AbstractBuilder<Builder, Limiters> {
    private List<Case> cases = List.of(Case.values());
    private Costs costs = Costs.MEASURED;

    Builder() {
      super(20, Limiters::new);
    }

    /**
     * Sets the cases to run, in this order; default every case.
     *
     * @param cases at least one
     * @return this builder
     * @throws IllegalArgumentException if none is given
     */
    public Builder withCases(List<Case> cases) {
      if (cases.isEmpty()) {
        throw new IllegalArgumentException("give at least one case");
      }
      this.cases = List.copyOf(cases);
      return this;
    }

    /**
     * Sets the costs of a run besides the limiter's schedule; default {@link Costs#MEASURED}.
     *
     * @param costs the costs
     * @return this builder
     */
    public Builder withCosts(Costs costs) {
      this.costs = Objects.requireNonNull(costs, "costs cannot be null");
      return this;
    }
  }
}
