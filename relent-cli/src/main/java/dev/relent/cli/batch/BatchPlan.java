package dev.relent.cli.batch;

import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Json;
import dev.relent.cli.common.UsageError;
import dev.relent.http.Redactor;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/**
 * What a batch will do, decided before anything is sent: the first pass over the input (every line
 * checked, bad ones reported as found) and, with a journal of earlier runs, what they finished and
 * which writes are sent again with their journaled keys. A request changed since its key was
 * journaled is refused here, as a usage error, so that nothing is sent. Stateless.
 */
final class BatchPlan {
  private BatchPlan() {}

  /** The first pass: every line checked, bad ones reported as found; nothing kept per request. */
  static BatchInput.Scan scan(CommandLine cli, Path input, Redactor redactor, boolean strict) {
    PrintWriter err = cli.getErr();
    BatchInput.Scan scan;
    try {
      if (Files.isDirectory(input)) {
        throw new UsageError(cli, input + ": is a directory, not a file");
      }
      scan =
          BatchInput.scan(
              input,
              redactor,
              p -> err.println("relent batch: " + p.message() + (strict ? "" : " (line skipped)")));
    } catch (NoSuchFileException e) {
      throw new UsageError(cli, input + ": no such file");
    } catch (AccessDeniedException e) {
      throw new UsageError(cli, input + ": permission denied");
    } catch (IOException e) {
      throw new UsageError(cli, input + ": cannot read: " + e.getMessage());
    }
    if (strict && scan.problems() > 0) {
      int n = scan.problems();
      throw new UsageError(
          cli,
          n
              + (n == 1 ? " bad line" : " bad lines")
              + " in "
              + input
              + " (--strict): nothing was sent");
    }
    return scan;
  }

  /**
   * What the journal says of the input's requests that finished in earlier runs: how many, the
   * worst exit code among them, whether one ended in an unexpected error, and those that failed by
   * outcome.
   */
  record Earlier(int finished, int worst, boolean error, Map<String, Integer> failed) {
    static final Earlier NONE = new Earlier(0, ExitCodes.OK, false, Map.of());

    int failedCount() {
      int n = 0;
      for (int c : failed.values()) {
        n += c;
      }
      return n;
    }
  }

  /**
   * A pass over the input against the journal, before anything is sent: refuses a request changed
   * since its key was journaled, counts those finished earlier and the writes sent again.
   */
  static Earlier resume(
      CommandLine cli,
      Path input,
      Redactor redactor,
      BatchJournal journal,
      BatchInput.Scan scan,
      PrintWriter err)
      throws IOException {
    int finished = 0;
    int worst = ExitCodes.OK;
    boolean error = false;
    int resentKeys = 0;
    try (BatchInput.Requests requests = BatchInput.requests(input, redactor, scan)) {
      BatchInput.Request r;
      while ((r = requests.next()) != null) {
        BatchJournal.Finished f = journal.check(r.id(), r.fingerprint());
        if (f.changed()) {
          throw new UsageError(
              cli,
              "--journal "
                  + journal.file()
                  + ": request "
                  + Json.quote(r.id())
                  + " (line "
                  + r.line()
                  + ") changed since its Idempotency-Key was journaled (method, URL or body"
                  + " differ); restore the line, or start a new journal for a new batch");
        }
        if (f.finished()) {
          finished++;
          if (f.exitCode() == ExitCodes.ERROR) {
            error = true;
          } else {
            worst = Math.max(worst, f.exitCode());
          }
        } else if (journal.keyOf(r.id()) != null) {
          resentKeys++;
        }
      }
    }
    if (journal.runs() > 0) {
      err.println(
          "relent batch: resuming from "
              + journal.file()
              + " (run "
              + (journal.runs() + 1)
              + "): "
              + finished
              + " of "
              + scan.requests()
              + " finished earlier (skipped); "
              + resentKeys
              + (resentKeys == 1 ? " write" : " writes")
              + " sent again with the key journaled before its first send");
    }
    return new Earlier(finished, worst, error, journal.failedBefore());
  }
}
