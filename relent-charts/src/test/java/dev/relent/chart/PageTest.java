package dev.relent.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page and chart writers on their own: round ticks and labels, escaping, the table, and a small
 * page with a chart and a table that is self-contained (no script, nothing fetched, text escaped)
 * and that real headless Chromium renders with the chart's data in its DOM.
 */
class PageTest {
  @TempDir Path dir;

  @Test
  void chartTicksAreRoundAndCoverTheRange() {
    assertThat(LineChart.ticks(0, 7993)).containsExactly(0, 2000, 4000, 6000, 8000);
    assertThat(LineChart.ticks(10, 190)).containsExactly(0, 50, 100, 150, 200);
    assertThat(LineChart.ticks(0, 1)).containsExactly(0, 0.2, 0.4, 0.6000000000000001, 0.8, 1);
    assertThat(LineChart.label(12_000)).isEqualTo("12k");
    assertThat(LineChart.label(2.5)).isEqualTo("2.5");
    assertThat(LineChart.label(0.1)).isEqualTo("0.1");
    assertThat(LineChart.label(1500)).isEqualTo("1500");
  }

  @Test
  void htmlEscapesMarkupAndQuotes() {
    assertThat(Html.escape("<a href=\"x\">'&'</a>"))
        .isEqualTo("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  }

  @Test
  void aTableHasAHeaderLineAndALinePerRowWithEveryCellEscaped() {
    String page =
        new Html("h", "lead")
            .table(
                "t",
                List.of("clients", "a<b"),
                List.of(List.of("10", "15"), List.of("200", "x & y")))
            .page("p");
    assertThat(page)
        .contains(
            "<table id=\"t\">\n<tr><th>clients</th><th>a&lt;b</th></tr>\n"
                + "<tr><td>10</td><td>15</td></tr>\n"
                + "<tr><td>200</td><td>x &amp; y</td></tr>\n</table>\n");
    assertThatThrownBy(
            () -> new Html("h", "lead").table("t", List.of("a", "b"), List.of(List.of("1"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("each row needs 2 cells: 1");
  }

  @Test
  void aChartRejectsSeriesOfUnequalLength() {
    LineChart chart = new LineChart("c", "t", "x", "y");
    assertThatThrownBy(() -> chart.series("s", "#000", false, new double[2], new double[3]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aPageWithAChartAndATableIsSelfContainedAndRendersInChromium() throws Exception {
    LineChart chart =
        new LineChart("chart-small", "Calls <by> \"clients\"", "clients (N)", "calls")
            .span(2, 3, "outage & after")
            .marker(4, "limit");
    chart.series("a&b", "#2563eb", false, new double[] {1, 2, 3, 5}, new double[] {10, 20, 15, 40});
    chart.series("dashed", "#dc2626", true, new double[] {1, 5}, new double[] {5, 5});
    String page =
        new Html("A <small> page", "The lead, <em>in HTML</em>.")
            .headline("12 %", "of <all>", "3×", "faster")
            .section("Chart & table")
            .figure(chart, "What it shows: a < b")
            .table(
                "table-small",
                List.of("x", "a&b"),
                List.of(List.of("1", "10"), List.of("<2>", "20")))
            .conclusion("It <strong>works</strong>.")
            .list("Notes", "one", "<code>two</code>")
            .page("Small & page");

    assertThat(page).startsWith("<!DOCTYPE html>").doesNotContainIgnoringCase("<script");
    // The only URL is the SVG namespace, which is a name, not a fetch.
    assertThat(page.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http");
    assertThat(page).doesNotContain("src=").doesNotContain("<link").doesNotContain("url(");
    // Plain text is escaped; what is documented as HTML is written as given.
    assertThat(page)
        .contains("<title>Small &amp; page</title>")
        .contains("<h1>A &lt;small&gt; page</h1>")
        .contains("<p class=\"lead\">The lead, <em>in HTML</em>.</p>")
        .contains("<div class=\"what\">of &lt;all&gt;</div>")
        .contains("<h2>Chart &amp; table</h2>")
        .contains("<figcaption>What it shows: a &lt; b</figcaption>")
        .contains("aria-label=\"Calls &lt;by&gt; &quot;clients&quot;\"")
        .contains("data-series=\"a&amp;b\" data-points=\"1:10 2:20 3:15 5:40\"")
        .contains(">outage &amp; after</text>")
        .contains("<tr><td>&lt;2&gt;</td><td>20</td></tr>")
        .contains("<div class=\"conclusion\">\n<p>It <strong>works</strong>.</p>")
        .contains("<li><code>two</code></li>")
        .doesNotContain("<small>")
        .doesNotContain("<all>");

    Path html = dir.resolve("small.html");
    Files.writeString(html, page, StandardCharsets.UTF_8);
    String dom = new Chromium(dir).dumpDom(html);
    assertThat(dom)
        .contains("id=\"chart-small\"")
        .contains("data-series=\"a&amp;b\" data-points=\"1:10 2:20 3:15 5:40\"")
        .contains("data-series=\"dashed\"")
        .contains("<table id=\"table-small\">");
  }
}
