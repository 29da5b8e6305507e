package dev.relent.cli;

import dev.relent.http.Idempotency;
import dev.relent.http.Redactor;
import dev.relent.time.Ticker;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * What happened to each request of a batch: its idempotency key, its attempts, its waits, and how
 * it ended, which is journaled and then appended to the results.
 *
 * <p>Design. Attempt facts (number, start, duration, outcome, the decision and the wait after it,
 * pacer waits) come in through {@link #attemptStarted}, {@link #attemptEnded}, {@link
 * #attemptDecided} and {@link #paced}, called by {@link BatchEvents} only: the recorder does not
 * know how they are observed. A write's key is journaled, and forced to the disk, before its first
 * send ({@link #key}). An outcome is journaled first, then appended to the results, so that a crash
 * between the two loses nothing a resumed run needs ({@link #record}); a file that cannot be
 * written stops the run.
 *
 * <p>Thread-safety: a job is written by the worker that sends it only; its {@link Job#item} is
 * volatile, for the progress thread and the summary. The results writer is shared under its lock;
 * the journal serialises its appends.
 */
final class BatchRecorder {

  /** One network attempt of a request, for the timeline. Written by the request's worker only. */
  static final class Attempt {
    int number;
    long startNanos;
    long durationNanos = -1;
    int status = -1;
    String outcome;
    String verdict;
    String rule;
    String decision;
    long waitNanos = -1;
    String hint;
    boolean replayed;
    String gaveUp;
  }

  /** A request and what happened to it. */
  static final class Job {
    final BatchInput.Request request;
    String key;
    final List<Attempt> attempts = new ArrayList<>();
    Attempt open;
    long pacedNanos;
    final List<Long> waits = new ArrayList<>();
    long startNanos = -1;
    volatile Item item;

    Job(BatchInput.Request request) {
      this.request = request;
    }
  }

  /**
   * How one request ended: a line of the results.
   *
   * @param id the request's id
   * @param line its line in the input
   * @param method its method
   * @param url its URL, redacted
   * @param outcome a {@link CallOutcome#reason()}, or {@code not-sent} or {@code stopped}
   * @param isFinal whether this is its final outcome (a resumed run skips it)
   * @param status the last HTTP status, or -1
   * @param attempts network attempts made
   * @param waitsNanos the waits chosen before each retry
   * @param pacedNanos the time spent waiting for the pacer
   * @param elapsedNanos from its first wait or attempt to its outcome
   * @param key its idempotency key, or null
   * @param error what went wrong, redacted, or null
   */
  record Item(
      String id,
      int line,
      String method,
      String url,
      String outcome,
      boolean isFinal,
      int status,
      int attempts,
      List<Long> waitsNanos,
      long pacedNanos,
      long elapsedNanos,
      String key,
      String error) {

    /** The results line (and the journal's {@code result}). */
    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", id);
      m.put("line", (long) line);
      m.put("method", method);
      m.put("url", url);
      m.put("outcome", outcome);
      m.put("final", isFinal);
      m.put("status", status < 0 ? null : (Object) (long) status);
      m.put("attempts", (long) attempts);
      List<Object> w = new ArrayList<>();
      for (long n : waitsNanos) {
        w.add(Format.jsonMillis(n));
      }
      m.put("waits_ms", w);
      m.put("paced_ms", Format.jsonMillis(pacedNanos));
      m.put("elapsed_ms", Format.jsonMillis(elapsedNanos));
      m.put("idempotency_key", key);
      m.put("error", error);
      return m;
    }

    boolean success() {
      return outcome.equals("success");
    }

    /** What it contributes to the exit code. */
    int exitCode() {
      return ExitCodes.of(outcome);
    }
  }

  private final List<Job> jobs;
  private final BatchJournal journal;
  private final Writer out;
  private final Ticker ticker;
  private final Redactor redactor;
  private final BatchTimeline timeline;
  private final BiConsumer<BatchRun.Stop, String> stop;

  /**
   * @param requests the requests to send, in order
   * @param journal the journal, or null
   * @param out where results lines go, or null
   * @param ticker monotonic time
   * @param redactor scrubs URLs and messages
   * @param timeline counts what ended, and gives the run's origin
   * @param stop stops the run when the journal or the results cannot be written
   */
  BatchRecorder(
      List<BatchInput.Request> requests,
      BatchJournal journal,
      Writer out,
      Ticker ticker,
      Redactor redactor,
      BatchTimeline timeline,
      BiConsumer<BatchRun.Stop, String> stop) {
    List<Job> js = new ArrayList<>();
    for (BatchInput.Request r : requests) {
      js.add(new Job(r));
    }
    this.jobs = List.copyOf(js);
    this.journal = journal;
    this.out = out;
    this.ticker = ticker;
    this.redactor = redactor;
    this.timeline = timeline;
    this.stop = stop;
  }

  List<Job> jobs() {
    return jobs;
  }

  /** Marks a request's turn: its elapsed time starts now. */
  void begin(Job job) {
    job.startNanos = ticker.read();
    timeline.requestStarted();
  }

  /**
   * Returns a request's key: the one journaled for it before, the one its line gives, or a new one
   * for a write, journaled before it is returned; null for a request sent without one.
   *
   * @throws IOException if the journal cannot be written; the request must not be sent
   */
  String key(Job job) throws IOException {
    BatchInput.Request r = job.request;
    if (!r.keyed()) {
      return null;
    }
    BatchJournal.Key journaled = journal == null ? null : journal.keyOf(r.id());
    if (journaled != null) {
      job.key = journaled.key();
      return job.key;
    }
    job.key = r.givenKey() != null ? r.givenKey() : Idempotency.newKey();
    if (journal != null) {
      journal.key(r.id(), job.key, r.fingerprint());
    }
    return job.key;
  }

  // ------------------------------------------------------------------ attempt facts

  /** An attempt reached the network at {@code startNanos} (ticker time). */
  void attemptStarted(Job job, long startNanos) {
    Attempt a = new Attempt();
    a.number = job.attempts.size() + 1;
    a.startNanos = startNanos - timeline.origin();
    job.open = a;
    job.attempts.add(a);
  }

  /**
   * The attempt's outcome is known at {@code endNanos}; an attempt whose start was not seen starts
   * then.
   *
   * @param status the HTTP status, or -1 for a fault
   * @param replayed whether the server replayed a stored answer
   * @param outcome the outcome described ({@code HTTP 503}, {@code connection reset ...})
   * @param verdict the verdict's kind as a slug, or null
   * @param rule the rule that decided, or null
   * @param hint the server hint that counted, redacted, or null
   */
  void attemptEnded(
      Job job,
      long endNanos,
      int status,
      boolean replayed,
      String outcome,
      String verdict,
      String rule,
      String hint) {
    if (job.open == null) {
      attemptStarted(job, endNanos);
    }
    Attempt a = job.open;
    a.durationNanos = Math.max(0L, endNanos - timeline.origin() - a.startNanos);
    a.status = status;
    a.replayed = replayed;
    a.outcome = outcome;
    a.verdict = verdict;
    a.rule = rule;
    a.hint = hint;
  }

  /**
   * What came after the attempt: another after {@code waitNanos} ({@code retry}), or none ({@code
   * stop}, with why the executor gave up, or null after a success).
   */
  void attemptDecided(Job job, String decision, long waitNanos, String gaveUp) {
    if (decision.equals("retry")) {
      job.waits.add(waitNanos);
    }
    Attempt a = job.open;
    if (a == null) {
      // A give-up between attempts (no time left for the next one): the outcome reports it.
      return;
    }
    a.decision = decision;
    a.waitNanos = waitNanos;
    a.gaveUp = gaveUp;
    job.open = null;
  }

  /** The request waited {@code nanos} for the pacer before an attempt. */
  void paced(Job job, long nanos) {
    job.pacedNanos += nanos;
  }

  // ------------------------------------------------------------------ outcomes

  /** The outcome of a send, final or not. */
  Item item(Job job, CallOutcome outcome, boolean isFinal) {
    return item(
        job,
        outcome.reason(),
        isFinal,
        outcome.status(),
        outcome.success() ? null : outcome.message());
  }

  /** A request that never reached the network: not final, a later run may send it. */
  Item notSent(Job job, String why) {
    return item(job, "not-sent", false, -1, why);
  }

  /** A request sent, but the run stopped before it had a final answer. */
  Item stopped(Job job, String stopDetail) {
    String why = "stopped: " + (stopDetail == null ? "interrupted" : stopDetail);
    int last = job.attempts.isEmpty() ? -1 : job.attempts.get(job.attempts.size() - 1).status;
    return item(job, "stopped", false, last, why);
  }

  private Item item(Job job, String outcome, boolean isFinal, int status, String error) {
    BatchInput.Request r = job.request;
    long elapsed = job.startNanos < 0 ? 0 : Math.max(0L, ticker.read() - job.startNanos);
    return new Item(
        r.id(),
        r.line(),
        r.method(),
        redactor.uri(r.request().uri()),
        outcome,
        isFinal,
        status,
        job.attempts.size(),
        List.copyOf(job.waits),
        job.pacedNanos,
        elapsed,
        job.key,
        error == null ? null : redactor.text(error));
  }

  /** Journals the outcome, then appends it to the results; the journal comes first. */
  void record(Job job, Item item) {
    job.item = item;
    timeline.ended(item);
    if (journal != null) {
      try {
        journal.outcome(item.id(), item.isFinal(), item.json());
      } catch (IOException e) {
        stop.accept(BatchRun.Stop.ERROR, "the journal cannot be written: " + e.getMessage());
      }
    }
    if (out != null) {
      synchronized (out) {
        try {
          out.write(JsonTree.write(item.json()));
          out.write('\n');
          out.flush();
        } catch (IOException e) {
          stop.accept(BatchRun.Stop.ERROR, "the results cannot be written: " + e.getMessage());
        }
      }
    }
  }
}
