package dev.relent.sim;

import dev.relent.sim.internal.Html;
import dev.relent.sim.internal.LineChart;
import java.util.ArrayList;
import java.util.List;

/** The text table and HTML report of a {@link Contention} run. */
final class ContentionReport {
  private ContentionReport() {}

  /** The client count of the headline: 100 if it was run, else the largest. */
  static int headlineClients(Contention.Result r) {
    List<Integer> clients = r.clients();
    return clients.contains(100) ? 100 : clients.get(clients.size() - 1);
  }

  static String table(Contention.Result r) {
    StringBuilder sb = new StringBuilder();
    sb.append("Contention (Brooker 2015): N clients, one conditional write each; mean of ")
        .append(r.trials())
        .append(r.trials() == 1 ? " trial" : " trials")
        .append(", seed ")
        .append(r.seed())
        .append('\n');
    sb.append(
        "study strategies: base 5 ms, cap 2000 ms; relent-*: Relent's default policy"
            + " (base 500 ms, cap 30 s, full jitter, 5 retries, 30 s deadline)\n\n");
    sb.append("calls (WRITEs handled by the server, at least N)\n");
    sb.append(Text.table(header(), grid(r, 0)));
    sb.append("\ncompletion time (ms, until the last client's successful write)\n");
    sb.append(Text.table(header(), grid(r, 1)));
    sb.append("\nclients that gave up (the study's strategies never do)\n");
    List<List<String>> gaveUp = new ArrayList<>();
    for (int n : r.clients()) {
      gaveUp.add(
          List.of(
              String.valueOf(n),
              Numbers.trim(r.row("relent-default", n).gaveUp(), 2),
              Numbers.trim(r.row("relent-budget", n).gaveUp(), 2)));
    }
    sb.append(Text.table(List.of("clients", "relent-default", "relent-budget"), gaveUp));
    int n = headlineClients(r);
    sb.append("\nat N = ").append(n).append(", relative to exponential backoff without jitter:\n");
    List<List<String>> ratios = new ArrayList<>();
    Contention.Row base = r.row("exponential", n);
    for (String s : Contention.STRATEGIES) {
      Contention.Row row = r.row(s, n);
      ratios.add(
          List.of(
              s,
              Numbers.fixed(row.calls(), 0),
              Numbers.fixed(row.calls() / base.calls(), 2),
              Numbers.fixed(row.timeMs(), 0),
              Numbers.fixed(row.timeMs() / base.timeMs(), 3)));
    }
    sb.append(
        Text.table(List.of("strategy", "calls", "calls/expo", "time_ms", "time/expo"), ratios));
    return sb.toString();
  }

  private static List<String> header() {
    List<String> h = new ArrayList<>();
    h.add("clients");
    h.addAll(Contention.STRATEGIES);
    return h;
  }

  private static List<List<String>> grid(Contention.Result r, int what) {
    List<List<String>> rows = new ArrayList<>();
    for (int n : r.clients()) {
      List<String> row = new ArrayList<>();
      row.add(String.valueOf(n));
      for (String s : Contention.STRATEGIES) {
        Contention.Row c = r.row(s, n);
        row.add(Numbers.fixed(what == 0 ? c.calls() : c.timeMs(), 0));
      }
      rows.add(row);
    }
    return rows;
  }

  static String html(Contention.Result r) {
    int n = headlineClients(r);
    Contention.Row expo = r.row("exponential", n);
    Contention.Row full = r.row("full", n);
    Contention.Row none = r.row("none", n);
    Contention.Row budget = r.row("relent-budget", n);
    double[] xs = r.clients().stream().mapToDouble(Integer::doubleValue).toArray();
    LineChart calls =
        new LineChart(
            "chart-calls", "Calls until every client has written", "clients (N)", "calls");
    LineChart time =
        new LineChart(
                "chart-time",
                "Completion time (log scale)",
                "clients (N)",
                "time until the last success (s)")
            .logY();
    for (String s : Contention.STRATEGIES) {
      double[] c = new double[xs.length];
      double[] t = new double[xs.length];
      for (int i = 0; i < xs.length; i++) {
        Contention.Row row = r.row(s, (int) xs[i]);
        c[i] = row.calls();
        t[i] = row.timeMs() / 1000;
      }
      calls.series(s, Palette.color(s), Palette.dashed(s), xs, c);
      time.series(s, Palette.color(s), Palette.dashed(s), xs, t);
    }
    StringBuilder b = new StringBuilder();
    b.append("<h1>Contention: why backoff needs jitter</h1>\n");
    b.append("<p class=\"lead\">N clients race to update one database row with a conditional")
        .append(" write; each must succeed once. A client that loses re-reads the row after a")
        .append(" backoff. This is the simulation of Marc Brooker's <em>Exponential Backoff and")
        .append(" Jitter</em> (AWS Architecture Blog, 2015), run with Relent's own backoff code.")
        .append("</p>\n");
    b.append("<p class=\"meta\">Mean of ")
        .append(r.trials())
        .append(r.trials() == 1 ? " trial" : " trials")
        .append(" per point, seed ")
        .append(r.seed())
        .append(". Reproduce: <code>relent simulate contention --seed ")
        .append(r.seed())
        .append(" --trials ")
        .append(r.trials())
        .append(" --html report.html</code></p>\n");
    b.append("<div class=\"headline\">\n");
    b.append(
        Html.card(
            Numbers.fixed(full.calls() / expo.calls() * 100, 0) + " %",
            "calls of full jitter relative to exponential backoff without jitter, N = " + n));
    b.append(
        Html.card(
            Numbers.fixed(expo.timeMs() / full.timeMs(), 1) + "× faster",
            "full jitter finishes than exponential without jitter, N = " + n));
    b.append(
        Html.card(
            Numbers.fixed(none.calls() / full.calls(), 1) + "× the calls",
            "retrying at once (no backoff) costs compared with full jitter, N = " + n));
    b.append(
        Html.card(
            Numbers.trim(budget.gaveUp(), 1) + " of " + n,
            "clients gave up under Relent's default policy with a shared retry budget"));
    b.append("</div>\n");
    b.append("<h2>Calls</h2>\n");
    b.append(
        Html.figure(
            calls.svg(),
            "Every line is one strategy: the mean number of WRITEs the server handled until all N"
                + " clients had succeeded once. The lowest possible value is N. Lower is less"
                + " load on the contended resource."));
    b.append("<h2>Completion time</h2>\n");
    b.append(
        Html.figure(
            time.svg(),
            "When the last client received its successful reply, on a logarithmic scale so that"
                + " all strategies fit. Exponential backoff without jitter keeps the clients in"
                + " lock step: they collide again on every round while their waits double."
                + " relent-budget's time falls at large N because the clients the budget refuses"
                + " give up early and only successful clients count."));
    b.append("<h2>Conclusion</h2>\n<div class=\"conclusion\">\n<p>")
        .append(conclusion(r, n))
        .append("</p>\n</div>\n");
    b.append("<h2>Numbers</h2>\n<p>Calls (mean WRITEs handled by the server):</p>\n");
    b.append(Html.table("table-calls", header(), grid(r, 0)));
    b.append("<p>Completion time (ms):</p>\n");
    b.append(Html.table("table-time", header(), grid(r, 1)));
    b.append("<h2>Model and strategies</h2>\n<ul>\n")
        .append("<li>Each one-way message takes |Normal(10 ms, 2 ms)|; the server answers at")
        .append(" once, in arrival order. A WRITE succeeds iff the version read is still current.")
        .append("</li>\n")
        .append("<li><code>none</code> retries at once; <code>exponential</code>, <code>full")
        .append("</code>, <code>equal</code> and <code>decorrelated</code> are Relent's")
        .append(" <code>Backoff</code> with base 5 ms and cap 2000 ms and jitter NONE, FULL,")
        .append(" EQUAL, DECORRELATED. The study's n-th retry (n = 1, 2, …) waits up to")
        .append(" min(cap, base·2<sup>n</sup>); Relent numbers retries so that retry r waits up to")
        .append(
            " min(cap, base·2<sup>r−1</sup>), so the simulator asks Relent for retry n + 1.</li>\n")
        .append("<li>Relent's decorrelated jitter draws U(base, min(cap, 3·previous)), keeping the")
        .append(
            " randomness inside the cap; the study's min(cap, U(base, 3·previous)) differs only")
        .append(" once 3·previous passes the cap, where it piles clients up at the cap.</li>\n")
        .append("<li><code>relent-default</code> is Relent's default policy run by the real")
        .append(" executor on virtual time: base 500 ms, cap 30 s, full jitter, at most 5 retries,")
        .append(" 30 s deadline, so a client may give up. <code>relent-budget</code> adds one")
        .append(" default retry budget shared by all clients (10 % of first attempts plus 10")
        .append(" retries per second over 10 s): it bounds the extra load, and the clients it")
        .append(" refuses give up.</li>\n</ul>\n");
    return Html.page("Relent simulation: contention", b.toString());
  }

  private static String conclusion(Contention.Result r, int n) {
    Contention.Row expo = r.row("exponential", n);
    Contention.Row full = r.row("full", n);
    Contention.Row equal = r.row("equal", n);
    Contention.Row decorrelated = r.row("decorrelated", n);
    Contention.Row relent = r.row("relent-default", n);
    Contention.Row budget = r.row("relent-budget", n);
    return "At N = "
        + n
        + " full jitter needed "
        + Numbers.fixed(full.calls(), 0)
        + " calls, "
        + Numbers.fixed(full.calls() / expo.calls() * 100, 0)
        + " % of exponential backoff without jitter ("
        + Numbers.fixed(expo.calls(), 0)
        + "), and finished in "
        + Numbers.fixed(full.timeMs(), 0)
        + " ms instead of "
        + Numbers.fixed(expo.timeMs(), 0)
        + " ms. Equal jitter made "
        + Numbers.fixed(equal.calls(), 0)
        + " calls in "
        + Numbers.fixed(equal.timeMs(), 0)
        + " ms, decorrelated "
        + Numbers.fixed(decorrelated.calls(), 0)
        + " calls in "
        + Numbers.fixed(decorrelated.timeMs(), 0)
        + " ms. Jitter, not the exponent alone, is what spreads the clients apart."
        + " Relent's default policy (base 500 ms) made "
        + Numbers.fixed(relent.calls(), 0)
        + " calls in "
        + Numbers.fixed(relent.timeMs(), 0)
        + " ms, with "
        + Numbers.trim(relent.gaveUp(), 2)
        + " clients giving up after 5 retries; with a shared retry budget "
        + Numbers.trim(budget.gaveUp(), 1)
        + " of "
        + n
        + " gave up: a budget protects an overloaded service, and under pure contention"
        + " it turns waiting into failures.";
  }
}
