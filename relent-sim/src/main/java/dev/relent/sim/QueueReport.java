package dev.relent.sim;

import dev.relent.sim.internal.Html;
import dev.relent.sim.internal.LineChart;
import java.util.ArrayList;
import java.util.List;

/** The text table and HTML report of a {@link PacedQueue} run. */
final class QueueReport {
  private QueueReport() {}

  private static final List<String> HEADER =
      List.of(
          "strategy",
          "scenario",
          "time (s)",
          "vs 300 s limit",
          "429s",
          "peak concurrency",
          "attempts",
          "failed",
          "other caller's 429s");

  private static List<List<String>> rows(PacedQueue.Result r) {
    List<List<String>> rows = new ArrayList<>();
    for (PacedQueue.Row row : r.rows()) {
      rows.add(
          List.of(
              row.strategy(),
              row.scenario(),
              Numbers.fixed(row.timeSeconds(), 1),
              Numbers.fixed(row.timeSeconds() / PacedQueue.PHYSICAL_LIMIT_SECONDS, 2) + "×",
              Numbers.fixed(row.throttled(), 1),
              Numbers.fixed(row.peakConcurrency(), 1),
              Numbers.fixed(row.attempts(), 1),
              Numbers.fixed(row.failed(), 1),
              Numbers.fixed(row.otherThrottled(), 1)));
    }
    return rows;
  }

  static String table(PacedQueue.Result r) {
    return "Paced queue: "
        + PacedQueue.REQUESTS
        + " requests, account limit "
        + PacedQueue.LIMIT_PER_MINUTE
        + "/min (token bucket, 429 + Retry-After), 2 s mean latency; mean of "
        + r.trials()
        + (r.trials() == 1 ? " trial" : " trials")
        + ", seed "
        + r.seed()
        + "\n"
        + "physical limit: "
        + PacedQueue.REQUESTS
        + " at "
        + PacedQueue.LIMIT_PER_MINUTE
        + "/min = "
        + PacedQueue.PHYSICAL_LIMIT_SECONDS
        + " s; shared: another caller sends 10 requests every 30 s on the same account\n\n"
        + Text.table(HEADER, rows(r));
  }

  static String html(PacedQueue.Result r) {
    double end = 0;
    for (PacedQueue.Row row : r.rows()) {
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
    for (PacedQueue.Row row : r.rows()) {
      double[] done = new double[steps + 1];
      double[] rejected = new double[steps + 1];
      for (int i = 1; i <= steps; i++) {
        done[i] = row.progress().get(i - 1);
        rejected[i] = row.throttledSoFar().get(i - 1);
      }
      String s = row.strategy();
      if (row.scenario().equals("alone")) {
        progress.series(s, Palette.color(s), Palette.dashed(s), xs, done);
        throttled.series(s, Palette.color(s), Palette.dashed(s), xs, rejected);
      } else {
        shared.series(s, Palette.color(s), Palette.dashed(s), xs, done);
      }
    }
    PacedQueue.Row burst = r.row("burst", "alone");
    PacedQueue.Row fixed = r.row("fixed-90", "alone");
    PacedQueue.Row known = r.row("relent-known", "alone");
    PacedQueue.Row unknown = r.row("relent-unknown", "alone");
    PacedQueue.Row burstShared = r.row("burst", "shared");
    StringBuilder b = new StringBuilder();
    b.append("<h1>A paced queue under a quota</h1>\n");
    b.append("<p class=\"lead\">")
        .append(PacedQueue.REQUESTS)
        .append(" requests must go through an account limited to ")
        .append(PacedQueue.LIMIT_PER_MINUTE)
        .append(" per minute (a token bucket at the server answering 429 with Retry-After),")
        .append(" each taking 2 s on average. No client can finish before ")
        .append(PacedQueue.PHYSICAL_LIMIT_SECONDS)
        .append(" s. A shared account budget, with Relent's real pacer, concurrency limit")
        .append(" and executor on virtual time.</p>\n");
    b.append("<p class=\"meta\">Mean of ")
        .append(r.trials())
        .append(r.trials() == 1 ? " trial" : " trials")
        .append(", seed ")
        .append(r.seed())
        .append(". Reproduce: <code>relent simulate queue --seed ")
        .append(r.seed())
        .append(" --trials ")
        .append(r.trials())
        .append(" --html report.html</code></p>\n");
    b.append("<div class=\"headline\">\n")
        .append(
            Html.card(
                Numbers.fixed(fixed.timeSeconds(), 0)
                    + " s, "
                    + Numbers.trim(fixed.throttled(), 1)
                    + " 429s",
                "fixed pacing at 90/min (the plan: 400 s)"))
        .append(
            Html.card(
                Numbers.fixed(known.timeSeconds(), 0)
                    + " s, "
                    + Numbers.trim(known.throttled(), 1)
                    + " 429s",
                "Relent's pacer at the limit read from RateLimit headers"))
        .append(
            Html.card(
                Numbers.fixed(burst.throttled(), 0) + " 429s",
                "sending everything at once, then retrying ("
                    + Numbers.fixed(burst.timeSeconds(), 0)
                    + " s)"))
        .append(
            Html.card(
                Numbers.fixed(burst.peakConcurrency(), 0) + " at once",
                "peak concurrency of the burst; paced clients stay below 10"))
        .append("</div>\n");
    b.append("<h2>Queue progress</h2>\n");
    b.append(
        Html.figure(
            progress.svg(),
            "Requests done over time when this client has the account to itself. The steepest"
                + " possible line reaches 600 at 300 s. Straight lines are paced clients; the"
                + " burst advances in the same time but only by hammering the server."));
    b.append("<h2>429s</h2>\n");
    b.append(
        Html.figure(
            throttled.svg(),
            "429 responses received so far (log scale; a strategy that never got one has no"
                + " line). Every 429 is a wasted request against the same quota."));
    b.append("<h2>Sharing the account</h2>\n");
    b.append(
        Html.figure(
            shared.svg(),
            "The same queue while another caller sends bursts of 10 requests every 30 s on the"
                + " same account."));
    b.append("<h2>Numbers</h2>\n");
    b.append(Html.table("table-queue", HEADER, rows(r)));
    b.append("<h2>Conclusion</h2>\n<div class=\"conclusion\">\n<p>")
        .append("Fixed pacing at 90/min finished in ")
        .append(Numbers.fixed(fixed.timeSeconds(), 0))
        .append(" s with ")
        .append(Numbers.trim(fixed.throttled(), 1))
        .append(" 429s, as planned (600 at 1.5/s = 400 s, about 3 in flight). Pacing at the")
        .append(" limit the RateLimit headers announce came within ")
        .append(Numbers.fixed(known.timeSeconds() - PacedQueue.PHYSICAL_LIMIT_SECONDS, 0))
        .append(" s of the physical limit with ")
        .append(Numbers.trim(known.throttled(), 1))
        .append(" 429s. Without knowing the limit, a pacer that runs too fast and only pauses on")
        .append(" 429 got ")
        .append(Numbers.fixed(unknown.throttled(), 0))
        .append(". Sending everything at once finished no sooner than the physical limit")
        .append(" allows (")
        .append(Numbers.fixed(burst.timeSeconds(), 0))
        .append(" s) but received ")
        .append(Numbers.fixed(burst.throttled(), 0))
        .append(" 429s, held ")
        .append(Numbers.fixed(burst.peakConcurrency(), 0))
        .append(" requests open at once, and with another caller on the account left it ")
        .append(Numbers.fixed(burstShared.otherThrottled(), 0))
        .append(" 429s too.</p>\n</div>\n");
    b.append("<h2>Strategies</h2>\n<ul>\n")
        .append("<li><code>burst</code>: all 600 at t = 0, retried by the default policy (full")
        .append(" jitter from 500 ms, at least the Retry-After).</li>\n")
        .append("<li><code>fixed-90</code>: Relent's pacer at 90/min, one start every 667 ms.")
        .append("</li>\n")
        .append("<li><code>relent-known</code>: the pacer at the 120/min the RateLimit headers")
        .append(" announce; a response with no tokens left pauses it until the next one.</li>\n")
        .append("<li><code>relent-unknown</code>: the limit is unknown: the pacer runs at a")
        .append(" guessed 300/min and a 429's Retry-After pauses it for everyone.</li>\n")
        .append("<li><code>aimd</code>: a reference adaptive client, not Relent: +1/min per")
        .append(" success from 60/min, halved on a 429.</li>\n")
        .append("<li>The Relent strategies hold a concurrency limit of 8, so that only a few")
        .append(" requests have reserved a start when a pause comes.</li>\n</ul>\n");
    return Html.page("Relent simulation: paced queue", b.toString());
  }
}
