package dev.relent.chart;

import java.util.Locale;

/**
 * The SVG elements Relent's charts are drawn with: the opening of a chart, a text and a line, and
 * coordinates formatted to one decimal. {@link LineChart} draws with them, and so may a report's
 * own figures ({@code relent batch --html}'s attempt timelines); texts and titles are escaped here,
 * other values are written as given. Stateless and thread-safe.
 */
public final class Svg {

  private Svg() {}

  /**
   * Opens a chart: the {@code <svg>} element with its title (as {@code aria-label} and as a {@code
   * <title>}) and a white background over the whole {@code width} by {@code height}.
   *
   * @param sb where to write
   * @param cls the element's classes, e.g. {@code chart}
   * @param id the element's id
   * @param width the view box's width
   * @param height the view box's height
   * @param attributes further attributes, each with a leading space, or empty
   * @param title the chart's title (plain text)
   */
  public static void open(
      StringBuilder sb,
      String cls,
      String id,
      int width,
      int height,
      String attributes,
      String title) {
    sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"")
        .append(cls)
        .append("\" id=\"")
        .append(Html.escape(id))
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append('"')
        .append(attributes)
        .append(" role=\"img\" aria-label=\"")
        .append(Html.escape(title))
        .append("\">\n<title>")
        .append(Html.escape(title))
        .append("</title>\n<rect x=\"0\" y=\"0\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" fill=\"#ffffff\"/>\n");
  }

  /**
   * A {@code <line>} of the given class with its coordinates and further attributes. A coordinate
   * is a whole number of the layout, printed as it is, or a computed one already formatted by
   * {@link #f(double)}.
   *
   * @param sb where to write
   * @param cls the line's class
   * @param x1 where it starts, across
   * @param x2 where it ends, across
   * @param y1 where it starts, down
   * @param y2 where it ends, down
   * @param attributes further attributes, such as its stroke
   */
  public static void line(
      StringBuilder sb, String cls, Object x1, Object x2, Object y1, Object y2, String attributes) {
    sb.append("<line class=\"")
        .append(cls)
        .append("\" x1=\"")
        .append(x1)
        .append("\" x2=\"")
        .append(x2)
        .append("\" y1=\"")
        .append(y1)
        .append("\" y2=\"")
        .append(y2)
        .append("\" ")
        .append(attributes)
        .append("/>\n");
  }

  /**
   * A {@code <text>} of the given class.
   *
   * @param sb where to write
   * @param x where it stands, across
   * @param y its baseline, down
   * @param anchor {@code start}, {@code middle} or {@code end}
   * @param cls the text's class
   * @param content the text (plain)
   */
  public static void text(
      StringBuilder sb, double x, double y, String anchor, String cls, String content) {
    sb.append("<text class=\"")
        .append(cls)
        .append("\" x=\"")
        .append(f(x))
        .append("\" y=\"")
        .append(f(y))
        .append("\" text-anchor=\"")
        .append(anchor)
        .append("\">")
        .append(Html.escape(content))
        .append("</text>\n");
  }

  /**
   * A coordinate as the charts write it: one decimal.
   *
   * @param v the coordinate
   * @return it, formatted
   */
  public static String f(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
