package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The parts every model shares: the event loop, the trials, the metrics and the writers. */
class SkeletonTest {
  private record Line(String name, double value, double other) {}

  private static final List<Metric<Line>> METRICS =
      List.of(
          Metric.text("name", Line::name),
          Metric.number(
              "value_ms", "value (ms)", Line::value, Numbers.decimals(2), Numbers.atMost(1)),
          Metric.csvOnly("fixed", l -> "7"),
          Metric.tableOnly("other", Line::other, v -> Numbers.fixed(v, 0) + "×"));

  private static final List<Line> LINES =
      List.of(new Line("a", 1.25, 2), new Line("longer", 12.0, 0.4));

  @Test
  void theSimulationRunsTasksInTimeOrderAndMovesTheClockToEach() {
    Simulation sim = new Simulation();
    List<String> log = new ArrayList<>();
    sim.after(30, () -> log.add("c@" + sim.now()));
    sim.after(10, () -> log.add("a@" + sim.now()));
    sim.after(
        20,
        () -> {
          log.add("b@" + sim.now());
          sim.after(25, () -> log.add("d@" + sim.now()));
        });
    sim.run();
    assertThat(log).containsExactly("a@10", "b@20", "c@30", "d@45");
    assertThat(sim.now()).isEqualTo(45);
  }

  @Test
  void tasksDueTogetherRunInTheOrderTheyWereScheduledAndThePastMeansNow() {
    Simulation sim = new Simulation();
    List<String> log = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int n = i;
      sim.after(5, () -> log.add(String.valueOf(n)));
    }
    sim.at(
        100,
        () -> {
          sim.at(50, () -> log.add("past@" + sim.now()));
          sim.after(-7, () -> log.add("negative@" + sim.now()));
        });
    sim.run();
    assertThat(log).containsExactly("0", "1", "2", "3", "4", "past@100", "negative@100");
  }

  @Test
  void theExecutorWaitsOnTheSimulationsTimeAndACancelledTimerNeitherRunsNorMovesIt() {
    List<String> log = new ArrayList<>();
    // 30 ms attempt timeout: an answer after 40 ms comes too late, one after 10 ms in time.
    for (long answerMillis : new long[] {40, 10}) {
      Simulation sim = new Simulation();
      RelentExecutor<Integer> executor =
          sim.<Integer>executor(
                  RetryPolicy.builder()
                      .withMaxRetries(0)
                      .withAttemptTimeout(Duration.ofMillis(30))
                      .build(),
                  1)
              .build();
      sim.at(
          0,
          () ->
              executor
                  .getAsync(
                      ctx -> {
                        CompletableFuture<Integer> reply = new CompletableFuture<>();
                        sim.answer(reply, 200, answerMillis * 1_000_000L);
                        return reply;
                      })
                  .whenComplete(
                      (v, e) -> log.add((e == null ? "ok" : "timeout") + "@" + sim.now())));
      sim.run();
      log.add("end@" + sim.now());
    }
    // The late answer still arrives at 40 ms; the timer of the answer in time was cancelled.
    assertThat(log)
        .containsExactly("timeout@30000000", "end@40000000", "ok@10000000", "end@10000000");
  }

  /** A model of 200 cells whose row is twice the cell; 4 trials per cell. */
  private static final class Tiny extends AbstractModel<Integer, Double, List<Double>> {
    private Tiny(TinyBuilder b) {
      super(b);
    }

    @Override
    List<Integer> cells() {
      return java.util.stream.IntStream.range(0, 200).boxed().toList();
    }

    @Override
    Double row(Integer cell) {
      return cell * 2.0;
    }

    @Override
    List<Double> result(List<Double> rows) {
      return rows;
    }
  }

  private static final class TinyBuilder extends AbstractBuilder<TinyBuilder, Tiny> {
    TinyBuilder() {
      super(4, Tiny::new);
    }
  }

  @Test
  void trialSeedsDependOnTheSeedTheStreamAndTheTrialOnly() {
    assertThat(AbstractModel.seed(1, 10, 0)).isEqualTo(AbstractModel.seed(1, 10, 0));
    assertThat(AbstractModel.seed(1, 10, 0))
        .isNotEqualTo(AbstractModel.seed(2, 10, 0))
        .isNotEqualTo(AbstractModel.seed(1, 20, 0))
        .isNotEqualTo(AbstractModel.seed(1, 10, 1));
  }

  @Test
  void meansSumTheTrialsInOrderAndDivideByTheirNumber() {
    Tiny model = new TinyBuilder().withSeed(9).build();
    List<Long> seeds = new ArrayList<>();
    AbstractModel.Mean m =
        model.mean(
            3,
            seed -> {
              long t = seeds.size();
              seeds.add(seed);
              return new AbstractModel.Sample(
                  new double[] {t, 0.1}, new long[] {t, 2}, new long[] {1});
            });
    assertThat(seeds)
        .containsExactly(
            AbstractModel.seed(9, 3, 0),
            AbstractModel.seed(9, 3, 1),
            AbstractModel.seed(9, 3, 2),
            AbstractModel.seed(9, 3, 3));
    assertThat(m.figures()[0]).isEqualTo(1.5);
    // 0.1 + 0.1 + 0.1 + 0.1 in that order, then / 4: not 0.1 exactly, and that is the point.
    assertThat(m.figures()[1]).isEqualTo((0.1 + 0.1 + 0.1 + 0.1) / 4);
    assertThat(m.series(0, v -> v)).containsExactly(1.5, 2.0);
    assertThat(m.series(1, v -> v * 10)).containsExactly(10.0);
  }

  @Test
  void cellsKeepTheirOrderWhenRunInParallel() {
    List<Double> rows = new TinyBuilder().build().run();
    assertThat(rows).hasSize(200);
    for (int i = 0; i < rows.size(); i++) {
      assertThat(rows.get(i)).isEqualTo(i * 2.0);
    }
  }

  @Test
  void theCsvHasTheMetricsNamesAndCsvFormats() {
    assertThat(Table.csv(METRICS, LINES))
        .isEqualTo("name,value_ms,fixed\n" + "a,1.25,7\n" + "longer,12.00,7\n");
  }

  @Test
  void theTextTableAlignsTheFirstColumnLeftAndTheOthersRight() {
    assertThat(Table.of(METRICS, LINES).text())
        .isEqualTo(
            "name    value (ms)  other\n"
                + "a              1.3     2×\n"
                + "longer          12     0×\n");
  }

  @Test
  void thePivotHasALinePerSettingAndAColumnPerStrategy() {
    List<Contention.Strategy> strategies =
        List.of(Contention.Strategy.NONE, Contention.Strategy.RELENT_BUDGET);
    Table pivot =
        Table.pivot(
            "clients",
            List.of(10, 200),
            strategies,
            (n, s) -> new Line(s.label(), n * 1.5, 0),
            METRICS.get(1));
    assertThat(pivot.text())
        .isEqualTo(
            "clients  none  relent-budget\n"
                + "10         15             15\n"
                + "200       300            300\n");
    assertThat(pivot.header()).containsExactly("clients", "none", "relent-budget");
    assertThat(pivot.rows())
        .containsExactly(List.of("10", "15", "15"), List.of("200", "300", "300"));
  }

  @Test
  void numbersUseADotAndNeverANegativeZero() {
    assertThat(Numbers.fixed(-0.001, 2)).isEqualTo("0.00");
    assertThat(Numbers.fixed(-0.0, 1)).isEqualTo("0.0");
    assertThat(Numbers.fixed(12.345, 2)).isEqualTo("12.35");
    assertThat(Numbers.fixed(-1.5, 0)).isEqualTo("-2");
    assertThat(Numbers.trim(12.50, 2)).isEqualTo("12.5");
    assertThat(Numbers.trim(-0.001, 2)).isEqualTo("0");
    assertThat(Numbers.trials(1)).isEqualTo("1 trial");
    assertThat(Numbers.trials(3)).isEqualTo("3 trials");
  }

  @Test
  void eventHeapPopsInTheSameOrderAsAPriorityQueue() {
    SplittableRandom random = new SplittableRandom(7);
    for (int round = 0; round < 200; round++) {
      EventHeap heap = new EventHeap();
      PriorityQueue<long[]> reference =
          new PriorityQueue<>(
              (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
      int ops = 1 + random.nextInt(500);
      for (int i = 0; i < ops; i++) {
        if (reference.isEmpty() || random.nextInt(3) > 0) {
          long t = random.nextLong(50);
          int p = random.nextInt(1000);
          heap.push(t, p);
          reference.add(new long[] {t, p});
        } else {
          long[] expected = reference.poll();
          assertThat(new long[] {heap.peekTime(), heap.peekPayload()}).containsExactly(expected);
          heap.pop();
        }
      }
      while (!reference.isEmpty()) {
        long[] expected = reference.poll();
        assertThat(new long[] {heap.peekTime(), heap.peekPayload()}).containsExactly(expected);
        heap.pop();
      }
      assertThat(heap.isEmpty()).isTrue();
    }
  }
}
