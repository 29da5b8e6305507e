package dev.relent.sim;

import static dev.relent.sim.Numbers.decimals;
import static dev.relent.sim.Numbers.fixed;

import dev.relent.chart.LineChart;
import dev.relent.sim.Contention.Row;
import dev.relent.sim.Contention.Strategy;
import java.util.List;

/** What the text table and the HTML report of a {@link Contention} run say. */
final class ContentionReport {
  private ContentionReport() {}

  private static final List<Strategy> STRATEGIES = List.of(Strategy.values());

  /** The client count of the headline: 100 if it was run, else the largest. */
  static int headlineClients(Contention.Result r) {
    List<Integer> clients = r.clients();
    return clients.contains(100) ? 100 : clients.get(clients.size() - 1);
  }

  /** A line per client count, a column per strategy: one metric for all of them. */
  private static Table grid(Contention.Result r, List<Strategy> strategies, Metric<Row> metric) {
    return Table.pivot("clients", r.clients(), strategies, (n, s) -> r.row(s, n), metric);
  }

  /** At the headline N, each strategy against exponential backoff without jitter. */
  private static Table ratios(Contention.Result r, int n) {
    Row expo = r.row(Strategy.EXPONENTIAL, n);
    List<Metric<Row>> columns =
        List.of(
            Contention.STRATEGY,
            Contention.CALLS,
            Metric.tableOnly("calls/expo", row -> row.calls() / expo.calls(), decimals(2)),
            Contention.TIME,
            Metric.tableOnly("time/expo", row -> row.timeMs() / expo.timeMs(), decimals(3)));
    return Table.of(columns, STRATEGIES.stream().map(s -> r.row(s, n)).toList());
  }

  static String table(Contention.Result r) {
    int n = headlineClients(r);
    return "Contention (Brooker 2015): N clients, one conditional write each; "
        + r.meanOf()
        + "\nstudy strategies: base 5 ms, cap 2000 ms; relent-*: Relent's default policy"
        + " (base 500 ms, cap 30 s, full jitter, 5 retries, 30 s deadline)\n\n"
        + "calls (WRITEs handled by the server, at least N)\n"
        + grid(r, STRATEGIES, Contention.CALLS).text()
        + "\ncompletion time (ms, until the last client's successful write)\n"
        + grid(r, STRATEGIES, Contention.TIME).text()
        + "\nclients that gave up (the study's strategies never do)\n"
        + grid(r, List.of(Strategy.RELENT_DEFAULT, Strategy.RELENT_BUDGET), Contention.GAVE_UP)
            .text()
        + "\nat N = "
        + n
        + ", relative to exponential backoff without jitter:\n"
        + ratios(r, n).text();
  }

  static String html(Contention.Result r) {
    int n = headlineClients(r);
    Row expo = r.row(Strategy.EXPONENTIAL, n);
    Row full = r.row(Strategy.FULL, n);
    Row none = r.row(Strategy.NONE, n);
    Row budget = r.row(Strategy.RELENT_BUDGET, n);
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
    for (Strategy s : STRATEGIES) {
      double[] c = new double[xs.length];
      double[] t = new double[xs.length];
      for (int i = 0; i < xs.length; i++) {
        Row row = r.row(s, (int) xs[i]);
        c[i] = row.calls();
        t[i] = row.timeMs() / 1000;
      }
      s.plot(calls, xs, c);
      s.plot(time, xs, t);
    }
    Table callsTable = grid(r, STRATEGIES, Contention.CALLS);
    Table timeTable = grid(r, STRATEGIES, Contention.TIME);
    return r.report(
            "Contention: why backoff needs jitter",
            "N clients race to update one database row with a conditional write; each must"
                + " succeed once. A client that loses re-reads the row after a backoff. This is"
                + " the simulation of Marc Brooker's <em>Exponential Backoff and Jitter</em> (AWS"
                + " Architecture Blog, 2015), run with Relent's own backoff code.",
            " per point")
        .headline(
            fixed(full.calls() / expo.calls() * 100, 0) + " %",
            "calls of full jitter relative to exponential backoff without jitter, N = " + n,
            fixed(expo.timeMs() / full.timeMs(), 1) + "× faster",
            "full jitter finishes than exponential without jitter, N = " + n,
            fixed(none.calls() / full.calls(), 1) + "× the calls",
            "retrying at once (no backoff) costs compared with full jitter, N = " + n,
            Numbers.trim(budget.gaveUp(), 1) + " of " + n,
            "clients gave up under Relent's default policy with a shared retry budget")
        .section("Calls")
        .figure(
            calls,
            "Every line is one strategy: the mean number of WRITEs the server handled until all N"
                + " clients had succeeded once. The lowest possible value is N. Lower is less"
                + " load on the contended resource.")
        .section("Completion time")
        .figure(
            time,
            "When the last client received its successful reply, on a logarithmic scale so that"
                + " all strategies fit. Exponential backoff without jitter keeps the clients in"
                + " lock step: they collide again on every round while their waits double."
                + " relent-budget's time falls at large N because the clients the budget refuses"
                + " give up early and only successful clients count.")
        .conclusion(conclusion(r, n))
        .section("Numbers")
        .paragraph(null, "Calls (mean WRITEs handled by the server):")
        .table("table-calls", callsTable.header(), callsTable.rows())
        .paragraph(null, "Completion time (ms):")
        .table("table-time", timeTable.header(), timeTable.rows())
        .list(
            "Model and strategies",
            "Each one-way message takes |Normal(10 ms, 2 ms)|; the server answers at once, in"
                + " arrival order. A WRITE succeeds iff the version read is still current.",
            "<code>none</code> retries at once; <code>exponential</code>, <code>full</code>,"
                + " <code>equal</code> and <code>decorrelated</code> are Relent's"
                + " <code>Backoff</code> with base 5 ms and cap 2000 ms and jitter NONE, FULL,"
                + " EQUAL, DECORRELATED. The study's n-th retry (n = 1, 2, …) waits up to"
                + " min(cap, base·2<sup>n</sup>); Relent numbers retries so that retry r waits up to"
                + " min(cap, base·2<sup>r−1</sup>), so the simulator asks Relent for retry n + 1.",
            "Relent's decorrelated jitter draws U(base, min(cap, 3·previous)), keeping the"
                + " randomness inside the cap; the study's min(cap, U(base, 3·previous)) differs"
                + " only once 3·previous passes the cap, where it piles clients up at the cap.",
            "<code>relent-default</code> is Relent's default policy run by the real executor on"
                + " virtual time: base 500 ms, cap 30 s, full jitter, at most 5 retries, 30 s"
                + " deadline, so a client may give up. <code>relent-budget</code> adds one default"
                + " retry budget shared by all clients (10 % of first attempts plus 10 retries per"
                + " second over 10 s): it bounds the extra load, and the clients it refuses give"
                + " up.")
        .page("Relent simulation: contention");
  }

  /** "796 calls in 4907 ms". */
  private static String callsIn(Row row) {
    return fixed(row.calls(), 0) + " calls in " + fixed(row.timeMs(), 0) + " ms";
  }

  private static String conclusion(Contention.Result r, int n) {
    Row expo = r.row(Strategy.EXPONENTIAL, n);
    Row full = r.row(Strategy.FULL, n);
    Row relent = r.row(Strategy.RELENT_DEFAULT, n);
    Row budget = r.row(Strategy.RELENT_BUDGET, n);
    return "At N = "
        + n
        + " full jitter needed "
        + fixed(full.calls(), 0)
        + " calls, "
        + fixed(full.calls() / expo.calls() * 100, 0)
        + " % of exponential backoff without jitter ("
        + fixed(expo.calls(), 0)
        + "), and finished in "
        + fixed(full.timeMs(), 0)
        + " ms instead of "
        + fixed(expo.timeMs(), 0)
        + " ms. Equal jitter made "
        + callsIn(r.row(Strategy.EQUAL, n))
        + ", decorrelated "
        + callsIn(r.row(Strategy.DECORRELATED, n))
        + ". Jitter, not the exponent alone, is what spreads the clients apart."
        + " Relent's default policy (base 500 ms) made "
        + callsIn(relent)
        + ", with "
        + Numbers.trim(relent.gaveUp(), 2)
        + " clients giving up after 5 retries; with a shared retry budget "
        + Numbers.trim(budget.gaveUp(), 1)
        + " of "
        + n
        + " gave up: a budget protects an overloaded service, and under pure contention"
        + " it turns waiting into failures.";
  }
}
