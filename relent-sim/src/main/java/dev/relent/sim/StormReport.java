package dev.relent.sim;

import static dev.relent.sim.Numbers.fixed;

import dev.relent.chart.LineChart;
import dev.relent.sim.Storm.Row;
import dev.relent.sim.Storm.Strategy;
import java.util.Arrays;

/** What the text table and the HTML report of a {@link Storm} run say. */
final class StormReport {
  private StormReport() {}

  /** The recovery as the table shows it: "&gt;= 15" when the load never came back to normal. */
  static String recovery(double seconds) {
    int window = Storm.ARRIVALS_SECONDS - Storm.STALL_END_SECONDS;
    return seconds >= window ? ">= " + window : fixed(seconds, 1);
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
        + " s; "
        + r.meanOf()
        + "\npeak load: most attempts in one second over the normal "
        + Storm.RATE_PER_SECOND
        + "/s; recovery: seconds after the stall until the load is <= 110 % of the arriving"
        + " requests and >= 99 % of them succeed\n\n"
        + r.table(r.rows()).text();
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
    for (Row row : r.rows()) {
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
    for (Row row : r.rows()) {
      double[] ys = new double[bins];
      for (int i = 0; i < bins; i++) {
        ys[i] = row.loadPerSecond().get(i);
      }
      row.strategy().plot(load, xs, ys);
    }
    double[] capacity = new double[bins];
    Arrays.fill(capacity, Storm.CAPACITY_PER_SECOND);
    load.series("capacity", Palette.REFERENCE, true, xs, capacity);

    Row naive = r.row(Strategy.NAIVE);
    Row full = r.row(Strategy.FULL);
    Row budget = r.row(Strategy.FULL_BUDGET);
    Row breaker = r.row(Strategy.FULL_BUDGET_BREAKER);
    Row throttle = r.row(Strategy.FULL_BUDGET_THROTTLE);
    Row quick = r.row(Strategy.FULL_BUDGET_QUICK_BREAKER);
    Table table = r.table(r.rows());
    return r.report(
            "Retry storm: what retries do to a service that stalls",
            Storm.RATE_PER_SECOND
                + " requests per second reach a service that can handle "
                + Storm.CAPACITY_PER_SECOND
                + " per second. From "
                + Storm.STALL_START_SECONDS
                + " s to "
                + Storm.STALL_END_SECONDS
                + " s it fails every request, then recovers. Each strategy is Relent's real"
                + " executor, backoff, retry budget and circuit breaker on virtual time.",
            "")
        .headline(
            fixed(naive.amplification(), 1) + "×",
            "peak load of 3 immediate retries over the normal load",
            fixed(full.amplification(), 1) + "×",
            "peak load with backoff and full jitter (5 retries)",
            fixed(budget.amplification(), 1) + "×",
            "peak load with a 10 % retry budget",
            fixed(breaker.amplification(), 2) + "×",
            "peak load with budget and circuit breaker")
        .section("Load over time")
        .figure(
            load,
            "Attempts reaching the service per second (mean over the trials, in "
                + Storm.BIN_MILLIS
                + " ms steps). The shaded band is the stall; the dashed grey line the capacity."
                + " Above it the service sheds requests, which fail and are retried in turn.")
        .section("Numbers")
        .table("table-storm", table.header(), table.rows())
        .paragraph(
            "meta",
            "Peak load: the most attempts in one whole second, over the normal "
                + Storm.RATE_PER_SECOND
                + "/s. Extra calls: retries that reached the service. Recovery: seconds after the"
                + " stall until every later second (until the arrivals stop at "
                + Storm.ARRIVALS_SECONDS
                + " s) has at most 110 % as many attempts as arriving requests and at least 99 %"
                + " of those requests succeeding. Failed requests: those that finally gave up.")
        .conclusion(
            "Immediate retries multiplied the load by "
                + fixed(naive.amplification(), 1)
                + " during the stall and still lost "
                + fixed(naive.failed(), 0)
                + " requests. Backoff with full jitter carried most requests across the stall ("
                + fixed(full.failed(), 0)
                + " failed) but at a peak of "
                + fixed(full.amplification(), 1)
                + "× and "
                + fixed(full.extraCalls(), 0)
                + " extra calls, and the retries kept the load high for "
                + recovery(full.recoverySeconds())
                + " s after the recovery. The retry budget held the peak to "
                + fixed(budget.amplification(), 2)
                + "× and "
                + fixed(budget.extraCalls(), 0)
                + " extra calls, paying with "
                + fixed(budget.failed(), 0)
                + " failed requests; adding the circuit breaker stopped the calls to the stalled"
                + " service almost entirely ("
                + fixed(breaker.extraCalls(), 0)
                + " extra calls, peak "
                + fixed(breaker.amplification(), 2)
                + "×) and recovered in "
                + recovery(breaker.recoverySeconds())
                + " s. Retries save requests from a short outage only while the service has"
                + " spare capacity; budgets and breakers decide how much of it they may take."
                + " The stall itself fails the "
                + fixed(quick.stallRequests(), 0)
                + " requests that arrive during it unless they are retried: a breaker that probes"
                + " every "
                + Storm.QUICK_OPEN_MILLIS
                + " ms failed "
                + fixed(quick.failed(), 0)
                + " ("
                + fixed(quick.failed() / quick.stallRequests(), 2)
                + "× that) at a peak of "
                + fixed(quick.amplification(), 2)
                + "×, while adaptive throttling with the budget failed "
                + fixed(throttle.failed(), 0)
                + " at "
                + fixed(throttle.amplification(), 2)
                + "×: over its 2-minute window a 5 s stall moves the rejection probability too"
                + " little and too late.")
        .list(
            "Strategies",
            "<code>naive</code>: 3 retries at once (a 1 ns backoff).",
            "<code>backoff</code>: Relent's default policy (5 retries, 30 s deadline, base 500 ms,"
                + " cap 30 s) without jitter.",
            "<code>full</code>: Relent's default policy, full jitter.",
            "<code>full+budget</code>: plus the default retry budget: 10 % of first attempts plus"
                + " 10 retries per second over 10 s.",
            "<code>full+budget+breaker</code>: plus a circuit breaker with the default thresholds"
                + " (50 % of the last 100 calls, at least 20, 3 probes), open for "
                + Storm.BREAKER_OPEN_SECONDS
                + " s.",
            "<code>full+budget+throttle</code>: full jitter, the budget and client-side adaptive"
                + " throttling (Google SRE, K = 2 over 2 minutes).",
            "<code>full+budget+quick-breaker</code>: full jitter, the budget and the breaker open"
                + " for "
                + Storm.QUICK_OPEN_MILLIS
                + " ms only, so that it probes quickly and closes soon after the stall.")
        .page("Relent simulation: retry storm");
  }
}
