package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.chart.Chromium;
import dev.relent.chart.Png;
import dev.relent.cli.CliRun;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent batch --html} end to end: one batch against the mock server with a scripted mix
 * (200s; a 429 with {@code Retry-After: 1}, then a 200; two 503s, then a 200; 503s until the
 * retries are used up; connection resets until they are; a 404), then the report it wrote: its
 * numbers, what it leaves out (the query's API key, the Authorization header), and what headless
 * Chromium draws of it (the DOM after layout, and a screenshot under {@code target/}). Also the
 * report after a stop, and the bad report paths refused before anything is sent.
 */
class BatchHtmlReportTest {
  @TempDir static Path dir;

  private static MockServer server;
  private static CliRun run;
  private static Path report;
  private static String html;

  @BeforeAll
  static void runTheMix() throws IOException {
    server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": ["
                    + "{\"path\": \"/ok/*\", \"steps\": [{\"status\": 200}]},"
                    + "{\"path\": \"/limited/*\", \"steps\": [{\"status\": 429, \"headers\":"
                    + " {\"Retry-After\": \"1\"}}, {\"status\": 200}]},"
                    + "{\"path\": \"/flaky/*\", \"steps\": [{\"status\": 503}, {\"status\": 503},"
                    + " {\"status\": 200}]},"
                    + "{\"path\": \"/down/*\", \"steps\": [{\"status\": 503}]},"
                    + "{\"path\": \"/reset/*\", \"steps\": [{\"fault\": \"reset\"}]},"
                    + "{\"path\": \"/missing/*\", \"steps\": [{\"status\": 404}]}]}"));
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      lines.add("{\"id\": \"ok-" + i + "\", \"url\": \"" + server.uri("/ok/" + i) + "\"}");
    }
    for (String name : List.of("limited", "flaky", "down", "reset")) {
      lines.add("{\"id\": \"" + name + "\", \"url\": \"" + server.uri("/" + name + "/1") + "\"}");
    }
    // A failed request, so always on the page, with a key in its query and a token in a header.
    lines.add(
        "{\"id\": \"missing\", \"url\": \""
            + server.uri("/missing/1")
            + "?api_key=SECRET-KEY-123\", \"headers\": {\"Authorization\": \"Bearer"
            + " SECRET-TOKEN-456\"}}");
    Path in = dir.resolve("mix.jsonl");
    Files.write(in, lines, StandardCharsets.UTF_8);
    report = dir.resolve("report.html");
    run =
        BatchCommandTest.batch(
            "batch",
            in.toString(),
            "--rate",
            "20/s",
            "--concurrency",
            "2",
            "--max-retries",
            "2",
            "--base",
            "20ms",
            "--cap",
            "50ms",
            "--out",
            dir.resolve("out.jsonl").toString(),
            "--html",
            report.toString());
    html = Files.readString(report, StandardCharsets.UTF_8);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @Test
  void theRunEndsAsWithoutTheReportAndSaysWhereItIs() {
    assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.RETRIES_EXHAUSTED);
    // 18 attempts; the JDK client may send a GET whose connection was reset once more on its
    // own, so the server saw the 3 reset attempts up to twice each.
    assertThat(server.journal()).filteredOn(e -> e.fault() == null).hasSize(15);
    assertThat(server.journal().stream().filter(e -> e.fault() != null).count()).isBetween(3L, 6L);
    assertThat(run.out()).contains("relent batch: 11 requests in ");
    assertThat(run.err()).contains("relent batch: report written to " + report);
  }

  @Test
  void theReportHoldsTheRunsNumbers() {
    assertThat(html)
        .startsWith("<!DOCTYPE html>")
        .contains("<h1>relent batch: mix.jsonl</h1>")
        .contains("11 requests in ")
        .contains(": 8 succeeded, 3 failed, 0 not finished.")
        .contains("<div class=\"value\">1</div><div class=\"what\">429s seen</div>")
        .contains("--rate 20/s (a ceiling");
    // every attempt, by how it ended
    assertThat(row(html, "table-attempts", "2xx/3xx")).containsExactly("2xx/3xx", "8");
    assertThat(row(html, "table-attempts", "429")).containsExactly("429", "1");
    assertThat(row(html, "table-attempts", "other 4xx")).containsExactly("other 4xx", "1");
    assertThat(row(html, "table-attempts", "5xx")).containsExactly("5xx", "5");
    assertThat(row(html, "table-attempts", "no answer")).containsExactly("no answer", "3");
    // every request, by how it ended
    assertThat(row(html, "table-results", "success")).containsExactly("success", "8");
    assertThat(row(html, "table-results", "retries-exhausted (final)"))
        .containsExactly("retries-exhausted (final)", "2");
    assertThat(row(html, "table-results", "http-error (final)"))
        .containsExactly("http-error (final)", "1");
    assertThat(row(html, "table-latency", "attempts").get(1)).isEqualTo("18");
    assertThat(row(html, "table-latency", "requests").get(1)).isEqualTo("11");
    // The slowest waited a second for the 429's Retry-After: 2 attempts, success.
    List<String> slowest = row(html, "table-slowest", "limited");
    assertThat(slowest.subList(4, 7)).containsExactly("success", "200", "2");
    assertThat(firstCell(html, "table-slowest")).isEqualTo("limited");
    assertThat(row(html, "table-failed", "down").subList(4, 7))
        .containsExactly("retries-exhausted", "503", "3");
    assertThat(row(html, "table-failed", "reset").subList(4, 7))
        .containsExactly("retries-exhausted", "", "3");
    assertThat(row(html, "table-failed", "missing").subList(4, 7))
        .containsExactly("http-error", "404", "1");
    assertThat(html).contains("The 3 requests that were sent and did not succeed");
    // the limited request's timeline: its 429, the wait of the Retry-After, then its 200
    String limited = group(html, "timeline-slowest", "limited");
    assertThat(limited)
        .contains("data-kind=\"429\"")
        .contains("data-kind=\"2xx/3xx\"")
        .contains("<line class=\"wait\"")
        .contains(": HTTP 429");
  }

  @Test
  void theReportKeepsNoSecretAndFetchesNothing() {
    assertThat(html)
        .doesNotContain("SECRET-KEY-123")
        .doesNotContain("SECRET-TOKEN-456")
        .doesNotContainIgnoringCase("authorization")
        .contains("/missing/1?api_key=REDACTED");
    assertThat(html).doesNotContainIgnoringCase("<script").doesNotContain("<link");
    assertThat(html).doesNotContain("src=").doesNotContain("href=");
  }

  @Test
  void chromiumDrawsEveryChartAndTimeline() throws Exception {
    String dom = new Chromium(dir).dumpDom(report);
    assertSeries(dom, "chart-starts", "starts", "--rate 20/s");
    assertSeries(dom, "chart-outcomes", "2xx/3xx", "429", "other 4xx", "5xx", "no answer");
    assertSeries(dom, "chart-in-flight", "in flight", "--concurrency 2");
    assertSeries(dom, "chart-latency", "attempts", "requests");
    // The outcome legend says what each color is.
    String outcomes = svg(dom, "chart-outcomes");
    for (String legend : List.of("2xx/3xx", "429", "other 4xx", "5xx", "no answer")) {
      assertThat(outcomes).contains("<text class=\"legend\"").contains(">" + legend + "</text>");
    }
    // The starts drawn add up to the attempts made: 18 in buckets of 1 s.
    double sum = 0;
    for (String point : points(dom, "chart-starts", "starts").split(" ")) {
      sum += Double.parseDouble(point.substring(point.indexOf(':') + 1));
    }
    assertThat(sum).isEqualTo(18.0);
    // Attempt bars have a size: the timelines are drawn, not just declared.
    Matcher bars =
        Pattern.compile(
                "<rect class=\"attempt\" data-kind=\"[^\"]+\" x=\"[\\d.]+\" y=\"[\\d.]+\""
                    + " width=\"([\\d.]+)\" height=\"([\\d.]+)\"")
            .matcher(svg(dom, "timeline-failed"));
    int n = 0;
    while (bars.find()) {
      assertThat(Double.parseDouble(bars.group(1))).isPositive();
      assertThat(Double.parseDouble(bars.group(2))).isPositive();
      n++;
    }
    assertThat(n).as("attempt bars of the failed requests").isEqualTo(7);
  }

  /**
   * The sizes Chromium's layout gave: a copy of the page with a script (the report has none) that
   * writes each chart's, series' and attempt bar's rendered size into the DOM it dumps.
   */
  @Test
  void chromiumLaysOutEveryChartSeriesAndBarWithASize() throws Exception {
    String measure =
        "<script>"
            + "for (const e of document.querySelectorAll('svg.chart, rect.attempt')) {"
            + " const r = e.getBoundingClientRect();"
            + " e.setAttribute('data-size', Math.round(r.width) + 'x' + Math.round(r.height)); }"
            + "for (const e of document.querySelectorAll('path.series')) {"
            + " const b = e.getBBox();"
            + " e.setAttribute('data-size', Math.round(b.width) + 'x' + Math.round(b.height)); }"
            + "</script>";
    Path measured = dir.resolve("measured.html");
    Files.writeString(measured, html.replace("</body>", measure + "</body>"));
    String dom = new Chromium(dir).dumpDom(measured);

    Matcher charts =
        Pattern.compile("<svg [^>]*id=\"([^\"]+)\"[^>]*data-size=\"(\\d+)x(\\d+)\"").matcher(dom);
    List<String> laidOut = new ArrayList<>();
    while (charts.find()) {
      laidOut.add(charts.group(1));
      assertThat(Integer.parseInt(charts.group(2)))
          .as("width of %s", charts.group(1))
          .isGreaterThan(300);
      assertThat(Integer.parseInt(charts.group(3)))
          .as("height of %s", charts.group(1))
          .isGreaterThan(150);
    }
    assertThat(laidOut)
        .containsExactly(
            "chart-starts",
            "chart-outcomes",
            "chart-in-flight",
            "chart-latency",
            "timeline-slowest",
            "timeline-failed");
    Matcher series =
        Pattern.compile("<path class=\"series\" data-series=\"([^\"]+)\"[^>]*data-size=\"(\\d+)x")
            .matcher(dom);
    int n = 0;
    while (series.find()) {
      assertThat(Integer.parseInt(series.group(2)))
          .as("width of series %s", series.group(1))
          .isPositive();
      n++;
    }
    assertThat(n).as("series laid out").isEqualTo(3 + 5 + 2 + 2);
    Matcher bars =
        Pattern.compile("<rect class=\"attempt\"[^>]*data-size=\"(\\d+)x(\\d+)\"").matcher(dom);
    int b = 0;
    while (bars.find()) {
      assertThat(Integer.parseInt(bars.group(1))).isPositive();
      assertThat(Integer.parseInt(bars.group(2))).isPositive();
      b++;
    }
    // the slowest 10 (6 + 2 + 3 + 3 + 3 + 1 - the fastest ok's one: 17) and the 3 failed (7)
    assertThat(b).as("attempt bars laid out").isEqualTo(17 + 7);
  }

  @Test
  void theTimelinesLegendNamesTheGreyBandAndLongTextsAlignLeft() throws Exception {
    for (String timeline : List.of("timeline-slowest", "timeline-failed")) {
      String svg = svg(html, timeline);
      assertThat(svg)
          .containsPattern(
              "<rect class=\"legend-box\" [^>]*fill=\"#e5e7eb\"><title>waiting for the pacer,"
                  + " the limit or a paused scope</title>")
          .containsPattern(
              "<text class=\"legend\"[^>]*>waiting for the pacer, the limit or a paused"
                  + " scope</text>")
          .contains(">wait before a retry</text>");
    }
    // As Chromium lays it out: the URL and the error (long texts) left, the numbers right.
    String measure =
        "<script>"
            + "for (const e of document.querySelectorAll('#table-failed td, #table-failed th')) {"
            + " e.setAttribute('data-align', getComputedStyle(e).textAlign); }"
            + "</script>";
    Path measured = dir.resolve("aligned.html");
    Files.writeString(measured, html.replace("</body>", measure + "</body>"));
    String dom = new Chromium(dir).dumpDom(measured);
    String table = dom.substring(dom.indexOf("<table id=\"table-failed\">"));
    table = table.substring(0, table.indexOf("</table>"));
    Matcher row =
        Pattern.compile("<tr>((?:<td[^>]*>.*?</td>)+)</tr>", Pattern.DOTALL).matcher(table);
    assertThat(row.find()).isTrue();
    List<String> aligns = new ArrayList<>();
    Matcher cell = Pattern.compile("<td data-align=\"([a-z]+)\"").matcher(row.group(1));
    while (cell.find()) {
      aligns.add(cell.group(1));
    }
    // id, line, method, URL, outcome, status, attempts, elapsed, error
    assertThat(aligns)
        .containsExactly(
            "left", "right", "right", "left", "right", "right", "right", "right", "left");
  }

  @Test
  void aScreenshotShowsTheChartsInTheirColors() throws Exception {
    Path target = Path.of("target", "batch-report");
    Files.createDirectories(target);
    Path png = target.resolve("batch-report.png");
    Files.deleteIfExists(png);
    Png image = new Chromium(dir).screenshot(report, 1100, 4200, png);
    assertThat(png).exists();
    assertThat(image.width()).isEqualTo(1100);
    // starts (blue), 429s (orange), 5xx (red), 2xx (green), in flight (violet)
    int[] colors = {0x2563eb, 0xea580c, 0xdc2626, 0x16a34a, 0x7c3aed};
    int[] counts = new int[colors.length];
    for (int y = 0; y < image.height(); y++) {
      for (int x = 0; x < image.width(); x++) {
        int rgb = image.rgb(x, y);
        for (int i = 0; i < colors.length; i++) {
          if (close(rgb, colors[i])) {
            counts[i]++;
          }
        }
      }
    }
    for (int i = 0; i < colors.length; i++) {
      assertThat(counts[i])
          .as("pixels in #%06x in %s", colors[i], png.toAbsolutePath())
          .isGreaterThan(100);
    }
  }

  @Test
  void theReportIsAFileLikeTheResults() throws IOException {
    assertThat(Files.getPosixFilePermissions(report))
        .isEqualTo(Files.getPosixFilePermissions(dir.resolve("out.jsonl")));
    try (var files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString())).noneMatch(f -> f.endsWith(".tmp"));
    }
  }

  @Test
  void aCeilingFarAboveTheStartsIsNamedInsteadOfDrawn() throws IOException {
    try (MockServer fast =
        MockServer.start(
            Scenario.parse("{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{}]}]}"))) {
      Path in = dir.resolve("fast.jsonl");
      Files.write(in, BatchCommandTest.reads(fast, "/items/", 3), StandardCharsets.UTF_8);
      Path page = dir.resolve("fast.html");

      CliRun ran =
          BatchCommandTest.batch(
              "batch", in.toString(), "--rate", "1000000/s", "--html", page.toString());

      assertThat(ran.exitCode()).as(ran.err()).isZero();
      String text = Files.readString(page, StandardCharsets.UTF_8);
      assertThat(svg(text, "chart-starts"))
          .contains("data-series=\"starts\"")
          .doesNotContain("data-series=\"--rate");
      assertThat(text)
          .contains(
              "not drawn, being more than 5 times the most starts per second: the ceiling of"
                  + " --rate (1000000/s)");
    }
  }

  @Test
  void aStoppedRunWritesItsReportToo() throws IOException {
    try (MockServer quota =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{\"status\": 200},"
                    + " {\"status\": 429, \"headers\": {\"Retry-After\": \"7200\"}}]}]}"))) {
      Path in = dir.resolve("quota.jsonl");
      Files.write(in, BatchCommandTest.reads(quota, "/items/", 4), StandardCharsets.UTF_8);
      Path page = dir.resolve("quota.html");
      Path journal = dir.resolve("quota.journal");

      CliRun stopped =
          BatchCommandTest.batch(
              "batch",
              in.toString(),
              "--rate",
              "50/s",
              "--concurrency",
              "1",
              "--journal",
              journal.toString(),
              "--html",
              page.toString());

      assertThat(stopped.exitCode()).isEqualTo(ExitCodes.DEADLINE);
      String text = Files.readString(page, StandardCharsets.UTF_8);
      assertThat(text)
          .contains("4 requests in ")
          .contains(": 1 succeeded, 0 failed, 3 not finished.")
          .contains(
              "<strong>Stopped:</strong> the quota of endpoint GET 127.0.0.1:"
                  + quota.port()
                  + "/items/{id} is exhausted (HTTP 429 with Retry-After: 7200); it resets at ")
          .contains("; 2 not sent.");
      assertThat(row(text, "table-results", "not-sent (not final)"))
          .containsExactly("not-sent (not final)", "2");
      assertThat(row(text, "table-results", "quota-exhausted (not final)"))
          .containsExactly("quota-exhausted (not final)", "1");
      assertThat(Files.readString(journal)).contains("\"not-sent\"");
    }
  }

  @Test
  void aReportPathThatCannotBeWrittenIsAUsageErrorBeforeAnythingIsSent() throws IOException {
    try (MockServer quiet =
        MockServer.start(
            Scenario.parse("{\"routes\": [{\"path\": \"/items/*\", \"steps\": [{}]}]}"))) {
      Path in = dir.resolve("quiet.jsonl");
      Files.write(in, BatchCommandTest.reads(quiet, "/items/", 2), StandardCharsets.UTF_8);
      Path aFile = dir.resolve("a-file");
      Files.writeString(aFile, "x");
      Path out = dir.resolve("quiet-out.jsonl");

      CliRun missing =
          BatchCommandTest.batch(
              "batch", in.toString(), "--html", dir.resolve("no/such/dir/r.html").toString());
      assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(missing.err())
          .contains("--html " + dir.resolve("no/such/dir/r.html"))
          .contains("does not exist; create it first, or give a file in an existing directory");

      CliRun underAFile =
          BatchCommandTest.batch(
              "batch", in.toString(), "--html", aFile.resolve("r.html").toString());
      assertThat(underAFile.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(underAFile.err()).contains("is not a directory; create it first");

      CliRun aDirectory = BatchCommandTest.batch("batch", in.toString(), "--html", dir.toString());
      assertThat(aDirectory.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(aDirectory.err()).contains("is a directory; give a file name, e.g. report.html");

      CliRun overTheResults =
          BatchCommandTest.batch(
              "batch", in.toString(), "--out", out.toString(), "--html", out.toString());
      assertThat(overTheResults.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(overTheResults.err()).contains("is also --out; give the report a file of its own");

      CliRun overTheInput = BatchCommandTest.batch("batch", in.toString(), "--html", in.toString());
      assertThat(overTheInput.exitCode()).isEqualTo(ExitCodes.USAGE);
      assertThat(overTheInput.err()).contains("is also the input");

      assertThat(quiet.journal()).as("nothing was sent").isEmpty();
      assertThat(out).doesNotExist();
      assertThat(Files.readString(in)).contains("/items/1");
    }
  }

  // ------------------------------------------------------------------ reading the page

  /** The cells of the row of table {@code id} whose first cell is {@code first}. */
  private static List<String> row(String page, String id, String first) {
    String table = table(page, id);
    for (String tr : table.split("</tr>")) {
      List<String> cells = cells(tr);
      if (!cells.isEmpty() && cells.get(0).equals(first)) {
        return cells;
      }
    }
    throw new AssertionError("no row " + first + " in " + id + ": " + table);
  }

  private static String firstCell(String page, String id) {
    String[] rows = table(page, id).split("</tr>");
    return cells(rows[1]).get(0);
  }

  private static List<String> cells(String tr) {
    List<String> cells = new ArrayList<>();
    Matcher m = Pattern.compile("<td>([^<]*)</td>").matcher(tr);
    while (m.find()) {
      cells.add(m.group(1));
    }
    return cells;
  }

  private static String table(String page, String id) {
    int start = page.indexOf("<table id=\"" + id + "\">");
    assertThat(start).as("table %s", id).isNotNegative();
    return page.substring(start, page.indexOf("</table>", start));
  }

  private static String svg(String dom, String id) {
    Matcher m = Pattern.compile("<svg [^>]*id=\"" + Pattern.quote(id) + "\"").matcher(dom);
    assertThat(m.find()).as("chart %s in the page", id).isTrue();
    return dom.substring(m.start(), dom.indexOf("</svg>", m.start()));
  }

  private static String group(String page, String chart, String request) {
    String svg = svg(page, chart);
    int start = svg.indexOf("<g class=\"request\" data-id=\"" + request + "\">");
    assertThat(start).as("request %s in %s", request, chart).isNotNegative();
    return svg.substring(start, svg.indexOf("</g>", start));
  }

  private static String points(String dom, String chart, String series) {
    Matcher m =
        Pattern.compile(
                "data-series=\"" + Pattern.quote(series) + "\" data-points=\"([^\"]*)\" d=\"M")
            .matcher(svg(dom, chart));
    assertThat(m.find()).as("series %s in %s", series, chart).isTrue();
    return m.group(1);
  }

  private static void assertSeries(String dom, String chart, String... series) {
    for (String s : series) {
      assertThat(points(dom, chart, s)).as("points of %s in %s", s, chart).isNotEmpty();
    }
  }

  private static boolean close(int a, int b) {
    return Math.abs(((a >> 16) & 0xff) - ((b >> 16) & 0xff)) <= 12
        && Math.abs(((a >> 8) & 0xff) - ((b >> 8) & 0xff)) <= 12
        && Math.abs((a & 0xff) - (b & 0xff)) <= 12;
  }
}
