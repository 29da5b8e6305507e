package dev.relent.sim;

import static dev.relent.sim.Numbers.atMost;
import static dev.relent.sim.Numbers.decimals;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.RetryBudget;
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
 * <p>The {@link Strategy strategies}, base 5 ms, cap 2000 ms, {@code expo(n) = min(cap, base *
 * 2^n)} with the first retry at n = 1, are the study's four and none, on a primitive event heap,
 * and Relent's default policy run by the real {@link RelentExecutor} on virtual time, alone and
 * with a shared retry budget.
 *
 * <p>Deterministic: trial t at N clients uses a {@link SplittableRandom} seeded from (seed, N, t)
 * for the network and {@link RandomSource#seeded} for the jitter; every strategy sees the same
 * seeds. Cells run in parallel on the common pool, which changes no number.
 *
 * <p>The study strategies reproduce the raw numbers of the study's own public simulator, within 2 %
 * of its calls and 8 % of its completion time up to N = 190 ({@code ContentionReproductionTest},
 * docs/simulator.md). The only differences from it are in representation: whole nanoseconds instead
 * of float milliseconds, separate seeded streams for the network and the jitter, ties broken by
 * client number, and a reply folded with the client's next message into one event.
 *
 * <p>Defaults: seed 1, 100 trials, N = 10, 20, ... 190. Immutable and thread-safe once built.
 */
public final class Contention
    extends AbstractModel<Contention.Cell, Contention.Row, Contention.Result> {
  /** The study's base delay: 5 ms. */
  public static final Duration BASE = Duration.ofMillis(5);

  /** The study's cap: 2000 ms. */
  public static final Duration CAP = Duration.ofMillis(2000);

  static final double DELAY_MEAN_MS = 10;
  static final double DELAY_SD_MS = 2;

  static final Metric<Row> CALLS =
      Metric.number("calls", "calls", Row::calls, decimals(2), decimals(0));
  static final Metric<Row> TIME =
      Metric.number("time_ms", "time_ms", Row::timeMs, decimals(2), decimals(0));
  static final Metric<Row> GAVE_UP = Metric.tableOnly("gave up", Row::gaveUp, atMost(2));
  static final Metric<Row> STRATEGY = Metric.text("strategy", r -> r.strategy().label());

  /**
   * The model's metrics, in the order of the CSV (strategy, clients, calls, time_ms); the tables
   * show calls, time and the clients that gave up as grids, a line per N and a column per strategy.
   */
  static final List<Metric<Row>> METRICS =
      List.of(
          STRATEGY,
          Metric.csvOnly("clients", r -> String.valueOf(r.clients())),
          CALLS,
          TIME,
          GAVE_UP);

  /**
   * The strategies, in the order of the table and the CSV, which call them by their {@link #label()
   * labels}: {@code none}, {@code exponential}, {@code full}, {@code equal}, {@code decorrelated},
   * {@code relent-default}, {@code relent-budget}. The study's (none to decorrelated) call Relent's
   * {@link Backoff} as {@code delayNanos(n + 1, previous, draw)}: Relent numbers retries from 1
   * with window {@code base * 2^(retry-1)}, so retry {@code n + 1} has the study's window {@code
   * base * 2^n}.
   */
  public enum Strategy implements Legend {
    /** Sleep 0: retry at once. */
    NONE(null),
    /** {@link Jitter#NONE}: {@code expo(n)}. */
    EXPONENTIAL(Jitter.NONE),
    /** {@link Jitter#FULL}: {@code U(0, expo(n))}. */
    FULL(Jitter.FULL),
    /** {@link Jitter#EQUAL}: {@code expo(n)/2 + U(0, expo(n)/2)}. */
    EQUAL(Jitter.EQUAL),
    /**
     * {@link Jitter#DECORRELATED}: starts from {@code previous = base} and draws {@code U(base,
     * min(cap, 3 * previous))}, Relent's form with the jitter inside the cap; the study's {@code
     * min(cap, U(base, 3 * s))} differs only once {@code 3 * s} exceeds the cap.
     */
    DECORRELATED(Jitter.DECORRELATED),
    /**
     * The study's own decorrelated formula, not Relent's: {@code s = min(cap, U(base, 3 * s))},
     * starting from {@code s = base}; a draw above the cap becomes exactly the cap. Computed here,
     * beside Relent's {@link #DECORRELATED}.
     */
    AWS_DECORRELATED(null),
    /**
     * Relent's default policy run by the real executor on virtual time (base 500 ms, cap 30 s, full
     * jitter, at most 5 retries, 30 s deadline): a client may give up.
     */
    RELENT_DEFAULT(null),
    /**
     * The same with one {@link RetryBudget#ofDefaults()} shared by all the clients (10 % of first
     * attempts plus 10 retries per second over 10 s).
     */
    RELENT_BUDGET(null);

    private final Backoff backoff;

    Strategy(Jitter jitter) {
      this.backoff =
          jitter == null
              ? null
              : Backoff.builder().withBase(BASE).withCap(CAP).withJitter(jitter).build();
    }

    /** Returns whether this is one of the study's strategies, which run without an executor. */
    boolean study() {
      return compareTo(RELENT_DEFAULT) < 0;
    }
  }

  private final List<Integer> clients;

  private Contention(Builder b) {
    super(b);
    this.clients = IntStream.of(b.clients).boxed().toList();
  }

  /**
   * Returns a builder with the defaults: seed 1, 100 trials, N = 10, 20, ... 190.
   *
   * @return a new builder, not thread-safe
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Every strategy at every client count, strategy by strategy. */
  @Override
  List<Cell> cells() {
    List<Cell> cells = new ArrayList<>();
    for (Strategy s : Strategy.values()) {
      for (int n : clients) {
        cells.add(new Cell(s, n));
      }
    }
    return cells;
  }

  record Cell(Strategy strategy, int clients) {}

  @Override
  Row row(Cell cell) {
    Strategy strategy = cell.strategy();
    int n = cell.clients();
    Mean m =
        mean(
            n,
            seed ->
                (strategy.study()
                        ? studyTrial(strategy, n, seed)
                        : relentTrial(strategy == Strategy.RELENT_BUDGET, n, seed))
                    .sample());
    double[] f = m.figures();
    return new Row(strategy, n, f[0], f[1], f[2], f[3]);
  }

  @Override
  Result result(List<Row> rows) {
    return new Result(settings, clients, rows);
  }

  /** One trial's counts. */
  record Trial(long calls, long failures, long successes, long gaveUp, long completionNanos) {
    /** The figures of a {@link Row}: calls, time in ms, failures, clients that gave up. */
    Sample sample() {
      return new Sample(new double[] {calls, completionNanos / 1e6, failures, gaveUp});
    }
  }

  static long networkDelay(SplittableRandom rng) {
    return (long) (Math.abs(DELAY_MEAN_MS + DELAY_SD_MS * rng.nextGaussian()) * 1e6);
  }

  /**
   * A study strategy on a primitive event heap: two event kinds per call (READ and WRITE arriving
   * at the server), since a reply and the client's next message can be folded into one delay (the
   * client does nothing else meanwhile). The heap's times are this trial's own: no Relent class
   * reads a clock here, only the pure {@link Backoff#delayNanos}.
   */
  static Trial studyTrial(Strategy strategy, int n, long seed) {
    SplittableRandom net = new SplittableRandom(seed);
    RandomSource jitter = Simulation.jitter(seed);
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
      if (strategy != Strategy.NONE) {
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
   * @param strategy one of the study's, {@code none} to {@code decorrelated}
   * @param n the study's retry counter, &ge; 1
   * @param previousNanos the previous sleep ({@code base} before the first retry); used by
   *     decorrelated jitter only
   * @param draw a uniform draw in [0, 1]
   * @return the sleep in nanoseconds
   */
  static long studySleep(Strategy strategy, int n, long previousNanos, double draw) {
    if (strategy == Strategy.AWS_DECORRELATED) {
      long base = BASE.toNanos();
      long upper = Math.multiplyExact(3L, previousNanos);
      return Math.min(CAP.toNanos(), base + (long) (draw * (upper - base)));
    }
    Backoff backoff = strategy.backoff;
    return backoff == null ? 0 : backoff.delayNanos(n + 1, previousNanos, draw);
  }

  /** Relent's default policy, run by the real executor on virtual time. */
  static Trial relentTrial(boolean budget, int n, long seed) {
    SplittableRandom net = new SplittableRandom(seed);
    Simulation sim = new Simulation();
    RelentExecutor.Builder<Boolean> b =
        sim.<Boolean>executor(RetryPolicy.ofDefaults(), seed).retryIf(ok -> !ok);
    if (budget) {
      b.withRetryBudget(RetryBudget.ofDefaults());
    }
    RelentExecutor<Boolean> executor = b.build();
    long[] state = new long[6]; // version, calls, failures, successes, gaveUp, completion
    for (int i = 0; i < n; i++) {
      sim.at(
          0,
          () ->
              executor
                  .getAsync(
                      ctx -> {
                        CompletableFuture<Boolean> reply = new CompletableFuture<>();
                        // READ on its way; its answer and the WRITE; the WRITE's answer.
                        sim.after(
                            networkDelay(net),
                            () -> {
                              long read = state[0];
                              sim.after(
                                  networkDelay(net) + networkDelay(net),
                                  () -> {
                                    state[1]++;
                                    boolean ok = read == state[0];
                                    if (ok) {
                                      state[0]++;
                                    } else {
                                      state[2]++;
                                    }
                                    sim.answer(reply, ok, networkDelay(net));
                                  });
                            });
                        return reply;
                      })
                  .whenComplete(
                      (ok, error) -> {
                        if (error == null) {
                          state[3]++;
                          state[5] = Math.max(state[5], sim.now());
                        } else {
                          state[4]++;
                        }
                      }));
    }
    sim.run();
    return new Trial(state[1], state[2], state[3], state[4], state[5]);
  }

  /**
   * One line of the table: the means over the trials for one strategy and client count.
   *
   * @param strategy the strategy
   * @param clients N
   * @param calls mean WRITEs handled by the server
   * @param timeMs mean completion time: when the last successful client got its reply, in ms
   * @param failures mean failed WRITEs; {@code calls - failures} is the number of successes
   * @param gaveUp mean clients that gave up without a successful write (Relent's policies only)
   */
  public record Row(
      Strategy strategy,
      int clients,
      double calls,
      double timeMs,
      double failures,
      double gaveUp) {}

  /** The outcome of a run: one {@link Row} per strategy and client count. Immutable. */
  public static final class Result extends AbstractResult<Row, Result> {
    private final List<Integer> clients;

    Result(AbstractBuilder.Settings settings, List<Integer> clients, List<Row> rows) {
      super("contention", settings, rows, METRICS, ContentionReport::table, ContentionReport::html);
      this.clients = clients;
    }

    /**
     * Returns the row of one strategy and client count.
     *
     * @param strategy a strategy
     * @param clients N
     * @return the row
     * @throws IllegalArgumentException if {@code clients} was not run
     */
    public Row row(Strategy strategy, int clients) {
      int i = this.clients.indexOf(clients);
      if (i < 0) {
        throw new IllegalArgumentException(
            "no row for " + strategy.label() + " at " + clients + " clients");
      }
      return rows().get(strategy.ordinal() * this.clients.size() + i);
    }

    /**
     * Returns the client counts, ascending. The rows are strategy by strategy in the order of
     * {@link Strategy}, clients ascending.
     *
     * @return N values
     */
    public List<Integer> clients() {
      return clients;
    }
  }

  /**
   * Builds a {@link Contention} run: seed 1, 100 trials and N = 10, 20, ... 190 unless told
   * otherwise. Mutable and not thread-safe; {@link #build()} copies the settings.
   */
  public static final class Builder extends AbstractBuilder<Builder, Contention> {
    private int[] clients = IntStream.rangeClosed(1, 19).map(i -> i * 10).toArray();

    Builder() {
      super(100, Contention::new);
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
  }
}
