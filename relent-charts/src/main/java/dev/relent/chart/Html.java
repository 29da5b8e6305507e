package dev.relent.chart;

import java.util.List;

/**
 * The writer of Relent's HTML reports, the simulator's and {@code relent batch --html}'s: a page is
 * built from these parts (heading and lead, headline cards, sections with charts and captions,
 * tables, the conclusion, lists) under one style sheet. The page is self-contained: inline CSS,
 * inline SVG ({@link LineChart}, {@link Svg}), no script, nothing fetched. Plain-text arguments are
 * escaped; arguments documented as HTML are written as given. Not meant as a general HTML library.
 * Mutable and not thread-safe; build one page per instance.
 */
public final class Html {

  private static final String STYLE =
      "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
          + "margin:0;background:#f8fafc;color:#111827;line-height:1.5}"
          + "main{max-width:980px;margin:0 auto;padding:24px 32px 48px}"
          + "h1{font-size:26px;margin:8px 0 4px}h2{font-size:20px;margin:32px 0 8px}"
          + ".lead{color:#374151;font-size:16px}.meta{color:#6b7280;font-size:13px}"
          + ".headline{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}"
          + ".card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;"
          + "min-width:180px;flex:1}"
          + ".card .value{font-size:24px;font-weight:600}.card .what{color:#4b5563;font-size:13px}"
          + "figure{background:#fff;border:1px solid #e5e7eb;border-radius:8px;margin:16px 0;"
          + "padding:8px}"
          + "figcaption{color:#374151;font-size:14px;padding:4px 8px 8px}"
          + "svg.chart{width:100%;height:auto;display:block}"
          + "svg text{font-family:inherit;fill:#374151;font-size:12px}"
          + "svg .chart-title{font-size:15px;font-weight:600;fill:#111827}"
          + "svg .axis-label{font-size:13px}svg .legend{font-size:12.5px}"
          + "svg .span-label,svg .marker-label{font-size:11.5px;fill:#6b7280}"
          + "table{border-collapse:collapse;background:#fff;font-size:13.5px;margin:8px 0;"
          + "font-variant-numeric:tabular-nums}"
          + "th,td{border:1px solid #e5e7eb;padding:4px 10px;text-align:right}"
          + "th{background:#f1f5f9}td:first-child,th:first-child{text-align:left}"
          + ".conclusion{background:#ecfdf5;border-left:4px solid #10b981;padding:8px 16px;"
          + "border-radius:4px}"
          + "code{background:#f1f5f9;padding:1px 4px;border-radius:3px}";

  private final StringBuilder body = new StringBuilder();

  /**
   * Starts a page with its heading and lead paragraph.
   *
   * @param heading the page's heading (plain text)
   * @param lead the lead paragraph (HTML)
   */
  public Html(String heading, String lead) {
    body.append("<h1>").append(escape(heading)).append("</h1>\n");
    paragraph("lead", lead);
  }

  /**
   * Adds the headline: one card per figure.
   *
   * @param cards value, what it means, value, what it means, ... (plain text)
   * @return this
   */
  public Html headline(String... cards) {
    body.append("<div class=\"headline\">\n");
    for (int i = 0; i < cards.length; i += 2) {
      body.append("<div class=\"card\"><div class=\"value\">")
          .append(escape(cards[i]))
          .append("</div><div class=\"what\">")
          .append(escape(cards[i + 1]))
          .append("</div></div>\n");
    }
    body.append("</div>\n");
    return this;
  }

  /**
   * Adds a section heading.
   *
   * @param title the heading (plain text)
   * @return this
   */
  public Html section(String title) {
    body.append("<h2>").append(escape(title)).append("</h2>\n");
    return this;
  }

  /**
   * Adds a chart and its caption: what it shows.
   *
   * @param chart the chart
   * @param caption the caption (plain text)
   * @return this
   */
  public Html figure(LineChart chart, String caption) {
    return figure(chart.svg(), caption);
  }

  /**
   * Adds a figure drawn by another writer, and its caption.
   *
   * @param svg an {@code <svg>} element, whose text is already escaped
   * @param caption the caption (plain text)
   * @return this
   */
  public Html figure(String svg, String caption) {
    body.append("<figure>\n")
        .append(svg)
        .append("<figcaption>")
        .append(escape(caption))
        .append("</figcaption>\n</figure>\n");
    return this;
  }

  /**
   * Adds a table of text cells: the first column left-aligned, the others right-aligned.
   *
   * @param id the table's id, for links and tests
   * @param header the column headings (plain text)
   * @param rows the lines, each as many cells as {@code header} (plain text)
   * @return this
   * @throws IllegalArgumentException if a line has another number of cells
   */
  public Html table(String id, List<String> header, List<List<String>> rows) {
    for (List<String> row : rows) {
      if (row.size() != header.size()) {
        throw new IllegalArgumentException(
            "each row needs " + header.size() + " cells: " + row.size() + " in " + row);
      }
    }
    body.append("<table id=\"").append(escape(id)).append("\">\n");
    tableLine("th", header);
    for (List<String> row : rows) {
      tableLine("td", row);
    }
    body.append("</table>\n");
    return this;
  }

  /** One {@code <tr>} of cells, each in a {@code tag} element, escaped. */
  private void tableLine(String tag, List<String> cells) {
    body.append("<tr>");
    for (String cell : cells) {
      body.append('<')
          .append(tag)
          .append('>')
          .append(escape(cell))
          .append("</")
          .append(tag)
          .append('>');
    }
    body.append("</tr>\n");
  }

  /**
   * Adds a paragraph.
   *
   * @param cssClass the paragraph's class, or null for none
   * @param html its content (HTML)
   * @return this
   */
  public Html paragraph(String cssClass, String html) {
    body.append(cssClass == null ? "<p>" : "<p class=\"" + cssClass + "\">")
        .append(html)
        .append("</p>\n");
    return this;
  }

  /**
   * Adds the conclusion: a section headed "Conclusion" holding one highlighted paragraph, what the
   * run shows.
   *
   * @param html the paragraph's content (HTML)
   * @return this
   */
  public Html conclusion(String html) {
    section("Conclusion");
    body.append("<div class=\"conclusion\">\n<p>").append(html).append("</p>\n</div>\n");
    return this;
  }

  /**
   * Adds a section holding a bulleted list.
   *
   * @param title the section's heading (plain text)
   * @param items the list's items, in order (HTML)
   * @return this
   */
  public Html list(String title, String... items) {
    section(title);
    body.append("<ul>\n");
    for (String item : items) {
      body.append("<li>").append(item).append("</li>\n");
    }
    body.append("</ul>\n");
    return this;
  }

  /**
   * Returns the complete page: self-contained, with inline CSS and SVG, no script.
   *
   * @param title the page's title (plain text)
   * @return the document
   */
  public String page(String title) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
        + escape(title)
        + "</title>\n<style>"
        + STYLE
        + "</style>\n</head>\n<body>\n<main>\n"
        + body
        + "</main>\n</body>\n</html>\n";
  }

  /**
   * Escapes text for HTML content and attribute values.
   *
   * @param s the text
   * @return the text with {@code & < > " '} escaped
   */
  public static String escape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> sb.append("&amp;");
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '"' -> sb.append("&quot;");
        case '\'' -> sb.append("&#39;");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }
}
