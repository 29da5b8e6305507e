package dev.relent.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;
import java.util.function.LongFunction;

/**
 * The skeleton every model runs on. A model is a list of cells (a strategy, with a client count or
 * a scenario in some models); a cell runs the trials, each on its own seed, and its row holds the
 * mean of what each trial measured; the rows make the result.
 *
 * <p>Determinism: trial {@code t} of a cell gets a seed that is a function of (seed, stream, t)
 * only, where the stream tells the models and the client counts apart; the trials of a cell run in
 * order on one thread and their figures are summed in that order. Cells run in parallel on the
 * common pool, which changes no number, only the wall time. Immutable and thread-safe.
 *
 * @param <C> a cell: what one row is about
 * @param <R> the model's row
 * @param <T> the model's result
 */
abstract class AbstractModel<C, R, T> {
  final AbstractBuilder.Settings settings;

  AbstractModel(AbstractBuilder<?, ?> builder) {
    this.settings = builder.settings();
  }

  /**
   * Runs every cell of the model.
   *
   * @return the means over the trials, a row per cell
   */
  public T run() {
    return result(cells().parallelStream().map(this::row).toList());
  }

  /** The cells, in the order of the rows. */
  abstract List<C> cells();

  /** Runs the trials of one cell, with {@link #mean}, and returns its row. */
  abstract R row(C cell);

  /** The result of the rows. */
  abstract T result(List<R> rows);

  /** The seed of trial {@code t} in the given stream: a function of the three numbers only. */
  static long seed(long seed, int stream, int t) {
    return new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (stream * 1_000_003L + t + 1)))
        .nextLong();
  }

  /**
   * Runs the trials of a cell in order and returns the means of their samples.
   *
   * @param stream what tells this cell's seeds apart from other models' and client counts'
   * @param trial runs a trial on the given seed and returns what it measured
   */
  Mean mean(int stream, LongFunction<Sample> trial) {
    int trials = settings.trials();
    double[] figures = null;
    List<double[]> series = new ArrayList<>();
    for (int t = 0; t < trials; t++) {
      Sample s = trial.apply(seed(settings.seed(), stream, t));
      if (figures == null) {
        figures = new double[s.figures().length];
        for (long[] counts : s.series()) {
          series.add(new double[counts.length]);
        }
      }
      for (int i = 0; i < figures.length; i++) {
        figures[i] += s.figures()[i];
      }
      for (int j = 0; j < series.size(); j++) {
        double[] sums = series.get(j);
        for (int i = 0; i < sums.length; i++) {
          sums[i] += s.series()[j][i];
        }
      }
    }
    return new Mean(figures, series, trials);
  }

  /**
   * What one trial measured, in the order of the model's row: its figures, and its time series as
   * counts per step.
   */
  record Sample(double[] figures, long[]... series) {}

  /** The means over the trials of a cell's samples. */
  static final class Mean {
    private final double[] sums;
    private final List<double[]> series;
    private final int trials;

    Mean(double[] sums, List<double[]> series, int trials) {
      this.sums = sums;
      this.series = series;
      this.trials = trials;
    }

    /** The mean of every figure, in the order of the samples. */
    double[] figures() {
      double[] means = new double[sums.length];
      for (int i = 0; i < means.length; i++) {
        means[i] = sums[i] / trials;
      }
      return means;
    }

    /** The mean of series {@code j}, step by step, each mean passed through {@code then}. */
    List<Double> series(int j, DoubleUnaryOperator then) {
      List<Double> out = new ArrayList<>();
      for (double sum : series.get(j)) {
        out.add(then.applyAsDouble(sum / trials));
      }
      return out;
    }
  }
}
