package dev.relent.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A table of text cells and the one writer of every table the simulator prints: aligned text for
 * the terminal ({@link #text()}) and CSV ({@link #csv(List, List)}); the HTML report shows its
 * {@link #header()} and {@link #rows()} with {@code Html.table}. A table is built from a model's
 * {@link Metric}s, one line per row, or as a pivot of one metric, one line per setting and one
 * column per strategy. Immutable.
 */
final class Table {
  private final List<String> header;
  private final List<List<String>> rows;

  private Table(List<String> header, List<List<String>> rows) {
    this.header = List.copyOf(header);
    this.rows = List.copyOf(rows);
  }

  /** A table of the given cells. */
  static Table ofCells(List<String> header, List<List<String>> rows) {
    return new Table(header, rows.stream().map(List::copyOf).toList());
  }

  /** One line per row, one column per metric that the tables show, in the metrics' order. */
  static <R> Table of(List<Metric<R>> metrics, List<R> rows) {
    return view(metrics, rows, Metric::inTable, Metric::header, Metric::cell);
  }

  /** The metrics that {@code shown} keeps, each line's cells as {@code cell} prints them. */
  private static <R> Table view(
      List<Metric<R>> metrics,
      List<R> rows,
      Predicate<Metric<R>> shown,
      Function<Metric<R>, String> header,
      BiFunction<Metric<R>, R, String> cell) {
    List<Metric<R>> columns = metrics.stream().filter(shown).toList();
    List<List<String>> cells = new ArrayList<>();
    for (R row : rows) {
      cells.add(columns.stream().map(m -> cell.apply(m, row)).toList());
    }
    return new Table(columns.stream().map(header).toList(), cells);
  }

  /**
   * One metric laid out as a grid: a line per setting (a client count), a column per strategy.
   *
   * @param corner the header of the settings' column
   * @param settings the lines, printed as {@link String#valueOf(Object)} gives them
   * @param strategies the columns
   * @param row finds the row of a setting and a strategy
   * @param metric the figure in each cell, as the tables print it
   */
  static <K, S extends Legend, R> Table pivot(
      String corner,
      List<K> settings,
      List<S> strategies,
      BiFunction<K, S, R> row,
      Metric<R> metric) {
    List<String> header = new ArrayList<>();
    header.add(corner);
    for (S s : strategies) {
      header.add(s.label());
    }
    List<List<String>> cells = new ArrayList<>();
    for (K setting : settings) {
      List<String> line = new ArrayList<>();
      line.add(String.valueOf(setting));
      for (S s : strategies) {
        line.add(metric.cell(row.apply(setting, s)));
      }
      cells.add(line);
    }
    return new Table(header, cells);
  }

  /**
   * Returns the rows as CSV: a header of the metrics' names, then one line per row; numbers as the
   * metrics format them for the CSV (a dot, no grouping), every line ending with {@code \n}.
   */
  static <R> String csv(List<Metric<R>> metrics, List<R> rows) {
    Table t = view(metrics, rows, Metric::inCsv, Metric::name, Metric::csv);
    StringBuilder sb = new StringBuilder(String.join(",", t.header)).append('\n');
    for (List<String> line : t.rows) {
      sb.append(String.join(",", line)).append('\n');
    }
    return sb.toString();
  }

  /** Aligned text: the first column left, the others right, two spaces apart. */
  String text() {
    int[] width = new int[header.size()];
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        String cell = row.get(i);
        String pad = " ".repeat(width[i] - cell.length());
        if (i == 0) {
          line.append(cell).append(pad);
        } else {
          line.append("  ").append(pad).append(cell);
        }
      }
      sb.append(line.toString().stripTrailing()).append('\n');
    }
    return sb.toString();
  }

  /** The column headings. */
  List<String> header() {
    return header;
  }

  /** The lines, each as many cells as the header. */
  List<List<String>> rows() {
    return rows;
  }
}
