package dev.relent.sim.internal;

import java.util.List;

/** The HTML around the charts: one page style, tables and escaping. */
public final class Html {
  private Html() {}

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

  /**
   * Returns a complete page.
   *
   * @param title the page title
   * @param body the inner HTML of {@code <main>}
   * @return the document
   */
  public static String page(String title, String body) {
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
   * Returns a table; cells are escaped.
   *
   * @param id the table's id
   * @param header the column names
   * @param rows the cells, row by row
   * @return a {@code <table>} element
   */
  public static String table(String id, List<String> header, List<List<String>> rows) {
    StringBuilder sb = new StringBuilder("<table id=\"").append(escape(id)).append("\">\n<tr>");
    for (String h : header) {
      sb.append("<th>").append(escape(h)).append("</th>");
    }
    sb.append("</tr>\n");
    for (List<String> row : rows) {
      sb.append("<tr>");
      for (String cell : row) {
        sb.append("<td>").append(escape(cell)).append("</td>");
      }
      sb.append("</tr>\n");
    }
    return sb.append("</table>\n").toString();
  }

  /**
   * Returns a headline card.
   *
   * @param value the figure
   * @param what what it means
   * @return a {@code <div class="card">}
   */
  public static String card(String value, String what) {
    return "<div class=\"card\"><div class=\"value\">"
        + escape(value)
        + "</div><div class=\"what\">"
        + escape(what)
        + "</div></div>\n";
  }

  /**
   * Returns a figure holding a chart and its caption.
   *
   * @param svg the chart
   * @param caption what it shows (plain text, escaped)
   * @return a {@code <figure>}
   */
  public static String figure(String svg, String caption) {
    return "<figure>\n" + svg + "<figcaption>" + escape(caption) + "</figcaption>\n</figure>\n";
  }

  /**
   * Escapes text for HTML content and attribute values.
   *
   * @param s the text
   * @return the escaped text
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
