package dev.relent.cli.batch;

import dev.relent.cli.common.Format;
import dev.relent.cli.common.Outcome;
import dev.relent.cli.common.Plan;
import dev.relent.cli.common.Rate;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.ScopeGuards;
import dev.relent.http.ServerHints;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import picocli.CommandLine;

/**
 * What {@code relent batch} shows people: the live progress (a bar redrawn in place on a terminal,
 * plain lines otherwise) and the closing summary. The texts are pure functions of a {@link
 * BatchTimeline.Snapshot} or a finished run; the progress thread only decides when to print them.
 */
public final class BatchDisplay {
  /** The outcome of a keyed write that may have taken effect: not final, counted apart. */
  private BatchDisplay() {}

  /** How progress is shown. */
  public enum Mode {
    /** A bar redrawn with {@code \r} at most four times a second. */
    BAR,
    /** A plain line every few seconds, for logs and pipes. */
    LINES,
    /** Nothing. */
    OFF;

    /** Reads {@code bar}, {@code lines}, {@code off}, or {@code auto}: a bar on a terminal. */
    public static final class Converter implements CommandLine.ITypeConverter<Mode> {
      @Override
      public Mode convert(String value) {
        switch (value.trim().toLowerCase(Locale.ROOT)) {
          case "auto":
            return System.console() != null ? BAR : LINES;
          case "bar":
            return BAR;
          case "lines":
            return LINES;
          case "off":
            return OFF;
          default:
            throw new CommandLine.TypeConversionException(
                "'" + value + "' is not a progress mode; use auto, bar, lines or off");
        }
      }
    }
  }

  private static final int BAR_WIDTH = 24;

  /**
   * The bar: {@code [#####-----] 12/27 3 in flight 2 waiting 1 failed 7.9/s ETA 2 s}.
   *
   * @param paceNanos the interval between starts the queue has now, 1 or less when not pacing
   * @param waitNanos the longest wait known now of a request in hand (a paused scope), or 0
   */
  static String bar(BatchTimeline.Snapshot s, long paceNanos, long waitNanos) {
    int total = Math.max(1, s.total());
    int ended = s.done() + s.unfinished();
    int fill = (int) ((long) ended * BAR_WIDTH / total);
    StringBuilder b = new StringBuilder(100).append('[');
    for (int i = 0; i < BAR_WIDTH; i++) {
      b.append(i < fill ? '#' : '-');
    }
    b.append("] ").append(ended).append('/').append(s.total()).append(" done");
    b.append("  ").append(s.inFlight()).append(" in flight");
    b.append("  ").append(s.waiting()).append(" waiting");
    b.append("  ").append(s.failed()).append(" failed");
    b.append("  ").append(Format.number(rate(s))).append("/s");
    b.append("  ETA ").append(eta(s, paceNanos, waitNanos));
    return b.toString();
  }

  /**
   * A plain line: {@code 12/27 done, 3 in flight, 2 waiting, 1 failed; 7.9/s; ETA 2 s}; the
   * arguments as for {@link #bar}.
   */
  static String line(BatchTimeline.Snapshot s, long paceNanos, long waitNanos) {
    return String.format(
        Locale.ROOT,
        "%d/%d done, %d in flight, %d waiting, %d failed; %s/s; %s elapsed, ETA %s",
        s.done() + s.unfinished(),
        s.total(),
        s.inFlight(),
        s.waiting(),
        s.failed(),
        Format.number(rate(s)),
        Format.duration(Duration.ofNanos(s.elapsedNanos())),
        eta(s, paceNanos, waitNanos));
  }

  /** Requests ended per second so far. */
  static double rate(BatchTimeline.Snapshot s) {
    double seconds = s.elapsedNanos() / 1e9;
    return seconds <= 0 ? 0 : (s.done() + s.unfinished()) / seconds;
  }

  /**
   * Time left: the longest of what is known of it. The rate seen so far (once three requests have
   * ended); the pace the queue has now for the requests left ({@code paceNanos} each: the ceiling
   * of {@code --rate}, or the scopes' learned rates when every scope is slowed); and the longest
   * known wait ({@code waitNanos}: a paused scope's pause left, which no request of it ends
   * before). {@code unknown} when none is known yet (no pace, no wait, fewer than three ended).
   */
  static String eta(BatchTimeline.Snapshot s, long paceNanos, long waitNanos) {
    int left = s.total() - s.done() - s.unfinished();
    if (left <= 0) {
      return "0 s";
    }
    int ended = s.done() + s.unfinished();
    double seconds = -1;
    if (ended >= 3 && rate(s) > 0) {
      seconds = left / rate(s);
    }
    if (paceNanos > 1) {
      seconds = Math.max(seconds, left * (paceNanos / 1e9));
    }
    if (waitNanos > 0) {
      seconds = Math.max(seconds, waitNanos / 1e9);
    }
    if (seconds < 0) {
      return "unknown";
    }
    return Format.duration(Duration.ofMillis(Math.round(seconds * 1000)));
  }

  /** Shows the progress of a run on a thread of its own until {@link #finish} is called. */
  static final class Live {
    private final BatchRun run;
    private final PrintWriter err;
    private final Mode mode;
    private final Duration every;
    private final String prefix;
    private final CountDownLatch finished = new CountDownLatch(1);
    private Thread thread;
    private int lastWidth;

    /**
     * @param run the run
     * @param err where to draw
     * @param mode bar, lines or off
     * @param every how often a plain line is printed (the bar is redrawn every 250 ms)
     * @param prefix the start of each plain line, e.g. {@code relent batch: }
     */
    Live(BatchRun run, PrintWriter err, Mode mode, Duration every, String prefix) {
      this.run = run;
      this.err = err;
      this.mode = mode;
      this.every = every;
      this.prefix = prefix;
    }

    void start() {
      if (mode == Mode.OFF) {
        return;
      }
      long period = mode == Mode.BAR ? 250_000_000L : every.toNanos();
      thread =
          new Thread(
              () -> {
                try {
                  while (!finished.await(period, TimeUnit.NANOSECONDS)) {
                    draw();
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "relent-batch-progress");
      thread.setDaemon(true);
      thread.start();
    }

    private synchronized void draw() {
      BatchTimeline.Snapshot s = run.timeline().snapshot();
      long pace = run.paceNanos();
      long wait = run.knownWaitNanos();
      if (mode == Mode.BAR) {
        String text = bar(s, pace, wait);
        StringBuilder b = new StringBuilder("\r").append(text);
        for (int i = text.length(); i < lastWidth; i++) {
          b.append(' ');
        }
        lastWidth = text.length();
        err.print(b);
      } else {
        err.println(prefix + line(s, pace, wait));
      }
      err.flush();
    }

    /** Stops the thread and draws the final state (the bar ends its line). */
    void finish() throws InterruptedException {
      finished.countDown();
      if (thread != null) {
        thread.join(1_000);
      }
      if (mode == Mode.BAR) {
        draw();
        err.println();
        err.flush();
      }
    }
  }

  // ------------------------------------------------------------------ the summary

  /**
   * The closing summary.
   *
   * @param out where to print it
   * @param run the finished run
   * @param finishedBefore the results of requests a journal had already finished (skipped)
   * @param skippedLines bad input lines skipped
   */
  static void summary(
      PrintWriter out,
      String title,
      BatchRun run,
      int finishedBefore,
      Map<String, Integer> failedBefore,
      int skippedLines) {
    BatchRecorder.Counts counts = run.counts();
    long firstAttempts = counts.firstAttempts.sum();
    long retries = counts.attempts.sum() - firstAttempts;
    long successes = counts.successes.sum();
    long failures = counts.failed();
    long unresolved = counts.open(Outcome.UNRESOLVED.slug());
    long notFinished = counts.notFinished() - unresolved;
    int requests = run.total();
    BatchSettings settings = run.settings();
    Duration elapsed = Duration.ofNanos(run.timeline().elapsedNanos());

    out.printf(
        Locale.ROOT,
        "%s%d %s in %s: %d succeeded, %d failed, %s%d not finished%n",
        title,
        requests,
        requests == 1 ? "request" : "requests",
        Format.duration(elapsed),
        successes,
        failures,
        unresolved > 0 ? unresolved + " unresolved, " : "",
        notFinished);
    if (finishedBefore > 0) {
      int failedEarlier = 0;
      for (int n : failedBefore.values()) {
        failedEarlier += n;
      }
      row(
          out,
          "finished earlier",
          finishedBefore
              + " (in the journal; skipped"
              + (failedEarlier > 0
                  ? "; "
                      + failedEarlier
                      + " failed: "
                      + String.join(", ", parts(failedBefore))
                      + ")"
                  : ")"));
    }
    if (skippedLines > 0) {
      row(out, "bad lines", skippedLines + " (skipped; see above)");
    }
    row(out, "first attempts", Long.toString(firstAttempts));
    row(out, "retries", Long.toString(retries));
    row(out, "successes", Long.toString(successes));
    row(out, "final failures", failures + breakdown(counts.failures));
    if (unresolved > 0) {
      row(
          out,
          "unresolved",
          unresolved
              + " (keyed writes that may have taken effect; a resumed run sends each again with"
              + " its key)");
    }
    if (notFinished > 0) {
      Map<String, LongAdder> open = new TreeMap<>(counts.open);
      open.remove(Outcome.UNRESOLVED.slug());
      row(out, "not finished", notFinished + breakdown(open));
    }
    row(out, "429s seen", tooManyRequests(run.timeline()));
    String doubts = headerDoubts(run.headerDoubts());
    if (!doubts.isEmpty()) {
      row(out, "suspect headers", doubts);
    }
    row(out, "pacer", pacer(run));
    List<String> scopes = scopes(run.registry(), run.quotaStops(), run.clock());
    for (int i = 0; i < scopes.size(); i++) {
      row(out, i == 0 ? "paused scopes" : "", scopes.get(i));
    }
    List<QuotaStop> stops = run.quotaStops();
    for (int i = 0; i < stops.size(); i++) {
      row(out, i == 0 ? "quota stopped" : "", quotaStop(stops.get(i), run.clock()));
    }
    row(out, "peak concurrency", concurrency(run));
    row(
        out,
        "start spacing",
        spacing(run.timeline().starts(), settings.rate())
            + (run.timeline().startsCapped()
                ? "; over the first " + BatchTimeline.MAX_STARTS + " starts"
                : ""));
    row(out, "elapsed vs plan", versusPlan(run, requests, elapsed, retries));
    if (run.stopReason() != null) {
      out.println("stopped: " + run.stopDetail());
    } else {
      for (QuotaStop q : stops) {
        out.println("stopped: " + q.describe(run.clock()));
      }
    }
    out.flush();
  }

  /**
   * {@code endpoint GET h/a/{id}: until 2026-…Z (in 24 h 0 min), 19 requests not sent; by HTTP 429
   * with Retry-After: 86400}: a scope whose quota ran out, and what became of its requests.
   */
  static String quotaStop(QuotaStop q, dev.relent.time.Clock clock) {
    long n = q.notSent();
    return q.scope()
        + ": "
        + q.until()
            .map(
                u ->
                    "until "
                        + u
                        + " (in "
                        + Format.span(
                            Duration.ofMillis(Math.max(0L, u.toEpochMilli() - clock.millis())))
                        + ")")
            .orElse("the server did not say until when")
        + ", "
        + n
        + (n == 1 ? " request" : " requests")
        + " not sent; "
        + (q.earlierRun() > 0 ? "run " + q.earlierRun() + " of the journal was told by " : "by ")
        + q.cause();
  }

  /**
   * {@code 5 answers said more remain than the limit (the pacer was no faster for it)}: rate-limit
   * headers that cannot be true, and what was done about them; empty when there were none.
   */
  static String headerDoubts(Map<ServerHints.Doubt, Long> doubts) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<ServerHints.Doubt, Long> e : doubts.entrySet()) {
      long n = e.getValue();
      String answers = n + (n == 1 ? " answer" : " answers");
      switch (e.getKey()) {
        case REMAINING_ABOVE_LIMIT:
          parts.add(answers + " said more remain than the limit (the pacer was no faster for it)");
          break;
        case RESET_PAST:
          parts.add(answers + " gave an epoch reset already past (read as a reset now)");
          break;
        case RESET_BEYOND_A_YEAR:
          parts.add(
              answers + " gave a reset more than a year away (a pause is capped at --max-wait)");
          break;
        default:
          parts.add(answers + " " + e.getKey());
      }
    }
    return String.join("; ", parts);
  }

  /**
   * {@code 3 (2 said how long and paused their scope; 1 said nothing and paused nothing: that
   * request backed off alone)}: what the 429s really did.
   */
  static String tooManyRequests(BatchTimeline timeline) {
    int all = timeline.tooManyRequestsSeen();
    if (all == 0) {
      return "0";
    }
    int withWait = timeline.tooManyRequestsWithWait();
    int without = all - withWait;
    List<String> parts = new ArrayList<>(2);
    if (withWait > 0) {
      parts.add(
          withWait
              + (withWait == 1
                  ? " said how long and paused its scope"
                  : " said how long and paused their scope")
              + " for every worker");
    }
    if (without > 0) {
      parts.add(
          without
              + " said nothing and paused nothing: "
              + (without == 1 ? "that request" : "each of those requests")
              + " backed off alone");
    }
    return all + " (" + String.join("; ", parts) + ")";
  }

  /**
   * What paces the queue's starts: the ceiling (or none), each scope's adaptive pacer, where their
   * schedules are shared, and the scopes whose pacer learned a slower rate, with the interval each
   * has at the end.
   */
  static String pacer(BatchRun run) {
    Rate rate = run.settings().rate();
    BatchSettings.Shared shared = run.settings().shared();
    String where = shared == null ? "" : ", " + shared.describe();
    String head =
        rate == null
            ? "adaptive (no --rate): each scope learns its own rate from its rate-limit headers and"
                + " 429s"
                + where
            : "adaptive, at most "
                + rate
                + " (--rate), retries included"
                + where
                + "; each scope learns its own rate under it";
    List<ScopeGuards> slowed = run.slowedScopes();
    if (slowed.isEmpty()) {
      return head
          + "; "
          + (rate == null
              ? "not pacing at the end (no throttle or quota seen)"
              : "one start every " + Format.millis(run.ceiling().interval()) + " at the end");
    }
    List<String> parts = new ArrayList<>();
    for (ScopeGuards g : slowed.subList(0, Math.min(3, slowed.size()))) {
      parts.add(
          g.scope()
              + " one start every "
              + Format.millis(Duration.ofNanos(BatchRun.intervalOf(g))));
    }
    if (slowed.size() > 3) {
      parts.add("and " + (slowed.size() - 3) + " more");
    }
    long others =
        run.registry().scopes().stream().filter(g -> g.scope().kind() == run.scopeKind()).count()
            - slowed.size();
    return head
        + "; at the end "
        + String.join(", ", parts)
        + (others <= 0
            ? ""
            : rate == null ? "; the other scopes not pacing" : "; the other scopes at the ceiling");
  }

  /**
   * One line per scope paused during the run: {@code endpoint GET h/items/{id}: paused 2 times,
   * until 2026-…Z (in 59 s) by HTTP 429 from GET h/items/7 (Retry-After: 60)}, or {@code …: paused
   * 1 time, over now; last by …}. A scope whose quota ran out shows the reset of its quota stop,
   * the one time the summary, the results and the journal give for it. Empty if none was.
   */
  static List<String> scopes(
      GuardRegistry registry, List<QuotaStop> stops, dev.relent.time.Clock clock) {
    List<ScopeGuards> paused = new ArrayList<>();
    for (ScopeGuards g : registry.scopes()) {
      if (g.pauseCount() > 0) {
        paused.add(g);
      }
    }
    paused.sort(Comparator.comparing(g -> g.scope().toString()));
    List<String> lines = new ArrayList<>(paused.size());
    for (ScopeGuards g : paused) {
      StringBuilder b = new StringBuilder().append(g.scope()).append(": paused ");
      b.append(g.pauseCount()).append(g.pauseCount() == 1 ? " time, " : " times, ");
      QuotaStop stop = null;
      for (QuotaStop q : stops) {
        if (q.scope().equals(g.scope()) && q.until().isPresent()) {
          stop = q;
        }
      }
      if (g.isPaused()) {
        String until;
        Duration in;
        if (stop != null) {
          until = stop.until().get().toString();
          in = Duration.ofMillis(Math.max(0L, stop.until().get().toEpochMilli() - clock.millis()));
        } else {
          until = g.pausedUntil().map(Format::instant).orElse("?");
          in = g.pauseRemaining();
        }
        b.append("until ")
            .append(until)
            .append(" (in ")
            .append(Format.span(in))
            .append(") by ")
            .append(g.pauseCause().orElse("?"));
      } else {
        b.append("over now; last by ").append(g.lastPauseCause().orElse("?"));
      }
      lines.add(b.toString());
    }
    return lines;
  }

  private static void row(PrintWriter out, String name, String value) {
    out.printf(Locale.ROOT, "  %-18s %s%n", name, value);
  }

  private static String breakdown(Map<String, LongAdder> counts) {
    if (counts.isEmpty()) {
      return "";
    }
    Map<String, Long> sums = new TreeMap<>();
    counts.forEach((k, v) -> sums.put(k, v.sum()));
    return " (" + String.join(", ", parts(sums)) + ")";
  }

  /** {@code outcome count} for each entry, in the map's order. */
  private static List<String> parts(Map<String, ? extends Number> counts) {
    List<String> parts = new ArrayList<>();
    counts.forEach((k, v) -> parts.add(k + " " + v));
    return parts;
  }

  /**
   * {@code median 125 ms, min 94 ms, mean 160 ms between attempt starts (pace: one every 125 ms)}.
   * A thread that wakes late starts late, and the next start keeps its slot: single gaps can be
   * shorter than the pace, the mean never is.
   */
  static String spacing(long[] starts, Rate rate) {
    String pace =
        rate == null
            ? "pace learned: see pacer"
            : "pace: one every " + Format.millis(rate.interval());
    if (starts.length < 2) {
      return "fewer than two starts (" + pace + ")";
    }
    long[] gaps = new long[starts.length - 1];
    for (int i = 1; i < starts.length; i++) {
      gaps[i - 1] = starts[i] - starts[i - 1];
    }
    Arrays.sort(gaps);
    long mean = (starts[starts.length - 1] - starts[0]) / gaps.length;
    return "median "
        + Format.millis(Duration.ofNanos(gaps[gaps.length / 2]))
        + ", min "
        + Format.millis(Duration.ofNanos(gaps[0]))
        + ", mean "
        + Format.millis(Duration.ofNanos(mean))
        + " between attempt starts ("
        + pace
        + ")";
  }

  /** {@code 4 in flight (limit 4); average 0.69 by Little's law (8/s x 87 ms per attempt)}. */
  static String concurrency(BatchRun run) {
    BatchSettings settings = run.settings();
    String peak =
        run.timeline().peakInFlight() + " in flight (limit " + settings.concurrency() + ")";
    long mean = run.timeline().meanAttemptNanos();
    if (mean < 0) {
      return peak;
    }
    double rate;
    String label;
    if (settings.rate() == null) {
      double seconds = run.timeline().elapsedNanos() / 1e9;
      rate = seconds <= 0 ? 0 : run.timeline().starts().length / seconds;
      label = "; average ";
    } else {
      rate = settings.rate().perSecond();
      label = "; planned average ";
    }
    return peak
        + label
        + Format.number(rate * mean / 1e9)
        + " (Little's law: "
        + Format.number(rate)
        + (settings.rate() == null ? "/s achieved x " : "/s x ")
        + Format.millis(Duration.ofNanos(mean))
        + " per attempt)";
  }

  /** {@code 5.49 s; the plan: at least 3.38 s for 27 at 480/min (+2.11 s: 8 retries, waits)}. */
  static String versusPlan(BatchRun run, int requests, Duration elapsed, long retries) {
    Rate rate = run.settings().rate();
    if (rate == null) {
      double seconds = elapsed.toNanos() / 1e9;
      return Format.duration(elapsed)
          + " for "
          + requests
          + " ("
          + Format.number(seconds <= 0 ? 0 : requests / seconds)
          + "/s); no plan without --rate";
    }
    Duration latency = Duration.ofNanos(Math.max(1L, run.timeline().meanAttemptNanos()));
    Plan plan = Plan.of(rate, rate, requests, latency, run.settings().concurrency(), null);
    long diff = elapsed.toNanos() - plan.minimumDuration().toNanos();
    String more =
        diff > 0
            ? " (+"
                + Format.duration(Duration.ofNanos(diff))
                + (run.settings().shared() != null
                    ? ": the rate is shared with the account's other processes"
                        + (retries > 0
                            ? ", and " + retries + (retries == 1 ? " retry" : " retries")
                            : "")
                    : retries > 0
                        ? ": "
                            + retries
                            + (retries == 1 ? " retry" : " retries")
                            + " and their waits"
                        : ": latency and server waits")
                + ")"
            : "";
    return Format.duration(elapsed)
        + "; the plan: at least "
        + Format.duration(plan.minimumDuration())
        + " for "
        + requests
        + " at "
        + rate
        + more;
  }
}
