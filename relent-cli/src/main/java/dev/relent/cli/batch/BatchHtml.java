package dev.relent.cli.batch;

import static dev.relent.chart.Svg.f;
import static dev.relent.chart.Svg.line;
import static dev.relent.chart.Svg.text;

import dev.relent.chart.Html;
import dev.relent.chart.LineChart;
import dev.relent.chart.Svg;
import dev.relent.cli.common.Format;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes the HTML report of {@code relent batch --html} from what the {@link BatchReport} collected
 * and what the run counted, with relent-charts' page and chart writers ({@link Html}, {@link Svg},
 * {@link LineChart}): headline figures; starts per second against the configured rate and the pace
 * the pacer had; attempt outcomes per second by kind (2xx/3xx, 429, other 4xx, 5xx, no answer); the
 * most attempts in flight against the limit; latency percentiles of attempts and of requests; how
 * requests ended; the slowest and the first failed requests, each with its attempt timeline. The
 * page is self-contained (inline CSS and SVG, no script, nothing fetched); URLs and errors are the
 * redacted ones the results hold, and no header is shown. Stateless.
 */
final class BatchHtml {
  private static final String STARTS = "#2563eb";
  private static final String CEILING = "#9ca3af";
  private static final String PACE = "#0891b2";
  private static final String IN_FLIGHT = "#7c3aed";
  private static final String REQUESTS = "#db2777";
  private static final double[] PERCENTILES = {50, 90, 99, 99.9, 100};

  /** A reference line more than this many times the most starts per second is not drawn. */
  private static final double OFF_CHART = 5;

  private BatchHtml() {}

  /**
   * Writes the page to {@code file}, through a temporary file in the same directory moved into
   * place, so that a reader never sees half a report.
   *
   * @throws IOException if it cannot be written
   */
  static void write(Path file, String page) throws IOException {
    Path target = file.toAbsolutePath();
    Path tmp = temporary(target);
    try {
      Files.writeString(tmp, page, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
      try {
        Files.move(
            tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * A name for the temporary file beside {@code target}: {@code .NAME.PID-N.tmp}. Created with the
   * default permissions of a new file (as {@code --out} is), unlike {@link Files#createTempFile}'s
   * owner-only ones.
   */
  static Path temporary(Path target) {
    return target.resolveSibling(
        "."
            + target.getFileName()
            + "."
            + ProcessHandle.current().pid()
            + "-"
            + TEMPORARIES.incrementAndGet()
            + ".tmp");
  }

  private static final AtomicLong TEMPORARIES = new AtomicLong();

  /**
   * The page.
   *
   * @param input the input file's name, shown in the heading
   * @param run the run, ended
   * @param report what was collected
   * @param finishedBefore requests finished in earlier runs of the journal (not in these figures)
   * @param writtenAt when the report is written
   */
  static String page(
      String input, BatchRun run, BatchReport report, int finishedBefore, Instant writtenAt) {
    BatchReport.View v = report.view();
    BatchRecorder.Counts counts = run.counts();
    BatchSettings settings = run.settings();
    long successes = counts.successes.sum();
    long failures = counts.failed();
    long open = counts.notFinished();
    Duration elapsed = Duration.ofNanos(run.timeline().elapsedNanos());
    String lead =
        Html.escape(
            run.total()
                + (run.total() == 1 ? " request" : " requests")
                + " in "
                + Format.duration(elapsed)
                + ": "
                + successes
                + " succeeded, "
                + failures
                + " failed, "
                + open
                + " not finished"
                + (finishedBefore > 0
                    ? " (" + finishedBefore + " finished in earlier runs, not counted here)"
                    : "")
                + ".");
    if (run.stopReason() != null) {
      lead += " <strong>Stopped:</strong> " + Html.escape(run.stopDetail()) + ".";
    } else {
      for (QuotaStop q : run.quotaStops()) {
        lead +=
            " <strong>Stopped:</strong> "
                + Html.escape(q.describe(run.clock()) + "; " + q.notSent() + " not sent")
                + ".";
      }
    }
    Html html = new Html("relent batch: " + input, lead);
    html.paragraph(
        "meta",
        Html.escape(
            "Written "
                + writtenAt
                + ". Pacer: "
                + (settings.rate() == null
                    ? "adaptive per scope, no --rate (each scope learns its rate from its 429s and"
                        + " rate-limit headers)"
                    : "--rate "
                        + settings.rate()
                        + " (a ceiling for the whole queue; each scope's 429s and headers slow that"
                        + " scope)")
                + (settings.shared() != null ? ", " + settings.shared().describe() : "")
                + "; --concurrency "
                + settings.concurrency()
                + ". Times are from the start of the run."));
    html.headline(
        Long.toString(successes),
        "succeeded",
        Long.toString(failures),
        "failed (final)",
        Long.toString(open),
        "not finished",
        Integer.toString(run.timeline().tooManyRequestsSeen()),
        "429s seen",
        millis(v.attempts().percentile(50)),
        "attempt latency p50",
        millis(v.attempts().percentile(99)),
        "attempt latency p99",
        Integer.toString(run.timeline().peakInFlight()),
        "most in flight (limit " + settings.concurrency() + ")");

    double w = v.bucketNanos() / 1e9;
    String per = w == 1 ? "per second" : "per second, over " + LineChart.label(w) + " s buckets";
    int n = v.buckets();
    double[] xs = new double[n];
    for (int i = 0; i < n; i++) {
      xs[i] = i * w;
    }
    String xLabel = "time since the start (s)";

    html.section("Starts");
    LineChart starts =
        new LineChart("chart-starts", "Attempt starts " + per, xLabel, "starts/s").linesOnly();
    double[] startRates = perSecond(v.starts(), w);
    starts.series("starts", STARTS, false, xs, startRates);
    // A ceiling or a pace far above what was reached would flatten the starts to the axis: such a
    // line is named in the caption instead of drawn.
    double most = 0;
    for (double r : startRates) {
      most = Math.max(most, r);
    }
    double shown = Math.max(1, most) * OFF_CHART;
    List<String> notDrawn = new ArrayList<>();
    String caption =
        "Attempts started in each "
            + LineChart.label(w)
            + " s, retries included, as starts per"
            + " second";
    if (settings.rate() != null) {
      double ceiling = settings.rate().perSecond();
      if (ceiling <= shown) {
        double[] line = new double[n];
        Arrays.fill(line, ceiling);
        starts.series("--rate " + settings.rate(), CEILING, true, xs, line);
        caption += "; the dashed grey line is the ceiling of --rate";
      } else {
        notDrawn.add("the ceiling of --rate (" + Format.number(ceiling) + "/s)");
      }
    }
    List<Double> px = new ArrayList<>();
    List<Double> py = new ArrayList<>();
    double fastestPace = 0;
    for (int i = 0; i < n; i++) {
      if (v.paceNanos()[i] > 0) {
        px.add(xs[i]);
        py.add(1e9 / v.paceNanos()[i]);
        fastestPace = Math.max(fastestPace, 1e9 / v.paceNanos()[i]);
      }
    }
    if (px.isEmpty()) {
      caption += "; the pacer did not pace (no 429 or rate-limit header slowed it)";
    } else if (fastestPace <= shown) {
      starts.series("pacer's pace", PACE, true, array(px), array(py));
      caption +=
          "; the dashed blue line is the pace the pacer had as attempts started (the rate it"
              + " learned from 429s and rate-limit headers, under the ceiling)";
    } else {
      notDrawn.add("the pacer's pace (up to " + Format.number(fastestPace) + "/s)");
    }
    if (!notDrawn.isEmpty()) {
      caption +=
          "; not drawn, being more than "
              + LineChart.label(OFF_CHART)
              + " times the most starts per second: "
              + String.join(" and ", notDrawn);
    }
    html.figure(starts, caption + ".");

    html.section("Outcomes");
    LineChart outcomes =
        new LineChart("chart-outcomes", "Attempt outcomes " + per, xLabel, "attempts/s")
            .linesOnly();
    List<List<String>> kindRows = new ArrayList<>();
    for (BatchReport.Kind k : BatchReport.Kind.values()) {
      long count = v.byKind()[k.ordinal()];
      if (count > 0) {
        outcomes.series(k.label, k.color, false, xs, perSecond(v.outcomes()[k.ordinal()], w));
      }
      kindRows.add(List.of(k.label, Long.toString(count)));
    }
    html.figure(
        outcomes,
        "Attempts that ended in each "
            + LineChart.label(w)
            + " s, by how they ended: "
            + String.join(", ", kindTotals(v))
            + (v.byKind()[BatchReport.Kind.NO_ANSWER.ordinal()] > 0
                ? " (no answer: a network fault or a timeout)"
                : "")
            + ".");
    html.table("table-attempts", List.of("attempts that ended with", "attempts"), kindRows);
    html.table("table-results", List.of("requests that ended", "requests"), results(counts));

    html.section("In flight");
    LineChart inFlight =
        new LineChart(
                "chart-in-flight",
                "Most attempts in flight in each " + LineChart.label(w) + " s",
                xLabel,
                "attempts")
            .linesOnly();
    double[] peak = new double[n];
    double[] limit = new double[n];
    for (int i = 0; i < n; i++) {
      peak[i] = v.peakInFlight()[i];
      limit[i] = settings.concurrency();
    }
    inFlight.series("in flight", IN_FLIGHT, false, xs, peak);
    inFlight.series("--concurrency " + settings.concurrency(), CEILING, true, xs, limit);
    html.figure(
        inFlight,
        "The most attempts on the wire at once in each interval, against the concurrency limit.");

    html.section("Latency");
    LineChart latency =
        new LineChart("chart-latency", "Latency percentiles", "percentile", "latency (ms)");
    double[] ps = new double[101];
    double[] att = new double[101];
    double[] req = new double[101];
    for (int i = 0; i <= 100; i++) {
      ps[i] = i;
      att[i] = v.attempts().percentile(Math.max(i, 0.0001)) / 1e6;
      req[i] = v.requests().percentile(Math.max(i, 0.0001)) / 1e6;
    }
    latency.linesOnly();
    if (v.attempts().count() > 0) {
      latency.series("attempts", STARTS, false, ps, att);
    }
    if (v.requests().count() > 0) {
      latency.series("requests", REQUESTS, true, ps, req);
    }
    html.figure(
        latency,
        "How long attempts took (one network exchange) and how long requests took (from their"
            + " turn to their outcome: the pacer, the retries and their waits included), as"
            + " percentiles within about 3 %.");
    List<String> header = new ArrayList<>(List.of("", "count", "min"));
    for (double p : PERCENTILES) {
      header.add(p == 100 ? "max" : "p" + LineChart.label(p));
    }
    html.table(
        "table-latency",
        header,
        List.of(latencyRow("attempts", v.attempts()), latencyRow("requests", v.requests())));

    kept(
        html,
        "Slowest requests",
        "slowest",
        "The slowest requests",
        v.slowest(),
        "No request reached the network.",
        "The "
            + v.slowest().size()
            + " slowest requests, from their turn to their outcome: each attempt a bar colored"
            + " by how it ended, the wait chosen after it a thin amber line; the grey band is"
            + " the time "
            + WAITING
            + ".");
    kept(
        html,
        "Failed requests",
        "failed",
        "The first failed requests",
        v.failed(),
        "No request that reached the network failed.",
        (v.failedCount() > v.failed().size()
                ? "The first " + v.failed().size() + " of " + v.failedCount()
                : "The " + v.failedCount())
            + " requests that were sent and did not succeed, in the order they ended.");
    return withStyle(html.page("relent batch: " + input));
  }

  /** What the legend calls the grey band of a request's turn, as the captions do. */
  static final String WAITING = "waiting for the pacer, the limit or a paused scope";

  /**
   * The report's own rules, after the shared style sheet's: the text columns of the request tables
   * (the URL, the error, which run long) align left; the numbers stay right.
   */
  private static String withStyle(String page) {
    List<String> header = keptHeader();
    StringBuilder css = new StringBuilder();
    for (String table : List.of("table-slowest", "table-failed")) {
      for (String column : List.of("URL", "error")) {
        int n = header.indexOf(column) + 1;
        css.append(css.length() == 0 ? "" : ",")
            .append('#')
            .append(table)
            .append(" td:nth-child(")
            .append(n)
            .append("),#")
            .append(table)
            .append(" th:nth-child(")
            .append(n)
            .append(')');
      }
    }
    css.append("{text-align:left}");
    int at = page.indexOf("</style>");
    return page.substring(0, at) + css + page.substring(at);
  }

  private static List<String> kindTotals(BatchReport.View v) {
    List<String> parts = new ArrayList<>();
    for (BatchReport.Kind k : BatchReport.Kind.values()) {
      long count = v.byKind()[k.ordinal()];
      if (count > 0) {
        parts.add(count + " " + k.label);
      }
    }
    return parts.isEmpty() ? List.of("none") : parts;
  }

  private static List<List<String>> results(BatchRecorder.Counts counts) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("success", Long.toString(counts.successes.sum())));
    for (Map.Entry<String, LongAdder> e : counts.failures.entrySet()) {
      rows.add(List.of(e.getKey() + " (final)", Long.toString(e.getValue().sum())));
    }
    for (Map.Entry<String, LongAdder> e : counts.open.entrySet()) {
      rows.add(List.of(e.getKey() + " (not final)", Long.toString(e.getValue().sum())));
    }
    return rows;
  }

  private static List<String> latencyRow(String what, LatencyHistogram h) {
    List<String> row = new ArrayList<>(List.of(what, Long.toString(h.count()), millis(h.min())));
    for (double p : PERCENTILES) {
      row.add(millis(h.percentile(p)));
    }
    return row;
  }

  /**
   * A section of kept requests: their timeline ({@code timeline-NAME}) and their table ({@code
   * table-NAME}), or {@code none} when there are none.
   */
  private static void kept(
      Html html,
      String heading,
      String name,
      String title,
      List<BatchReport.Kept> kept,
      String none,
      String caption) {
    html.section(heading);
    if (kept.isEmpty()) {
      html.paragraph(null, none);
    } else {
      html.figure(timeline("timeline-" + name, title, kept), caption);
      html.table("table-" + name, keptHeader(), keptRows(kept));
    }
  }

  private static List<String> keptHeader() {
    return List.of(
        "id", "line", "method", "URL", "outcome", "status", "attempts", "elapsed", "error");
  }

  private static List<List<String>> keptRows(List<BatchReport.Kept> kept) {
    List<List<String>> rows = new ArrayList<>();
    for (BatchReport.Kept k : kept) {
      rows.add(
          List.of(
              k.id(),
              Integer.toString(k.line()),
              k.method(),
              k.url(),
              k.outcome(),
              k.status() < 0 ? "" : Integer.toString(k.status()),
              Integer.toString(k.attemptCount()),
              millis(k.elapsedNanos()),
              k.error() == null ? "" : k.error()));
    }
    return rows;
  }

  // ------------------------------------------------------------------ attempt timelines

  private static final int WIDTH = 760;
  private static final int LABEL = 200;
  private static final int RIGHT = 40;
  private static final int TOP = 60;
  private static final int ROW = 26;
  private static final int LEGEND = 66;
  private static final String WAIT = "#f59e0b";
  private static final String TURN = "#e5e7eb";

  /**
   * One row per request, on a shared axis of milliseconds since its turn began: the turn as a grey
   * band, each attempt a {@code <rect class="attempt">} in the color of its kind with a title
   * saying what happened, each wait after an attempt a {@code <line class="wait">}.
   */
  static String timeline(String id, String title, List<BatchReport.Kept> rows) {
    long span = 1;
    for (BatchReport.Kept k : rows) {
      span = Math.max(span, k.elapsedNanos());
      for (BatchReport.Attempt a : k.attempts()) {
        span = Math.max(span, a.startNanos() - k.beginNanos() + Math.max(0, a.durationNanos()));
      }
    }
    double[] ticks = LineChart.ticks(0, span / 1e6);
    double hi = ticks[ticks.length - 1];
    double plot = WIDTH - LABEL - RIGHT;
    int height = TOP + rows.size() * ROW + LEGEND;
    int bottom = TOP + rows.size() * ROW;
    StringBuilder sb = new StringBuilder();
    Svg.open(sb, "chart timeline", id, WIDTH, height, "", title);
    text(sb, WIDTH / 2.0, 20, "middle", "chart-title", title);
    for (double t : ticks) {
      double x = LABEL + t / hi * plot;
      line(sb, "grid", f(x), f(x), TOP - 4, bottom, "stroke=\"#f1f5f9\"");
      text(sb, x, TOP - 8, "middle", "tick", LineChart.label(t) + (t == hi ? " ms" : ""));
    }
    Set<BatchReport.Kind> seen = EnumSet.noneOf(BatchReport.Kind.class);
    for (int r = 0; r < rows.size(); r++) {
      BatchReport.Kept k = rows.get(r);
      double y = TOP + r * ROW + 4;
      double h = ROW - 8;
      sb.append("<g class=\"request\" data-id=\"").append(Html.escape(k.id())).append("\">\n");
      String name = k.id().length() > 20 ? k.id().substring(0, 19) + "…" : k.id();
      text(
          sb,
          LABEL - 8,
          y + h / 2 + 4,
          "end",
          "row-label",
          name + " · " + millis(k.elapsedNanos()));
      rect(
          sb,
          "turn",
          "",
          LABEL,
          y + h / 2 - 3,
          Math.max(1, k.elapsedNanos() / 1e6 / hi * plot),
          6,
          TURN,
          k.id()
              + ": turn at "
              + seconds(k.beginNanos())
              + " s, "
              + k.outcome()
              + " after "
              + millis(k.elapsedNanos())
              + (k.attemptCount() > k.attempts().size()
                  ? " ("
                      + k.attemptCount()
                      + " attempts, the first "
                      + k.attempts().size()
                      + " shown)"
                  : ""));
      for (BatchReport.Attempt a : k.attempts()) {
        BatchReport.Kind kind = a.kind();
        seen.add(kind);
        double startMs = (a.startNanos() - k.beginNanos()) / 1e6;
        double durMs = Math.max(0, a.durationNanos()) / 1e6;
        double x = LABEL + startMs / hi * plot;
        double width = Math.max(2, durMs / hi * plot);
        String what =
            "attempt "
                + a.number()
                + " at +"
                + millis(a.startNanos() - k.beginNanos())
                + ": "
                + a.outcome()
                + (a.durationNanos() >= 0 ? ", " + millis(a.durationNanos()) : "")
                + (a.waitNanos() > 0 ? "; then a wait of " + millis(a.waitNanos()) : "");
        rect(
            sb,
            "attempt",
            " data-kind=\"" + Html.escape(kind.label) + "\"",
            x,
            y,
            width,
            h,
            kind.color,
            what);
        if (a.waitNanos() > 0) {
          double x1 = x + width;
          double x2 = LABEL + (startMs + durMs + a.waitNanos() / 1e6) / hi * plot;
          sb.append("<line class=\"wait\" x1=\"")
              .append(f(x1))
              .append("\" x2=\"")
              .append(f(Math.max(x1 + 1, x2)))
              .append("\" y1=\"")
              .append(f(y + h / 2))
              .append("\" y2=\"")
              .append(f(y + h / 2))
              .append("\" stroke=\"")
              .append(WAIT)
              .append("\" stroke-width=\"2\"><title>")
              .append(Html.escape("wait of " + millis(a.waitNanos()) + " before the retry"))
              .append("</title></line>\n");
        }
      }
      sb.append("</g>\n");
    }
    double lx = 20;
    double ly = bottom + 24;
    for (BatchReport.Kind kind : seen) {
      rect(sb, "legend-box", "", lx, ly - 9, 14, 10, kind.color, kind.label);
      text(sb, lx + 18, ly, "start", "legend", kind.label);
      lx += 28 + kind.label.length() * 7;
    }
    // A second row: what the grey band and the amber line are.
    lx = 20;
    ly += 22;
    rect(sb, "legend-box", "", lx, ly - 7, 14, 6, TURN, WAITING);
    text(sb, lx + 18, ly, "start", "legend", WAITING);
    lx += 28 + WAITING.length() * 7;
    line(
        sb,
        "legend-line",
        f(lx),
        f(lx + 20),
        f(ly - 4),
        f(ly - 4),
        "stroke=\"" + WAIT + "\" stroke-width=\"2\"");
    text(sb, lx + 24, ly, "start", "legend", "wait before a retry");
    sb.append("</svg>\n");
    return sb.toString();
  }

  /**
   * A {@code <rect>} of the given class with a title (shown on hover), {@code attributes} (each
   * with a leading space, or empty) written after the class.
   */
  private static void rect(
      StringBuilder sb,
      String cls,
      String attributes,
      double x,
      double y,
      double w,
      double h,
      String fill,
      String title) {
    sb.append("<rect class=\"")
        .append(cls)
        .append('"')
        .append(attributes)
        .append(" x=\"")
        .append(f(x))
        .append("\" y=\"")
        .append(f(y))
        .append("\" width=\"")
        .append(f(w))
        .append("\" height=\"")
        .append(f(h))
        .append("\" fill=\"")
        .append(fill)
        .append("\"><title>")
        .append(Html.escape(title))
        .append("</title></rect>\n");
  }

  private static double[] perSecond(long[] counts, double width) {
    double[] out = new double[counts.length];
    for (int i = 0; i < counts.length; i++) {
      out[i] = counts[i] / width;
    }
    return out;
  }

  private static double[] array(List<Double> values) {
    double[] out = new double[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  /** Milliseconds for people: {@code 0.25 ms}, {@code 12 ms}, {@code 1500 ms}. */
  static String millis(long nanos) {
    double ms = nanos / 1e6;
    return (ms >= 10 ? Long.toString(Math.round(ms)) : Format.number(ms)) + " ms";
  }

  private static String seconds(long nanos) {
    return Format.number(nanos / 1e9);
  }
}
