package dev.relent.sim;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.RetryBudget;
import dev.relent.sim.internal.EventHeap;
import dev.relent.sim.internal.VirtualTime;
import dev.relent.time.RandomSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * Model 1, contention: the simulation of Marc Brooker's "Exponential Backoff and Jitter" (AWS
 * Architecture Blog, 2015), driving Relent's real {@link Backoff}.
 *
 * <p>One database row holds an integer version. N clients each want exactly one successful
 * conditional write; all send a READ at t = 0. Every one-way message is delayed by an independent
 * {@code |Normal(10 ms, 2 ms)|}; the server answers at once and handles messages in arrival order.
 * A READ's answer is the version when the READ arrives; the client then sends WRITE(version read),
 * which succeeds iff the version is unchanged (and increments it). On failure the client's retry
 * counter n goes 0 → 1 → 2 ..., it sleeps {@code backoff(n)} and sends a new READ. Measured per
 * trial: <em>calls</em>, the WRITEs the server handled (successes + failures, at least N), and
 * <em>completion time</em>, when the last client receives its successful WRITE reply.
 *
 * <p>Strategies, base 5 ms, cap 2000 ms, {@code expo(n) = min(cap, base * 2^n)} with the first
 * retry at n = 1:
 *
 * <ul>
 *   <li>{@code none}: sleep 0;
 *   <li>{@code exponential}, {@code full}, {@code equal}, {@code decorrelated}: Relent's {@link
 *       Backoff} with base 5 ms, cap 2000 ms and {@link Jitter#NONE}, {@link Jitter#FULL}, {@link
 *       Jitter#EQUAL} or {@link Jitter#DECORRELATED}, called as {@code delayNanos(n + 1, previous,
 *       draw)}: Relent numbers retries from 1 with window {@code base * 2^(retry-1)}, so retry
 *       {@code n + 1} has the study's window {@code base * 2^n}. Decorrelated starts from {@code
 *       previous = base} and draws {@code U(base, min(cap, 3 * previous))}, Relent's form with the
 *       jitter inside the cap; the study's {@code min(cap, U(base, 3 * s))} differs only once
 *       {@code 3 * s} exceeds the cap;
 *   <li>{@code relent-default}: Relent's default policy run by the real {@link RelentExecutor} on
 *       virtual time (base 500 ms, cap 30 s, full jitter, at most 5 retries, 30 s deadline): a
 *       client may give up;
 *   <li>{@code relent-budget}: the same with one {@link RetryBudget#ofDefaults()} shared by all the
 *       clients (10 % of first attempts plus 10 retries per second over 10 s).
 * </ul>
 *
 * <p>Deterministic: trial t at N clients uses a {@link SplittableRandom} seeded from (seed, N, t)
 * for the network and {@link RandomSource#seeded} for the jitter; every strategy sees the same
 * seeds. Cells run in parallel on the common pool, which changes no number.
 *
 * <p>Defaults: seed 1, 100 trials, N = 10, 20, ... 190. Immutable and thread-safe once built.
 */
public final class Contention {
  /** The study's strategies and Relent's own, in the order of the table and the CSV. */
  public static final List<String> STRATEGIES =
      List.of(
          "none",
          "exponential",
          "full",
          "equal",
          "decorrelated",
          "relent-default",
          "relent-budget");

  /** The study's base delay: 5 ms. */
  public static final Duration BASE = Duration.ofMillis(5);

  /** The study's cap: 2000 ms. */
  public static final Duration CAP = Duration.ofMillis(2000);

  static final double DELAY_MEAN_MS = 10;
  static final double DELAY_SD_MS = 2;

  private static final Backoff[] STUDY_BACKOFFS = {
    null, study(Jitter.NONE), study(Jitter.FULL), study(Jitter.EQUAL), study(Jitter.DECORRELATED)
  };

  private final long seed;
  private final int trials;
  private final int[] clients;

  private Contention(Builder b) {
    this.seed = b.seed;
    this.trials = b.trials;
    this.clients = b.clients.clone();
  }

  private static Backoff study(Jitter jitter) {
    return Backoff.builder().withBase(BASE).withCap(CAP).withJitter(jitter).build();
  }

  /**
   * Returns a builder with the defaults: seed 1, 100 trials, N = 10, 20, ... 190.
   *
   * @return a new builder, not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Runs every strategy at every client count.
   *
   * @return the means over the trials
   */
  public Result run() {
    int cells = STRATEGIES.size() * clients.length;
    Row[] rows =
        IntStream.range(0, cells)
            .parallel()
            .mapToObj(i -> cell(i / clients.length, clients[i % clients.length]))
            .toArray(Row[]::new);
    return new Result(seed, trials, List.of(rows));
  }

  private Row cell(int strategy, int n) {
    long calls = 0;
    long failures = 0;
    long gaveUp = 0;
    double timeMs = 0;
    for (int t = 0; t < trials; t++) {
      long s = trialSeed(seed, n, t);
      Trial trial = strategy < 5 ? studyTrial(strategy, n, s) : relentTrial(strategy == 6, n, s);
      calls += trial.calls;
      failures += trial.failures;
      gaveUp += trial.gaveUp;
      timeMs += trial.completionNanos / 1e6;
    }
    return new Row(
        STRATEGIES.get(strategy),
        n,
        (double) calls / trials,
        timeMs / trials,
        (double) failures / trials,
        (double) gaveUp / trials);
  }

  /** The seed of trial {@code t} at {@code n} clients: a function of the three numbers only. */
  static long trialSeed(long seed, int n, int t) {
    return new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (n * 1_000_003L + t + 1))).nextLong();
  }

  /** One trial's counts. */
  record Trial(long calls, long failures, long successes, long gaveUp, long completionNanos) {}

  static long networkDelay(SplittableRandom rng) {
    return (long) (Math.abs(DELAY_MEAN_MS + DELAY_SD_MS * rng.nextGaussian()) * 1e6);
  }

  /**
   * A study strategy on a primitive event heap: two event kinds per call (READ and WRITE arriving
   * at the server), since a reply and the client's next message can be folded into one delay (the
   * client does nothing else meanwhile).
   */
  static Trial studyTrial(int strategy, int n, long seed) {
    SplittableRandom net = new SplittableRandom(seed);
    RandomSource jitter = RandomSource.seeded(seed ^ 0x5DEECE66DL);
    Backoff backoff = STUDY_BACKOFFS[strategy];
    long baseNanos = BASE.toNanos();
    int[] readVersion = new int[n];
    int[] retry = new int[n];
    long[] previous = new long[n];
    Arrays.fill(previous, baseNanos);
    EventHeap heap = new EventHeap();
    for (int i = 0; i < n; i++) {
      heap.push(networkDelay(net), i << 1);
    }
    int version = 0;
    long calls = 0;
    long failures = 0;
    long successes = 0;
    long completion = 0;
    while (!heap.isEmpty()) {
      long now = heap.peekTime();
      int event = heap.peekPayload();
      heap.pop();
      int client = event >>> 1;
      if ((event & 1) == 0) {
        // READ arrives: the reply travels back, and the client sends its WRITE at once.
        readVersion[client] = version;
        heap.push(now + networkDelay(net) + networkDelay(net), event | 1);
        continue;
      }
      calls++;
      if (readVersion[client] == version) {
        version++;
        successes++;
        completion = Math.max(completion, now + networkDelay(net));
        continue;
      }
      failures++;
      int r = ++retry[client];
      long sleep = 0;
      if (backoff != null) {
        sleep = studySleep(strategy, r, previous[client], jitter.nextDouble());
        previous[client] = sleep;
      }
      long reply = networkDelay(net);
      heap.push(now + reply + sleep + networkDelay(net), client << 1);
    }
    return new Trial(calls, failures, successes, 0, completion);
  }

  /**
   * The study's sleep before its retry {@code n} (1 for the first), from Relent's real backoff. The
   * study's window is {@code min(cap, base * 2^n)}; Relent's retry {@code r} has the window {@code
   * min(cap, base * 2^(r-1))}, so the study's retry n is Relent's retry n + 1.
   *
   * @param strategy 0 ({@code none}) to 4 ({@code decorrelated})
   * @param n the study's retry counter, &ge; 1
   * @param previousNanos the previous sleep ({@code base} before the first retry); used by
   *     decorrelated jitter only
   * @param draw a uniform draw in [0, 1]
   * @return the sleep in nanoseconds
   */
  static long studySleep(int strategy, int n, long previousNanos, double draw) {
    Backoff backoff = STUDY_BACKOFFS[strategy];
    return backoff == null ? 0 : backoff.delayNanos(n + 1, previousNanos, draw);
  }

  /** Relent's default policy, run by the real executor on virtual time. */
  static Trial relentTrial(boolean budget, int n, long seed) {
    SplittableRandom net = new SplittableRandom(seed);
    VirtualTime time = new VirtualTime();
    RelentExecutor.Builder<Boolean> b =
        RelentExecutor.<Boolean>builder(RetryPolicy.ofDefaults())
            .retryIf(ok -> !ok)
            .withTime(time.source(RandomSource.seeded(seed ^ 0x5DEECE66DL)));
    if (budget) {
      b.withRetryBudget(RetryBudget.ofDefaults());
    }
    RelentExecutor<Boolean> executor = b.build();
    long[] state = new long[6]; // version, calls, failures, successes, gaveUp, completion
    for (int i = 0; i < n; i++) {
      time.at(
          0,
          () ->
              executor
                  .getAsync(
                      ctx -> {
                        CompletableFuture<Boolean> reply = new CompletableFuture<>();
                        time.schedule(
                            () -> {
                              long read = state[0];
                              time.schedule(
                                  () -> {
                                    state[1]++;
                                    boolean ok = read == state[0];
                                    if (ok) {
                                      state[0]++;
                                    } else {
                                      state[2]++;
                                    }
                                    time.schedule(() -> reply.complete(ok), networkDelay(net));
                                  },
                                  networkDelay(net) + networkDelay(net));
                            },
                            networkDelay(net));
                        return reply;
                      })
                  .whenComplete(
                      (ok, error) -> {
                        if (error == null) {
                          state[3]++;
                          state[5] = Math.max(state[5], time.read());
                        } else {
                          state[4]++;
                        }
                      }));
    }
    time.run();
    return new Trial(state[1], state[2], state[3], state[4], state[5]);
  }

  /**
   * One line of the table: the means over the trials for one strategy and client count.
   *
   * @param strategy the strategy's name, one of {@link #STRATEGIES}
   * @param clients N
   * @param calls mean WRITEs handled by the server
   * @param timeMs mean completion time: when the last successful client got its reply, in ms
   * @param failures mean failed WRITEs; {@code calls - failures} is the number of successes
   * @param gaveUp mean clients that gave up without a successful write (Relent's policies only)
   */
  public record Row(
      String strategy, int clients, double calls, double timeMs, double failures, double gaveUp) {}

  /** The outcome of a run: one {@link Row} per strategy and client count. Immutable. */
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
     * Returns the rows, strategy by strategy in the order of {@link #STRATEGIES}, clients
     * ascending.
     *
     * @return the rows
     */
    public List<Row> rows() {
      return rows;
    }

    /**
     * Returns the row of one strategy and client count.
     *
     * @param strategy a strategy name
     * @param clients N
     * @return the row
     * @throws IllegalArgumentException if there is no such row
     */
    public Row row(String strategy, int clients) {
      for (Row r : rows) {
        if (r.strategy().equals(strategy) && r.clients() == clients) {
          return r;
        }
      }
      throw new IllegalArgumentException("no row for " + strategy + " at " + clients + " clients");
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
     * Returns the trials per cell.
     *
     * @return the number of trials
     */
    public int trials() {
      return trials;
    }

    /**
     * Returns the client counts, ascending.
     *
     * @return N values
     */
    public List<Integer> clients() {
      List<Integer> out = new ArrayList<>();
      for (Row r : rows) {
        if (r.strategy().equals(STRATEGIES.get(0))) {
          out.add(r.clients());
        }
      }
      return out;
    }

    @Override
    public String model() {
      return "contention";
    }

    @Override
    public String table() {
      return ContentionReport.table(this);
    }

    @Override
    public String csv() {
      StringBuilder sb = new StringBuilder("strategy,clients,calls,time_ms\n");
      for (Row r : rows) {
        sb.append(r.strategy())
            .append(',')
            .append(r.clients())
            .append(',')
            .append(Numbers.fixed(r.calls(), 2))
            .append(',')
            .append(Numbers.fixed(r.timeMs(), 2))
            .append('\n');
      }
      return sb.toString();
    }

    @Override
    public String html() {
      return ContentionReport.html(this);
    }
  }

  /**
   * Builds a {@link Contention} run. Mutable and not thread-safe; {@link #build()} copies the
   * settings.
   */
  public static final class Builder {
    private long seed = 1;
    private int trials = 100;
    private int[] clients = IntStream.rangeClosed(1, 19).map(i -> i * 10).toArray();

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
     * Sets the trials per strategy and client count; default 100.
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
     * Sets the client counts; default 10, 20, ... 190.
     *
     * @param counts at least one, each from 1 to 100 000, ascending without repeats
     * @return this builder
     * @throws NullPointerException if {@code counts} is null
     * @throws IllegalArgumentException if {@code counts} is empty, a count is out of range, or they
     *     are not strictly ascending
     */
    public Builder withClients(int... counts) {
      if (counts.length == 0) {
        throw new IllegalArgumentException("clients must not be empty");
      }
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] < 1 || counts[i] > 100_000) {
          throw new IllegalArgumentException(
              "clients must be between 1 and 100000: " + counts[i] + " clients");
        }
        if (i > 0 && counts[i] <= counts[i - 1]) {
          throw new IllegalArgumentException(
              "clients must be strictly ascending: " + counts[i - 1] + " then " + counts[i]);
        }
      }
      this.clients = counts.clone();
      return this;
    }

    /**
     * Returns the run with the current settings.
     *
     * @return a new run, immutable
     */
    public Contention build() {
      return new Contention(this);
    }
  }
}
