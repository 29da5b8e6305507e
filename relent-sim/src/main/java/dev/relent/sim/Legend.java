package dev.relent.sim;

import dev.relent.chart.LineChart;
import java.util.Locale;

/**
 * How a strategy appears in the tables, the CSV and the charts: every model's {@code Strategy} enum
 * implements it, so that one chart writer can draw any model's lines.
 */
interface Legend {
  /**
   * Returns the enum constant's name; every enum has it.
   *
   * @return the name, such as {@code RELENT_DEFAULT}
   */
  String name();

  /**
   * Returns the strategy's name as the tables, the CSV and the charts spell it: the constant's name
   * in lower case, its words joined by '-'.
   *
   * @return the name, such as {@code relent-default}
   */
  default String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * Returns the color of the strategy's line in every chart.
   *
   * @return a CSS color
   */
  default String color() {
    return Palette.color(label());
  }

  /**
   * Returns whether the strategy's line is dashed: Relent's own policies run as a whole ({@code
   * relent-*}) are, so that they stand apart from the strategies they are compared with.
   *
   * @return true if dashed
   */
  default boolean dashed() {
    return label().startsWith("relent-");
  }

  /**
   * Adds the strategy's series to a chart, named by its {@link #label()}, in its {@link #color()}
   * and {@link #dashed()} or not.
   *
   * @param chart the chart
   * @param xs the x values, ascending
   * @param ys the y values, as many as {@code xs}
   */
  default void plot(LineChart chart, double[] xs, double[] ys) {
    chart.series(label(), color(), dashed(), xs, ys);
  }
}
