package dev.relent.sim;

import dev.relent.chart.Html;
import java.util.List;
import java.util.function.Function;

/**
 * What every model's result holds and how it prints: the seed, the trials, the rows, and the CSV
 * written from the model's {@link Metric}s. Immutable and thread-safe.
 *
 * @param <R> the model's row
 * @param <T> the model's result
 */
abstract class AbstractResult<R, T extends AbstractResult<R, T>> implements ModelResult {
  private final String model;
  private final AbstractBuilder.Settings settings;
  private final List<R> rows;
  private final List<Metric<R>> metrics;
  private final Function<T, String> table;
  private final Function<T, String> html;

  /**
   * Creates a result.
   *
   * @param model the model's name as the CLI spells it
   * @param settings the seed and the trials
   * @param rows the rows, in the order of the table and the CSV
   * @param metrics the model's metrics, in the order of the CSV
   * @param table writes the text table, headline included
   * @param html writes the HTML report
   */
  AbstractResult(
      String model,
      AbstractBuilder.Settings settings,
      List<R> rows,
      List<Metric<R>> metrics,
      Function<T, String> table,
      Function<T, String> html) {
    this.model = model;
    this.settings = settings;
    this.rows = List.copyOf(rows);
    this.metrics = metrics;
    this.table = table;
    this.html = html;
  }

  /**
   * Returns the rows, in the order of the table and the CSV.
   *
   * @return the rows
   */
  public List<R> rows() {
    return rows;
  }

  /**
   * Returns the seed of the run.
   *
   * @return the seed
   */
  public long seed() {
    return settings.seed();
  }

  /**
   * Returns the trials per row.
   *
   * @return the number of trials
   */
  public int trials() {
    return settings.trials();
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public String csv() {
    return Table.csv(metrics, rows);
  }

  @Override
  public String table() {
    return table.apply(self());
  }

  @Override
  public String html() {
    return html.apply(self());
  }

  @SuppressWarnings("unchecked") // T is the class of this result, as its declaration says
  private T self() {
    return (T) this;
  }

  /** The given rows as one table, a line per row and a column per metric the tables show. */
  Table table(List<R> rows) {
    return Table.of(metrics, rows);
  }

  /** "mean of 3 trials, seed 1", as the headlines of the tables say it. */
  String meanOf() {
    return "mean of " + Numbers.trials(trials()) + ", seed " + seed();
  }

  /**
   * Starts the result's HTML report with what every model's report opens with: the heading, the
   * lead paragraph, and a line saying what the numbers are means of and how to reproduce them.
   *
   * @param heading the page's heading (plain text)
   * @param lead the lead paragraph (HTML)
   * @param perWhat what each mean stands for, such as {@code " per point"}, or empty
   */
  Html report(String heading, String lead, String perWhat) {
    return new Html(heading, lead)
        .paragraph(
            "meta",
            "Mean of "
                + Numbers.trials(trials())
                + perWhat
                + ", seed "
                + seed()
                + ". Reproduce: <code>relent simulate "
                + model()
                + " --seed "
                + seed()
                + " --trials "
                + trials()
                + " --html report.html</code>");
  }
}
