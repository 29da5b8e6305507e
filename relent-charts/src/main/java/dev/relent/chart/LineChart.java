package dev.relent.chart;

import static dev.relent.chart.Svg.f;
import static dev.relent.chart.Svg.line;
import static dev.relent.chart.Svg.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A line chart as inline SVG: axes with round ticks, grid, one path per series, a legend, optional
 * shaded spans and vertical markers. No script; it renders the same in any browser and in print.
 *
 * <p>Every series is a {@code <path class="series" data-series="name">} whose points also appear as
 * {@code data-points} text, so that a test can check in the rendered DOM that the data made it into
 * the picture. Drawn by the simulator's reports and by {@code relent batch --html}; a page holds it
 * with {@link Html#figure(LineChart, String)}. By default the y axis is linear from 0 and every
 * point has a dot ({@link #logY()} and {@link #linesOnly()} change that); texts are escaped.
 * Mutable and not thread-safe; {@link #svg()} may be called repeatedly.
 */
public final class LineChart {
  private static final int WIDTH = 760;
  private static final int HEIGHT = 380;
  private static final int LEFT = 70;
  private static final int RIGHT = 190;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;
  private static final String DASHED = " stroke-dasharray=\"6 4\"";
  private static final String DOTTED = "stroke-dasharray=\"2 3\"";

  private final String id;
  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<Series> series = new ArrayList<>();
  private final List<double[]> spans = new ArrayList<>();
  private final List<String> spanLabels = new ArrayList<>();
  private final List<Double> markers = new ArrayList<>();
  private final List<String> markerLabels = new ArrayList<>();
  private boolean logY;
  private boolean points = true;

  private record Series(String name, String color, boolean dashed, double[] xs, double[] ys) {}

  /**
   * Creates an empty chart.
   *
   * @param id the SVG element's id, for links and tests
   * @param title shown above the plot
   * @param xLabel the x axis label, with its unit
   * @param yLabel the y axis label, with its unit
   */
  public LineChart(String id, String title, String xLabel, String yLabel) {
    this.id = Objects.requireNonNull(id, "id cannot be null");
    this.title = Objects.requireNonNull(title, "title cannot be null");
    this.xLabel = Objects.requireNonNull(xLabel, "xLabel cannot be null");
    this.yLabel = Objects.requireNonNull(yLabel, "yLabel cannot be null");
  }

  /**
   * Uses a logarithmic y axis (every value must then be positive; others are left out).
   *
   * @return this chart
   */
  public LineChart logY() {
    this.logY = true;
    return this;
  }

  /**
   * Draws lines only, without a dot per point: for long series.
   *
   * @return this chart
   */
  public LineChart linesOnly() {
    this.points = false;
    return this;
  }

  /**
   * Adds a series.
   *
   * @param name shown in the legend
   * @param color a CSS color
   * @param dashed whether the line is dashed
   * @param xs the x values, ascending
   * @param ys the y values, as many as {@code xs}
   * @return this chart
   * @throws IllegalArgumentException if the lengths differ
   */
  public LineChart series(String name, String color, boolean dashed, double[] xs, double[] ys) {
    if (xs.length != ys.length) {
      throw new IllegalArgumentException(
          "xs and ys must have the same length: " + xs.length + " and " + ys.length);
    }
    series.add(new Series(name, color, dashed, xs.clone(), ys.clone()));
    return this;
  }

  /**
   * Shades a span of x values, e.g. an outage.
   *
   * @param from where it begins
   * @param to where it ends
   * @param label shown at its top
   * @return this chart
   */
  public LineChart span(double from, double to, String label) {
    spans.add(new double[] {from, to});
    spanLabels.add(label);
    return this;
  }

  /**
   * Draws a vertical dashed line at an x value, e.g. a physical limit.
   *
   * @param x where
   * @param label shown next to it
   * @return this chart
   */
  public LineChart marker(double x, String label) {
    markers.add(x);
    markerLabels.add(label);
    return this;
  }

  /**
   * Renders the chart.
   *
   * @return an {@code <svg>} element
   */
  public String svg() {
    double xMin = Double.POSITIVE_INFINITY;
    double xMax = Double.NEGATIVE_INFINITY;
    double yMin = logY ? Double.POSITIVE_INFINITY : 0;
    double yMax = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (int i = 0; i < s.xs.length; i++) {
        if (logY && !(s.ys[i] > 0)) {
          continue;
        }
        xMin = Math.min(xMin, s.xs[i]);
        xMax = Math.max(xMax, s.xs[i]);
        yMin = Math.min(yMin, s.ys[i]);
        yMax = Math.max(yMax, s.ys[i]);
      }
    }
    for (double m : markers) {
      xMin = Math.min(xMin, m);
      xMax = Math.max(xMax, m);
    }
    if (!(xMax > xMin)) {
      xMin = 0;
      xMax = Math.max(1, xMax);
    }
    if (!(yMax > yMin)) {
      yMax = yMin + 1;
    }
    double[] yTicks;
    double y0;
    double y1;
    if (logY) {
      y0 = Math.floor(Math.log10(yMin));
      y1 = Math.ceil(Math.log10(yMax));
      if (y1 == y0) {
        y1 = y0 + 1;
      }
      yTicks = new double[(int) (y1 - y0) + 1];
      for (int i = 0; i < yTicks.length; i++) {
        yTicks[i] = Math.pow(10, y0 + i);
      }
    } else {
      yTicks = ticks(0, yMax);
      y0 = 0;
      y1 = yTicks[yTicks.length - 1];
    }
    double[] xTicks = ticks(xMin, xMax);
    double xLo = xMin;
    double xHi = Math.max(xMax, xTicks[xTicks.length - 1]);
    Scale sx = v -> LEFT + (v - xLo) / (xHi - xLo) * (WIDTH - LEFT - RIGHT);
    double fy0 = y0;
    double fy1 = y1;
    Scale sy =
        logY
            ? v -> TOP + (1 - (Math.log10(v) - fy0) / (fy1 - fy0)) * (HEIGHT - TOP - BOTTOM)
            : v -> TOP + (1 - (v - fy0) / (fy1 - fy0)) * (HEIGHT - TOP - BOTTOM);

    StringBuilder sb = new StringBuilder();
    Svg.open(sb, "chart", id, WIDTH, HEIGHT, " preserveAspectRatio=\"xMidYMid meet\"", title);
    text(sb, WIDTH / 2.0 - RIGHT / 2.0 + LEFT / 2.0, 22, "middle", "chart-title", title);
    double plotBottom = HEIGHT - BOTTOM;
    double plotRight = WIDTH - RIGHT;
    for (int i = 0; i < spans.size(); i++) {
      double a = sx.at(spans.get(i)[0]);
      double b = sx.at(spans.get(i)[1]);
      sb.append("<rect class=\"span\" x=\"")
          .append(f(a))
          .append("\" y=\"")
          .append(TOP)
          .append("\" width=\"")
          .append(f(b - a))
          .append("\" height=\"")
          .append(f(plotBottom - TOP))
          .append("\" fill=\"#fde2e2\"/>\n");
      text(sb, (a + b) / 2, TOP + 14, "middle", "span-label", spanLabels.get(i));
    }
    for (double t : yTicks) {
      double y = sy.at(t);
      line(sb, "grid", LEFT, f(plotRight), f(y), f(y), "stroke=\"#e5e7eb\"");
      text(sb, LEFT - 8, y + 4, "end", "tick", label(t));
    }
    for (double t : xTicks) {
      double x = sx.at(t);
      line(sb, "grid", f(x), f(x), TOP, f(plotBottom), "stroke=\"#f1f5f9\"");
      text(sb, x, plotBottom + 18, "middle", "tick", label(t));
    }
    sb.append("<path class=\"axis\" d=\"M")
        .append(LEFT)
        .append(' ')
        .append(TOP)
        .append("V")
        .append(f(plotBottom))
        .append("H")
        .append(f(plotRight))
        .append("\" fill=\"none\" stroke=\"#374151\"/>\n");
    text(sb, (LEFT + plotRight) / 2, HEIGHT - 10, "middle", "axis-label", xLabel);
    sb.append("<text class=\"axis-label\" text-anchor=\"middle\" transform=\"translate(16 ")
        .append(f((TOP + plotBottom) / 2))
        .append(") rotate(-90)\">")
        .append(Html.escape(yLabel))
        .append("</text>\n");
    for (int i = 0; i < markers.size(); i++) {
      double x = sx.at(markers.get(i));
      line(sb, "marker", f(x), f(x), TOP, f(plotBottom), "stroke=\"#111827\" " + DOTTED);
      // Labels sit at the foot of the line, where rising curves leave the plot empty.
      text(sb, x + 4, plotBottom - 8 - 14 * i, "start", "marker-label", markerLabels.get(i));
    }
    int legendY = TOP + 6;
    for (Series s : series) {
      StringBuilder d = new StringBuilder();
      StringBuilder data = new StringBuilder();
      for (int i = 0; i < s.xs.length; i++) {
        if (logY && !(s.ys[i] > 0)) {
          continue;
        }
        d.append(d.length() == 0 ? "M" : "L")
            .append(f(sx.at(s.xs[i])))
            .append(' ')
            .append(f(sy.at(s.ys[i])));
        data.append(data.length() == 0 ? "" : " ")
            .append(label(s.xs[i]))
            .append(':')
            .append(label(s.ys[i]));
      }
      if (d.length() == 0) {
        // Nothing to draw (on a log scale: only zeros); say so in the legend.
        double lx = plotRight + 16;
        text(sb, lx + 30, legendY + 4, "start", "legend", s.name + ": all zero");
        legendY += 20;
        continue;
      }
      sb.append("<path class=\"series\" data-series=\"")
          .append(Html.escape(s.name))
          .append("\" data-points=\"")
          .append(data)
          .append("\" d=\"")
          .append(d)
          .append("\" fill=\"none\" stroke=\"")
          .append(s.color)
          .append("\" stroke-width=\"2\"")
          .append(s.dashed ? DASHED : "")
          .append(" stroke-linejoin=\"round\"/>\n");
      if (points) {
        for (int i = 0; i < s.xs.length; i++) {
          if (logY && !(s.ys[i] > 0)) {
            continue;
          }
          sb.append("<circle class=\"point\" cx=\"")
              .append(f(sx.at(s.xs[i])))
              .append("\" cy=\"")
              .append(f(sy.at(s.ys[i])))
              .append("\" r=\"2.5\" fill=\"")
              .append(s.color)
              .append("\"><title>")
              .append(Html.escape(s.name))
              .append(": ")
              .append(label(s.xs[i]))
              .append(", ")
              .append(label(s.ys[i]))
              .append("</title></circle>\n");
        }
      }
      double lx = plotRight + 16;
      line(
          sb,
          "legend-line",
          f(lx),
          f(lx + 24),
          legendY,
          legendY,
          "stroke=\"" + s.color + "\" stroke-width=\"3\"" + (s.dashed ? DASHED : ""));
      text(sb, lx + 30, legendY + 4, "start", "legend", s.name);
      legendY += 20;
    }
    sb.append("</svg>\n");
    return sb.toString();
  }

  @FunctionalInterface
  private interface Scale {
    double at(double v);
  }

  /**
   * Returns round ticks (1, 2, 2.5 or 5 times a power of ten) covering [lo, hi], five to ten of
   * them, as the axes use.
   *
   * @param lo the smallest value to cover
   * @param hi the largest value to cover, more than {@code lo}
   * @return the ticks, ascending
   */
  public static double[] ticks(double lo, double hi) {
    double span = hi - lo;
    double raw = span / 6;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = magnitude;
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    }
    double first = Math.floor(lo / step) * step;
    int n = (int) Math.ceil((hi - first) / step - 1e-9) + 1;
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = first + i * step;
    }
    return out;
  }

  /**
   * Formats a number as the chart shows it, in tick labels and in {@code data-points}: 12, 2.5,
   * 0.25, 1500, 12k (at most two decimals).
   *
   * @param v the number
   * @return its label
   */
  public static String label(double v) {
    if (Math.abs(v) >= 10_000 && v % 1000 == 0) {
      return String.format(Locale.ROOT, "%dk", (long) (v / 1000));
    }
    if (v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%d", (long) v);
    }
    String s = String.format(Locale.ROOT, "%.2f", v);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
