package dev.relent.sim;

import static dev.relent.sim.Numbers.fixed;

import dev.relent.chart.LineChart;
import dev.relent.sim.PacedQueue.Row;
import dev.relent.sim.PacedQueue.Scenario;
import dev.relent.sim.PacedQueue.Strategy;

/** What the text table and the HTML report of a {@link PacedQueue} run say. */
final class QueueReport {
  private QueueReport() {}

  static String table(PacedQueue.Result r) {
    return "Paced queue: "
        + PacedQueue.REQUESTS
        + " requests, account limit "
        + PacedQueue.LIMIT_PER_MINUTE
        + "/min (token bucket, 429 + Retry-After), 2 s mean latency; "
        + r.meanOf()
        + "\nphysical limit: "
        + PacedQueue.REQUESTS
        + " at "
        + PacedQueue.LIMIT_PER_MINUTE
        + "/min = "
        + PacedQueue.PHYSICAL_LIMIT_SECONDS
        + " s; shared: another caller sends 10 requests every 30 s on the same account\n\n"
        + r.table(r.rows()).text();
  }

  /** "402 s, 0 429s". */
  private static String timeAnd429s(Row row) {
    return fixed(row.timeSeconds(), 0) + " s, " + Numbers.trim(row.throttled(), 1) + " 429s";
  }

  static String html(PacedQueue.Result r) {
    double end = 0;
    for (Row row : r.rows()) {
      end = Math.max(end, row.timeSeconds());
    }
    int steps = (int) Math.min(PacedQueue.STEPS, Math.ceil(end / PacedQueue.STEP_SECONDS) + 2);
    double[] xs = new double[steps + 1];
    for (int i = 1; i <= steps; i++) {
      xs[i] = i * PacedQueue.STEP_SECONDS;
    }
    LineChart progress =
        new LineChart("chart-progress", "Queue progress", "time (s)", "requests done")
            .linesOnly()
            .marker(PacedQueue.PHYSICAL_LIMIT_SECONDS, "physical limit 300 s")
            .marker(400, "90/min target: 400 s");
    LineChart throttled =
        new LineChart("chart-429", "429s received (log scale)", "time (s)", "429s so far")
            .linesOnly()
            .logY();
    LineChart shared =
        new LineChart(
                "chart-progress-shared",
                "Queue progress with another caller on the account",
                "time (s)",
                "requests done")
            .linesOnly()
            .marker(PacedQueue.PHYSICAL_LIMIT_SECONDS, "physical limit 300 s");
    LineChart strict =
        new LineChart(
                "chart-progress-strict",
                "Queue progress against a strict limiter (burst 0, Retry-After: 1)",
                "time (s)",
                "requests done")
            .linesOnly()
            .marker(PacedQueue.PHYSICAL_LIMIT_SECONDS, "physical limit 300 s");
    for (Row row : r.rows()) {
      // Each series starts at 0 at t = 0; the means are by the end of each step.
      double[] done = new double[steps + 1];
      double[] rejected = new double[steps + 1];
      for (int i = 1; i <= steps; i++) {
        done[i] = row.progress().get(i - 1);
        rejected[i] = row.throttledSoFar().get(i - 1);
      }
      if (row.scenario() == Scenario.ALONE) {
        row.strategy().plot(progress, xs, done);
        row.strategy().plot(throttled, xs, rejected);
      } else if (row.scenario() == Scenario.SHARED) {
        row.strategy().plot(shared, xs, done);
      } else {
        row.strategy().plot(strict, xs, done);
      }
    }
    Row burst = r.row(Strategy.BURST, Scenario.ALONE);
    Row fixed = r.row(Strategy.FIXED_90, Scenario.ALONE);
    Row known = r.row(Strategy.RELENT_KNOWN, Scenario.ALONE);
    Row unknown = r.row(Strategy.RELENT_UNKNOWN, Scenario.ALONE);
    Row burstShared = r.row(Strategy.BURST, Scenario.SHARED);
    Table table = r.table(r.rows());
    return r.report(
            "A paced queue under a quota",
            PacedQueue.REQUESTS
                + " requests must go through an account limited to "
                + PacedQueue.LIMIT_PER_MINUTE
                + " per minute (a token bucket at the server answering 429 with Retry-After),"
                + " each taking 2 s on average. No client can finish before "
                + PacedQueue.PHYSICAL_LIMIT_SECONDS
                + " s. A shared account budget, with Relent's real pacer, concurrency limit"
                + " and executor on virtual time.",
            "")
        .headline(
            timeAnd429s(fixed),
            "fixed pacing at 90/min (the plan: 400 s)",
            timeAnd429s(known),
            "Relent's pacer at the limit read from RateLimit headers",
            fixed(burst.throttled(), 0) + " 429s",
            "sending everything at once, then retrying (" + fixed(burst.timeSeconds(), 0) + " s)",
            fixed(burst.peakConcurrency(), 0) + " at once",
            "peak concurrency of the burst; paced clients stay below 10")
        .section("Queue progress")
        .figure(
            progress,
            "Requests done over time when this client has the account to itself. The steepest"
                + " possible line reaches 600 at 300 s. Straight lines are paced clients; the"
                + " burst advances in the same time but only by hammering the server.")
        .section("429s")
        .figure(
            throttled,
            "429 responses received so far (log scale; a strategy that never got one has no"
                + " line). Every 429 is a wasted request against the same quota.")
        .section("Sharing the account")
        .figure(
            shared,
            "The same queue while another caller sends bursts of 10 requests every 30 s on the"
                + " same account.")
        .section("A strict limiter")
        .figure(
            strict,
            "The same queue alone against a strict limiter, as nginx's limit_req with burst 0:"
                + " one request every 500 ms and none saved up, every 429 with Retry-After: 1,"
                + " no rate-limit headers.")
        .section("Numbers")
        .table("table-queue", table.header(), table.rows())
        .conclusion(
            "Fixed pacing at 90/min finished in "
                + fixed(fixed.timeSeconds(), 0)
                + " s with "
                + Numbers.trim(fixed.throttled(), 1)
                + " 429s, as planned (600 at 1.5/s = 400 s, about 3 in flight). Pacing at the"
                + " limit the RateLimit headers announce came within "
                + fixed(known.timeSeconds() - PacedQueue.PHYSICAL_LIMIT_SECONDS, 0)
                + " s of the physical limit with "
                + Numbers.trim(known.throttled(), 1)
                + " 429s. Without knowing the limit, a pacer that runs too fast and only pauses"
                + " on 429 got "
                + fixed(unknown.throttled(), 0)
                + ". Sending everything at once finished no sooner than the physical limit"
                + " allows ("
                + fixed(burst.timeSeconds(), 0)
                + " s) but received "
                + fixed(burst.throttled(), 0)
                + " 429s, held "
                + fixed(burst.peakConcurrency(), 0)
                + " requests open at once, and with another caller on the account left it "
                + fixed(burstShared.otherThrottled(), 0)
                + " 429s too.")
        .list(
            "Strategies",
            "<code>burst</code>: all 600 at t = 0, retried by the default policy (full jitter"
                + " from 500 ms, at least the Retry-After).",
            "<code>fixed-90</code>: Relent's pacer at 90/min, one start every 667 ms.",
            "<code>relent-known</code>: the pacer at the 120/min the RateLimit headers announce;"
                + " a response with no tokens left pauses it until the next one.",
            "<code>relent-unknown</code>: the limit is unknown: the pacer runs at a guessed"
                + " 300/min and a 429's Retry-After pauses it for everyone.",
            "<code>aimd</code>: a reference adaptive client, not Relent: +1/min per success from"
                + " 60/min, halved on a 429.",
            "The Relent strategies hold a concurrency limit of 8, so that only a few requests"
                + " have reserved a start when a pause comes.")
        .page("Relent simulation: paced queue");
  }
}
