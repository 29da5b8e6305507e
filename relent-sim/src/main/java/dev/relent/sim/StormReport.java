package dev.relent.sim;

import dev.relent.sim.internal.Html;
import dev.relent.sim.internal.LineChart;
import java.util.ArrayList;
import java.util.List;

/** The text table and HTML report of a {@link Storm} run. */
final class StormReport {
  private StormReport() {}

  private static final List<String> HEADER =
      List.of(
          "strategy",
          "peak load / normal",
          "extra calls",
          "recovery (s)",
          "failed requests",
          "attempts",
          "requests");

  private static List<List<String>> rows(Storm.Result r) {
    List<List<String>> rows = new ArrayList<>();
    for (Storm.Row row : r.rows()) {
      rows.add(
          List.of(
              row.strategy(),
              Numbers.fixed(row.amplification(), 2),
              Numbers.fixed(row.extraCalls(), 0),
              recovery(row),
              Numbers.fixed(row.failed(), 0),
              Numbers.fixed(row.attempts(), 0),
              Numbers.fixed(row.requests(), 0)));
    }
    return rows;
  }

  private static String recovery(Storm.Row row) {
    int window = Storm.ARRIVALS_SECONDS - Storm.STALL_END_SECONDS;
    return row.recoverySeconds() >= window
        ? ">= " + window
        : Numbers.fixed(row.recoverySeconds(), 1);
  }

  static String table(Storm.Result r) {
    return "Retry storm: "
        + Storm.RATE_PER_SECOND
        + " requests/s, capacity "
        + Storm.CAPACITY_PER_SECOND
        + "/s, the service fails everything from "
        + Storm.STALL_START_SECONDS
        + " s to "
        + Storm.STALL_END_SECONDS
        + " s; mean of "
        + r.trials()
        + (r.trials() == 1 ? " trial" : " trials")
        + ", seed "
        + r.seed()
        + "\n"
        + "peak load: most attempts in one second over the normal "
        + Storm.RATE_PER_SECOND
        + "/s; recovery: seconds after the stall until the load is <= 110 % of the arriving"
        + " requests and >= 99 % of them succeed\n\n"
        + Text.table(HEADER, rows(r));
  }

  static String html(Storm.Result r) {
    LineChart load =
        new LineChart(
                "chart-load",
                "Offered load over time",
                "time (s)",
                "attempts reaching the service per second")
            .linesOnly()
            .span(Storm.STALL_START_SECONDS, Storm.STALL_END_SECONDS, "service stalled");
    // Show the run up to shortly after the last attempt, in whole 5 s steps.
    int last = 0;
    for (Storm.Row row : r.rows()) {
      for (int i = 0; i < row.loadPerSecond().size(); i++) {
        if (row.loadPerSecond().get(i) > 0) {
          last = Math.max(last, i);
        }
      }
    }
    int binsPerStep = 5000 / Storm.BIN_MILLIS;
    int bins = Math.min(Storm.BINS, (last / binsPerStep + 2) * binsPerStep);
    double[] xs = new double[bins];
    for (int i = 0; i < bins; i++) {
      xs[i] = (i + 0.5) * Storm.BIN_MILLIS / 1000.0;
    }
    for (Storm.Row row : r.rows()) {
      double[] ys = new double[bins];
      for (int i = 0; i < bins; i++) {
        ys[i] = row.loadPerSecond().get(i);
      }
      load.series(row.strategy(), Palette.color(row.strategy()), false, xs, ys);
    }
    double[] capacity = new double[bins];
    java.util.Arrays.fill(capacity, Storm.CAPACITY_PER_SECOND);
    load.series("capacity", "#9ca3af", true, xs, capacity);

    Storm.Row naive = r.row("naive");
    Storm.Row full = r.row("full");
    Storm.Row budget = r.row("full+budget");
    Storm.Row breaker = r.row("full+budget+breaker");
    StringBuilder b = new StringBuilder();
    b.append("<h1>Retry storm: what retries do to a service that stalls</h1>\n");
    b.append("<p class=\"lead\">")
        .append(Storm.RATE_PER_SECOND)
        .append(" requests per second reach a service that can handle ")
        .append(Storm.CAPACITY_PER_SECOND)
        .append(" per second. From ")
        .append(Storm.STALL_START_SECONDS)
        .append(" s to ")
        .append(Storm.STALL_END_SECONDS)
        .append(" s it fails every request, then recovers. Each strategy is Relent's real")
        .append(" executor, backoff, retry budget and circuit breaker on virtual time.</p>\n");
    b.append("<p class=\"meta\">Mean of ")
        .append(r.trials())
        .append(r.trials() == 1 ? " trial" : " trials")
        .append(", seed ")
        .append(r.seed())
        .append(". Reproduce: <code>relent simulate storm --seed ")
        .append(r.seed())
        .append(" --trials ")
        .append(r.trials())
        .append(" --html report.html</code></p>\n");
    b.append("<div class=\"headline\">\n")
        .append(
            Html.card(
                Numbers.fixed(naive.amplification(), 1) + "×",
                "peak load of 3 immediate retries over the normal load"))
        .append(
            Html.card(
                Numbers.fixed(full.amplification(), 1) + "×",
                "peak load with backoff and full jitter (5 retries)"))
        .append(
            Html.card(
                Numbers.fixed(budget.amplification(), 1) + "×",
                "peak load with a 10 % retry budget"))
        .append(
            Html.card(
                Numbers.fixed(breaker.amplification(), 2) + "×",
                "peak load with budget and circuit breaker"))
        .append("</div>\n");
    b.append("<h2>Load over time</h2>\n");
    b.append(
        Html.figure(
            load.svg(),
            "Attempts reaching the service per second (mean over the trials, in "
                + Storm.BIN_MILLIS
                + " ms steps). The shaded band is the stall; the dashed grey line the capacity."
                + " Above it the service sheds requests, which fail and are retried in turn."));
    b.append("<h2>Numbers</h2>\n");
    b.append(Html.table("table-storm", HEADER, rows(r)));
    b.append("<p class=\"meta\">Peak load: the most attempts in one whole second, over the normal ")
        .append(Storm.RATE_PER_SECOND)
        .append("/s. Extra calls: retries that reached the service. Recovery: seconds after the")
        .append(" stall until every later second (until the arrivals stop at ")
        .append(Storm.ARRIVALS_SECONDS)
        .append(" s) has at most 110 % as many attempts as arriving requests and at least 99 % of")
        .append(" those requests succeeding. Failed requests: those that finally gave up.</p>\n");
    b.append("<h2>Conclusion</h2>\n<div class=\"conclusion\">\n<p>")
        .append("Immediate retries multiplied the load by ")
        .append(Numbers.fixed(naive.amplification(), 1))
        .append(" during the stall and still lost ")
        .append(Numbers.fixed(naive.failed(), 0))
        .append(" requests. Backoff with full jitter carried most requests across the stall (")
        .append(Numbers.fixed(full.failed(), 0))
        .append(" failed) but at a peak of ")
        .append(Numbers.fixed(full.amplification(), 1))
        .append("× and ")
        .append(Numbers.fixed(full.extraCalls(), 0))
        .append(" extra calls, and the retries kept the load high for ")
        .append(recovery(full))
        .append(" s after the recovery. The retry budget held the peak to ")
        .append(Numbers.fixed(budget.amplification(), 2))
        .append("× and ")
        .append(Numbers.fixed(budget.extraCalls(), 0))
        .append(" extra calls, paying with ")
        .append(Numbers.fixed(budget.failed(), 0))
        .append(" failed requests; adding the circuit breaker stopped the calls to the stalled")
        .append(" service almost entirely (")
        .append(Numbers.fixed(breaker.extraCalls(), 0))
        .append(" extra calls, peak ")
        .append(Numbers.fixed(breaker.amplification(), 2))
        .append("×) and recovered in ")
        .append(recovery(breaker))
        .append(" s. Retries save requests from a short outage only while the service has")
        .append(" spare capacity; budgets and breakers decide how much of it they may take.")
        .append("</p>\n</div>\n");
    b.append("<h2>Strategies</h2>\n<ul>\n")
        .append("<li><code>naive</code>: 3 retries at once (a 1 ns backoff).</li>\n")
        .append("<li><code>backoff</code>: Relent's default policy (5 retries, 30 s deadline,")
        .append(" base 500 ms, cap 30 s) without jitter.</li>\n")
        .append("<li><code>full</code>: Relent's default policy, full jitter.</li>\n")
        .append("<li><code>full+budget</code>: plus the default retry budget: 10 % of first")
        .append(" attempts plus 10 retries per second over 10 s.</li>\n")
        .append("<li><code>full+budget+breaker</code>: plus a circuit breaker with the default")
        .append(" thresholds (50 % of the last 100 calls, at least 20, 3 probes), open for ")
        .append(Storm.BREAKER_OPEN_SECONDS)
        .append(" s.</li>\n</ul>\n");
    return Html.page("Relent simulation: retry storm", b.toString());
  }
}
