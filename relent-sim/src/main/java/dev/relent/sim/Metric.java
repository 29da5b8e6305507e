package dev.relent.sim;

import java.util.Objects;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * A named figure of a model's rows, declared once by the model and printed by every writer: its
 * name in the CSV header, its header in the text and HTML tables, its value, and how each of them
 * formats it (the CSV keeps more decimals than the table).
 *
 * <p>The simulator's counterpart of the metrics a policy registers with Caffeine's simulator
 * ({@code PolicyStats.addMetric}): a model declares a {@code List<Metric<Row>>} in the order of its
 * columns, and {@link Table} prints any model's rows from it. A metric without a CSV name is left
 * out of the CSV, one without a table header out of the tables. Immutable.
 *
 * @param <R> the model's row
 */
final class Metric<R> {
  private final String name;
  private final String header;
  private final Function<R, String> csv;
  private final Function<R, String> table;

  private Metric(String name, String header, Function<R, String> csv, Function<R, String> table) {
    this.name = name;
    this.header = header;
    this.csv = csv;
    this.table = table;
  }

  /** A text column, the same in the CSV and the tables: a strategy or a scenario. */
  static <R> Metric<R> text(String name, Function<R, ?> value) {
    Function<R, String> cell = r -> String.valueOf(value.apply(r));
    return new Metric<>(name, name, cell, cell);
  }

  /**
   * A number in the CSV and the tables.
   *
   * @param name the CSV column, with its unit: {@code time_ms}
   * @param header the table column: {@code time (ms)}
   * @param value reads it from a row
   * @param csv how the CSV prints it
   * @param table how the tables print it
   */
  static <R> Metric<R> number(
      String name,
      String header,
      ToDoubleFunction<R> value,
      DoubleFunction<String> csv,
      DoubleFunction<String> table) {
    Objects.requireNonNull(value, "value cannot be null");
    return new Metric<>(
        name,
        header,
        r -> csv.apply(value.applyAsDouble(r)),
        r -> table.apply(value.applyAsDouble(r)));
  }

  /** A number the tables show but the CSV leaves out. */
  static <R> Metric<R> tableOnly(
      String header, ToDoubleFunction<R> value, DoubleFunction<String> table) {
    return number(null, header, value, v -> null, table);
  }

  /** A column the CSV holds but the tables leave out. */
  static <R> Metric<R> csvOnly(String name, Function<R, String> cell) {
    return new Metric<>(name, null, cell, r -> null);
  }

  boolean inCsv() {
    return name != null;
  }

  boolean inTable() {
    return header != null;
  }

  String name() {
    return name;
  }

  String header() {
    return header;
  }

  String csv(R row) {
    return csv.apply(row);
  }

  String cell(R row) {
    return table.apply(row);
  }
}
