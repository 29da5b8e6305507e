package dev.relent.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.chart.Chromium;
import dev.relent.chart.LineChart;
import dev.relent.chart.Png;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders each model's HTML report in real headless Chromium (Debian's {@code chromium} package,
 * installed by {@code scripts/ensure-chromium.sh}) and checks that the charts made it to the
 * screen: the DOM Chromium built holds every chart and series with its data, and a screenshot shows
 * the series in their colors. Fails, never skips, when Chromium is missing.
 */
class ReportRenderingTest {
  @TempDir static Path dir;

  private static ModelResult contention;
  private static ModelResult storm;
  private static ModelResult queue;

  @BeforeAll
  static void runModels() {
    contention = Contention.builder().withTrials(2).build().run();
    storm = Storm.builder().withTrials(1).build().run();
    queue = PacedQueue.builder().withTrials(1).build().run();
  }

  @Test
  void theContentionReportRendersBothChartsWithEveryStrategy() throws Exception {
    String dom = dumpDom(contention);
    assertCharts(dom, List.of("chart-calls", "chart-time"), labels(Contention.Strategy.values()));
    // The data is in the picture: the calls of full jitter at N = 10 from the run itself.
    Contention.Row full10 = ((Contention.Result) contention).row(Contention.Strategy.FULL, 10);
    assertThat(seriesPoints(dom, "chart-calls", "full"))
        .startsWith("10:" + label(full10.calls()) + " ");
    assertThat(dom).contains("<table id=\"table-calls\">").contains("<table id=\"table-time\">");
    assertPainted(contention, Map.of("full", 0x16a34a, "exponential", 0xdc2626, "none", 0x6b7280));
  }

  @Test
  void theStormReportRendersTheLoadChart() throws Exception {
    String dom = dumpDom(storm);
    List<String> series = new ArrayList<>(labels(Storm.Strategy.values()));
    series.add("capacity");
    assertCharts(dom, List.of("chart-load"), series);
    assertThat(dom).contains("service stalled").contains("<table id=\"table-storm\">");
    assertPainted(storm, Map.of("naive", 0x111827, "full", 0x16a34a, "backoff", 0xdc2626));
  }

  @Test
  void theQueueReportRendersProgressAnd429Charts() throws Exception {
    String dom = dumpDom(queue);
    assertCharts(
        dom,
        List.of("chart-progress", "chart-progress-shared"),
        labels(PacedQueue.Strategy.values()));
    // On the log scale only the strategies that got 429s have a line; the others say so.
    assertCharts(dom, List.of("chart-429"), List.of("burst", "relent-unknown"));
    assertThat(svg(dom, "chart-429")).contains(">fixed-90: all zero</text>");
    assertThat(dom).contains("physical limit 300 s").contains("<table id=\"table-queue\">");
    assertPainted(queue, Map.of("burst", 0x111827, "fixed-90", 0x2563eb, "aimd", 0x92400e));
  }

  @Test
  void theReportsNeedNoNetworkAndNoScript() {
    for (ModelResult r : List.of(contention, storm, queue)) {
      String html = r.html();
      assertThat(html).startsWith("<!DOCTYPE html>").doesNotContainIgnoringCase("<script");
      // The only URL is the SVG namespace, which is a name, not a fetch.
      assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http");
      assertThat(html).doesNotContain("src=").doesNotContain("<link");
    }
  }

  private static void assertCharts(String dom, List<String> charts, List<String> series) {
    for (String chart : charts) {
      String svg = svg(dom, chart);
      for (String s : series) {
        Matcher m =
            Pattern.compile(
                    "<path class=\"series\" data-series=\""
                        + Pattern.quote(s)
                        + "\" data-points=\"[^\"]*\" d=\"(M[^\"]+)\"")
                .matcher(svg);
        assertThat(m.find()).as("series %s in %s", s, chart).isTrue();
        assertThat(m.group(1).split("L").length)
            .as("points of %s in %s", s, chart)
            .isGreaterThan(1);
      }
    }
  }

  private static List<String> labels(Legend... strategies) {
    return Arrays.stream(strategies).map(Legend::label).toList();
  }

  private static String svg(String dom, String id) {
    int start = dom.indexOf("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"" + id);
    assertThat(start).as("chart %s in the rendered DOM", id).isNotNegative();
    int end = dom.indexOf("</svg>", start);
    return dom.substring(start, end);
  }

  private static String seriesPoints(String dom, String chart, String series) {
    Matcher m =
        Pattern.compile("data-series=\"" + Pattern.quote(series) + "\" data-points=\"([^\"]*)\"")
            .matcher(svg(dom, chart));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }

  private static String label(double v) {
    return LineChart.label(v);
  }

  /** Takes a screenshot and checks that each series' color was painted, and not just a few dots. */
  private static void assertPainted(ModelResult result, Map<String, Integer> colors)
      throws Exception {
    Path html = write(result);
    Png image =
        new Chromium(dir).screenshot(html, 1100, 2600, dir.resolve(result.model() + ".png"));
    assertThat(image.width()).as("screenshot width").isEqualTo(1100);
    Set<Integer> distinct = new HashSet<>();
    int[] counts = new int[colors.size()];
    List<Integer> wanted = new ArrayList<>(colors.values());
    for (int y = 0; y < image.height(); y++) {
      for (int x = 0; x < image.width(); x++) {
        int rgb = image.rgb(x, y);
        distinct.add(rgb);
        for (int i = 0; i < wanted.size(); i++) {
          if (close(rgb, wanted.get(i))) {
            counts[i]++;
          }
        }
      }
    }
    assertThat(distinct.size()).as("distinct colors in the screenshot").isGreaterThan(100);
    int i = 0;
    for (String name : colors.keySet()) {
      assertThat(counts[i++]).as("pixels painted in the color of %s", name).isGreaterThan(200);
    }
  }

  private static boolean close(int a, int b) {
    return Math.abs(((a >> 16) & 0xff) - ((b >> 16) & 0xff)) <= 12
        && Math.abs(((a >> 8) & 0xff) - ((b >> 8) & 0xff)) <= 12
        && Math.abs((a & 0xff) - (b & 0xff)) <= 12;
  }

  private static String dumpDom(ModelResult result) throws Exception {
    return new Chromium(dir).dumpDom(write(result));
  }

  private static Path write(ModelResult result) throws IOException {
    Path html = dir.resolve(result.model() + ".html");
    Files.writeString(html, result.html(), StandardCharsets.UTF_8);
    return html;
  }
}
