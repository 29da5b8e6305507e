package dev.relent.sim;

import static dev.relent.sim.Numbers.fixed;

import dev.relent.sim.Limiters.Measured;
import dev.relent.sim.Limiters.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What the text table, the comparison and the HTML report of a {@link Limiters} run say. */
final class LimitersReport {
  private LimitersReport() {}

  static String table(Limiters.Result r) {
    return "Real limiters (bench/limiters.sh), predicted: relent batch --concurrency 4 (a fleet: 4"
        + " processes x --concurrency 2 sharing Redis), the real BRACKET pacers and executor on"
        + " virtual time; "
        + r.figuresOf()
        + "\ntime: from the launch to the last exit, the JVM's start and end included; 429s"
        + " and their share of every request, at the limiter\n\n"
        + r.table(r.rows()).text();
  }

  /** The comparison's columns. */
  static final List<String> COMPARE_HEADER =
      List.of(
          "case",
          "runs",
          "real time (s)",
          "predicted (s)",
          "error",
          "real 429 %",
          "predicted 429 %",
          "429 error");

  /** A line per case the run and the measurements both have. */
  static List<List<String>> compareRows(Limiters.Result r, Map<String, Measured> measured) {
    List<List<String>> rows = new ArrayList<>();
    for (Row row : r.rows()) {
      Measured m = measured.get(row.scenario().label());
      if (m == null) {
        continue;
      }
      rows.add(
          List.of(
              row.scenario().label(),
              String.valueOf(m.runs()),
              fixed(m.seconds(), 1),
              fixed(row.timeSeconds(), 1),
              signedPercent(row.timeSeconds() / m.seconds() - 1),
              fixed(100 * m.share(), 1),
              fixed(100 * row.share(), 1),
              (row.share() >= m.share() ? "+" : "")
                  + fixed(100 * (row.share() - m.share()), 1)
                  + " pt"));
    }
    return rows;
  }

  static String compare(Limiters.Result r, Map<String, Measured> measured) {
    List<List<String>> rows = compareRows(r, measured);
    if (rows.isEmpty()) {
      return "no case of the measurements is in the run\n";
    }
    return "Real (the medians of the bench's results.tsv) vs predicted ("
        + r.figuresOf()
        + "); error = predicted / real - 1\n\n"
        + Table.ofCells(COMPARE_HEADER, rows).text();
  }

  private static String signedPercent(double v) {
    return (v >= 0 ? "+" : "") + fixed(100 * v, 1) + " %";
  }

  static String html(Limiters.Result r) {
    Table table = r.table(r.rows());
    return r.report(
            "relent batch against real rate limiters, predicted",
            "The cases of <code>bench/limiters.sh</code> on virtual time: relent-core's real"
                + " executor, BRACKET pacers and concurrency limit, configured as <code>relent"
                + " batch</code> configures them, against models of nginx <code>limit_req</code>,"
                + " HAProxy's sliding counter and <code>bench/HeaderLimiter.java</code>'s windows,"
                + " with the JVM's start and end, the loopback round trips and, for the fleet,"
                + " Redis.",
            " per case")
        .section("Numbers")
        .table("table-limiters", table.header(), table.rows())
        .list(
            "What each figure is",
            "<code>time</code>: from the launch to the exit of the last process, as the bench"
                + " times <code>./relent batch</code>; <code>±</code> its standard deviation over"
                + " the trials.",
            "<code>minimum</code>: the earliest the limiter lets the last request through, the"
                + " first passing at 0 (the bench's).",
            "<code>429s</code> and their share: of every request the limiter saw, retries"
                + " included; <code>failed</code>: requests whose retries ran out (exit 4).",
            "<code>first</code>: when the limiter saw the first request, from the launch.")
        .page("Relent simulation: real limiters");
  }
}
