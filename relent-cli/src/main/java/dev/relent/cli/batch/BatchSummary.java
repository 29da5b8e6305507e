package dev.relent.cli.batch;

import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Outcome;
import java.io.PrintWriter;
import java.util.List;

/**
 * What {@code relent batch} says when a run ends, after {@link BatchDisplay#summary}: its exit code
 * (the highest of 6, 5, 4, 3 among the requests, earlier runs' included; 1 only when nothing else
 * failed), what was not finished or not sent and how to finish it, and the closing line that names
 * why the code is not 0. Stateless.
 */
final class BatchSummary {
  private BatchSummary() {}

  /** After the summary: what was not finished or not sent, and how to finish it. */
  static void whatIsLeft(PrintWriter out, BatchRun run, boolean journaled) {
    if (resumable(run.stopReason())) {
      long left = run.counts().notFinished();
      if (left > 0) {
        out.println(
            "  "
                + left
                + (left == 1 ? " request was" : " requests were")
                + " not finished; "
                + (journaled
                    ? "to resume, run the same command: the journal skips what finished, and"
                        + " sends the rest (each write with the key it was first sent with)"
                    : "a new run sends every request again (with --journal, the same command"
                        + " would resume, skipping what finished)"));
      }
    } else if (run.stopReason() == null && !run.quotaStops().isEmpty()) {
      long left = run.counts().open(Outcome.NOT_SENT.slug());
      out.println(
          "  "
              + left
              + (left == 1 ? " request was" : " requests were")
              + " not sent; "
              + (journaled
                  ? "run the same command after the reset: the journal skips what finished,"
                      + " and holds a scope back until its reset"
                  : "send them after the reset (with --journal, the same command would resume)"));
    }
  }

  /**
   * The exit code of the whole input, requests finished in earlier runs included: 6 over 5 over 4
   * over 3; 1 only when nothing else failed; bad lines count as 3; a journal that cannot be written
   * is 1.
   */
  static int exitCode(BatchRun run, int badLines, BatchPlan.Earlier earlier) {
    if (run.stopReason() == BatchStop.ERROR) {
      return ExitCodes.ERROR;
    }
    BatchRecorder.Counts counts = run.counts();
    int worst = Math.max(badLines > 0 ? ExitCodes.NOT_RETRIED : ExitCodes.OK, earlier.worst());
    for (int c = ExitCodes.NOT_RETRIED; c <= ExitCodes.UNRESOLVED; c++) {
      if (counts.withExitCode(c) > 0) {
        worst = Math.max(worst, c);
      }
    }
    boolean error = earlier.error() || counts.withExitCode(ExitCodes.ERROR) > 0;
    if (run.stopReason() != null || !run.quotaStops().isEmpty()) {
      worst = Math.max(worst, ExitCodes.DEADLINE);
    }
    return worst == ExitCodes.OK && error ? ExitCodes.ERROR : worst;
  }

  static String closing(BatchRun run, int code, boolean journaled, int failedEarlier) {
    if (code == ExitCodes.UNRESOLVED) {
      long n = run.counts().open(Outcome.UNRESOLVED.slug());
      return n
          + (n == 1 ? " write is" : " writes are")
          + " unresolved: "
          + (n == 1 ? "it" : "each")
          + " may have taken effect; "
          + (journaled
              ? "run the same command again: the journal sends "
                  + (n == 1 ? "it" : "each")
                  + " again with its key until the server's answer resolves it"
              : "send "
                  + (n == 1 ? "it" : "each")
                  + " again with the idempotency_key of its results line")
          + (run.stopReason() != null
              ? "; stopped: " + run.stopDetail()
              : run.quotaStops().isEmpty() ? "" : "; " + quotaStopped(run));
    }
    if (run.stopReason() != null) {
      long left = run.counts().notFinished();
      if (!resumable(run.stopReason()) || left == 0) {
        return "stopped: " + run.stopDetail();
      }
      return "stopped: "
          + run.stopDetail()
          + "; "
          + left
          + (left == 1 ? " request" : " requests")
          + " not finished: "
          + (journaled
              ? "to resume, run the same command; the journal skips what finished"
              : "a new run sends every request again (with --journal, the same command would"
                  + " skip what finished)");
    }
    if (!run.quotaStops().isEmpty()) {
      return quotaStopped(run);
    }
    String earlier =
        failedEarlier > 0
            ? " (" + failedEarlier + " of them in earlier runs, kept in the journal)"
            : "";
    switch (code) {
      case ExitCodes.NOT_RETRIED:
        return "some requests failed without retry, or bad lines were skipped"
            + earlier
            + "; see the results";
      case ExitCodes.RETRIES_EXHAUSTED:
        return "some requests used up their retries" + earlier + "; see the results";
      case ExitCodes.DEADLINE:
        return "some requests ran out of time or quota" + earlier + "; see the results";
      default:
        return "some requests ended with an unexpected error" + earlier + "; see the results";
    }
  }

  /**
   * Whether the run stopped for a reason that running the same command again gets past: Ctrl-C or
   * the batch deadline, not a journal that cannot be written.
   */
  private static boolean resumable(BatchStop stop) {
    return stop == BatchStop.INTERRUPTED || stop == BatchStop.BATCH_DEADLINE;
  }

  /**
   * {@code stopped: the quota of endpoint GET h/a/{id} is exhausted (…); it resets at … (in …); 19
   * requests not sent}, or, for several scopes, how many and how many requests.
   */
  private static String quotaStopped(BatchRun run) {
    List<QuotaStop> stops = run.quotaStops();
    long notSent = 0;
    for (QuotaStop q : stops) {
      notSent += q.notSent();
    }
    String unsent = notSent + (notSent == 1 ? " request" : " requests") + " not sent";
    if (stops.size() == 1) {
      return "stopped: " + stops.get(0).describe(run.clock()) + "; " + unsent;
    }
    return "stopped: the quota of "
        + stops.size()
        + " scopes is exhausted; "
        + unsent
        + " (see the summary: quota stopped)";
  }
}
