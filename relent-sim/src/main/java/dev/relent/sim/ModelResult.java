package dev.relent.sim;

/**
 * What a simulation run gives: a text table for the terminal, CSV for further analysis, and a
 * self-contained HTML report with SVG charts (no script, no network access needed to view it).
 *
 * <p>Each is a pure function of the model's settings and seed: the same settings give the same
 * bytes. Implementations are immutable and thread-safe.
 */
public interface ModelResult {

  /**
   * Returns the model's name as the CLI spells it: {@code contention}, {@code storm} or {@code
   * queue}.
   *
   * @return the name
   */
  String model();

  /**
   * Returns the results as an aligned text table with a short headline.
   *
   * @return text with {@code \n} line ends
   */
  String table();

  /**
   * Returns the results as CSV: a header line, then one line per row; numbers use a dot and no
   * grouping, lines end with {@code \n}.
   *
   * @return the CSV text
   */
  String csv();

  /**
   * Returns a self-contained HTML page: inline CSS and SVG charts, tables, and what each chart
   * shows.
   *
   * @return the HTML document
   */
  String html();
}
