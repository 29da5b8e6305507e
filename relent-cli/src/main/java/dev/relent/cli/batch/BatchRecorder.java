package dev.relent.cli.batch;

import dev.relent.cli.common.CallOutcome;
import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Format;
import dev.relent.cli.common.JsonTree;
import dev.relent.cli.common.Outcome;
import dev.relent.guard.Scope;
import dev.relent.http.AttemptRecord;
import dev.relent.http.Idempotency;
import dev.relent.http.Redactor;
import dev.relent.time.Ticker;
import java.io.IOException;
import java.io.Writer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * What happened to each request of a batch: its idempotency key, its attempts, its waits, and how
 * it ended, which is journaled and then appended to the results.
 *
 * <p>Design. A request's attempts come in as relent-http's {@link AttemptRecord}s through {@link
 * #attempted}, which {@link BatchEvents} calls from the request's own attempt listener; their
 * starts count from {@link #sending}. The waits and the pacer's share of the elapsed time follow
 * from the records. A write's key is journaled, and forced to the disk, before its first send
 * ({@link #key}). An outcome is journaled first, then appended to the results, so that a crash
 * between the two loses nothing a resumed run needs ({@link #record}); a file that cannot be
 * written stops the run.
 *
 * <p>Thread-safety: a job is written by the worker that sends it only; its {@link Job#item} is
 * volatile, for the progress thread and the summary. The results writer is shared under its lock,
 * and flushed by the last of the workers writing at once as it leaves (so a burst of lines is one
 * write to the file, and no line waits for a later request); the journal serialises its appends.
 */
final class BatchRecorder {
  private static final String UNKEYED_MAY_HAVE_TAKEN_EFFECT =
      "it may have taken effect, and carries no idempotency key, so it is not sent again (a resumed"
          + " run skips it too): check whether it took effect before sending it again, or give it"
          + " an idempotency key";

  /** A request and what happened to it. */
  static final class Job {
    final BatchInput.Request request;

    /** Its scopes, broadest first, as the client derives them; set when the job is made. */
    List<Scope> scopes = List.of();

    String key;

    /** Its attempts as relent-http records them, in order. */
    final List<AttemptRecord> attempts = new ArrayList<>();

    long startNanos = -1;

    /** When its send began, from the start of the run: the origin of its attempts' starts. */
    long sendNanos;

    volatile Item item;

    Job(BatchInput.Request request) {
      this.request = request;
    }

    /** When an attempt began, from the start of the run. */
    long startNanos(AttemptRecord a) {
      return sendNanos + a.start().toNanos();
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

    /**
     * The results line, newline included: the same text as {@code JsonTree.write(json())}, written
     * without building the map, the numbers or a generator (a request's largest cost in the
     * recorder, when each is one line).
     */
    String resultsLine() {
      StringBuilder b = new StringBuilder(256);
      b.append("{\"id\":");
      string(b, id);
      b.append(",\"line\":").append(line);
      b.append(",\"method\":");
      string(b, method);
      b.append(",\"url\":");
      string(b, url);
      b.append(",\"outcome\":");
      string(b, outcome);
      b.append(",\"final\":").append(isFinal);
      b.append(",\"status\":");
      if (status < 0) {
        b.append("null");
      } else {
        b.append(status);
      }
      b.append(",\"attempts\":").append(attempts);
      b.append(",\"waits_ms\":[");
      for (int i = 0; i < waitsNanos.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        millis(b, waitsNanos.get(i));
      }
      b.append("],\"paced_ms\":");
      millis(b, pacedNanos);
      b.append(",\"elapsed_ms\":");
      millis(b, elapsedNanos);
      b.append(",\"idempotency_key\":");
      string(b, key);
      b.append(",\"error\":");
      string(b, error);
      return b.append("}\n").toString();
    }

    /** A JSON string; one that needs escaping is written by the JSON writer, as in the journal. */
    private static void string(StringBuilder b, String s) {
      if (s == null) {
        b.append("null");
        return;
      }
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c < 0x20 || c == '"' || c == '\\') {
          b.append(JsonTree.write(s));
          return;
        }
      }
      b.append('"').append(s).append('"');
    }

    /** {@link Format#jsonMillis} as JSON: milliseconds, three decimals at most, no trailing 0. */
    private static void millis(StringBuilder b, long nanos) {
      if (nanos < 0 || nanos > Long.MAX_VALUE - 500) {
        b.append(Format.jsonMillis(nanos).toPlainString());
        return;
      }
      long micros = (nanos + 500) / 1000;
      b.append(micros / 1000);
      int fraction = (int) (micros % 1000);
      if (fraction != 0) {
        b.append('.').append((char) ('0' + fraction / 100));
        if (fraction % 100 != 0) {
          b.append((char) ('0' + fraction / 10 % 10));
          if (fraction % 10 != 0) {
            b.append((char) ('0' + fraction % 10));
          }
        }
      }
    }

    boolean success() {
      return Outcome.of(outcome) == Outcome.SUCCESS;
    }

    /** What it contributes to the exit code. */
    int exitCode() {
      return ExitCodes.of(outcome);
    }
  }

  /**
   * What the run counts as requests end: the summary and the exit code read these, never a list of
   * requests, so that memory does not grow with the queue.
   */
  static final class Counts {
    final LongAdder firstAttempts = new LongAdder();
    final LongAdder attempts = new LongAdder();
    final LongAdder successes = new LongAdder();
    final Map<String, LongAdder> failures = new ConcurrentSkipListMap<>();
    final Map<String, LongAdder> open = new ConcurrentSkipListMap<>();
    private final AtomicIntegerArray byExitCode = new AtomicIntegerArray(ExitCodes.UNRESOLVED + 1);

    void add(Item item) {
      attempts.add(item.attempts());
      if (item.attempts() > 0) {
        firstAttempts.increment();
      }
      if (item.success()) {
        successes.increment();
      } else {
        (item.isFinal() ? failures : open)
            .computeIfAbsent(item.outcome(), k -> new LongAdder())
            .increment();
      }
      int code = item.exitCode();
      byExitCode.incrementAndGet(code < byExitCode.length() ? code : ExitCodes.ERROR);
    }

    /** How many requests ended with an outcome whose exit code is {@code code}. */
    int withExitCode(int code) {
      return byExitCode.get(code);
    }

    long failed() {
      return sum(failures);
    }

    long notFinished() {
      return sum(open);
    }

    long open(String outcome) {
      LongAdder n = open.get(outcome);
      return n == null ? 0 : n.sum();
    }

    private static long sum(Map<String, LongAdder> counts) {
      long n = 0;
      for (LongAdder a : counts.values()) {
        n += a.sum();
      }
      return n;
    }
  }

  private final Counts counts = new Counts();
  private final BatchJournal journal;
  private final Writer out;
  private final Ticker ticker;
  private final Redactor redactor;
  private final BatchTimeline timeline;
  private final BiConsumer<BatchStop, String> stop;
  private volatile BatchReport report;

  /** Workers writing a results line now or waiting to; the last one out flushes. */
  private final AtomicInteger writing = new AtomicInteger();

  /**
   * @param journal the journal, or null
   * @param out where results lines go, or null
   * @param ticker monotonic time
   * @param redactor scrubs URLs and messages
   * @param timeline counts what ended, and gives the run's origin
   * @param stop stops the run when the journal or the results cannot be written
   */
  BatchRecorder(
      BatchJournal journal,
      Writer out,
      Ticker ticker,
      Redactor redactor,
      BatchTimeline timeline,
      BiConsumer<BatchStop, String> stop) {
    this.journal = journal;
    this.out = out;
    this.ticker = ticker;
    this.redactor = redactor;
    this.timeline = timeline;
    this.stop = stop;
  }

  Counts counts() {
    return counts;
  }

  /**
   * Writes the results of requests finished in earlier runs, as the journal has them, before any of
   * this run's: the journal is the truth, so each id appears exactly once in the results, whatever
   * happened to the previous file. Nothing without a journal or without results.
   *
   * @throws IOException if the results cannot be written
   */
  void copyEarlierResults() throws IOException {
    if (journal != null && out != null) {
      journal.copyFinished(out);
      out.flush();
    }
  }

  /**
   * Journals the start of this run, if there is a journal.
   *
   * @param at the wall-clock time, as the journal writes it
   * @param requests the requests in the input
   * @param finishedBefore how many of them finished in earlier runs
   * @throws IOException if the journal cannot be written
   */
  void runStarted(String at, int requests, int finishedBefore) throws IOException {
    if (journal != null) {
      journal.runStarted(at, requests, finishedBefore);
    }
  }

  /**
   * Journals the end of this run, if there is a journal: when, its exit code, why it stopped and
   * the scopes whose quota it found exhausted.
   *
   * @throws IOException if the journal cannot be written or forced
   */
  void runEnded(String at, int exitCode, String stopped, List<Map<String, Object>> quotaStops)
      throws IOException {
    if (journal != null) {
      journal.runEnded(at, exitCode, stopped, quotaStops);
    }
  }

  /**
   * Forces what is journaled to the disk: the records queued without a force of their own (those of
   * requests never sent). A journal that cannot be written stops the run, saying so.
   */
  void forceJournal() {
    if (journal != null) {
      try {
        journal.flush();
      } catch (IOException e) {
        journalFailed(e);
      }
    }
  }

  /** A journal that cannot be written stops the run, saying why. */
  private void journalFailed(IOException e) {
    stop.accept(BatchStop.ERROR, "the journal cannot be written: " + e.getMessage());
  }

  /** Also tells {@code report} how each request ended ({@code --html}). */
  void report(BatchReport report) {
    this.report = report;
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
      if (journal != null && !Idempotency.isIdempotent(r.method())) {
        journal.unkeyed(r.id(), r.fingerprint());
      }
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

  /** The request's send begins now: its attempts' starts count from here. */
  void sending(Job job) {
    job.sendNanos = ticker.read() - timeline.origin();
  }

  /** One of the request's attempts ended and was decided. */
  void attempted(Job job, AttemptRecord record) {
    job.attempts.add(record);
  }

  /**
   * The time the request spent before its attempts beyond the retry waits chosen: waiting for the
   * shared pacer, as measured (the records give each attempt's start, duration and wait after).
   */
  private static long pacedNanos(Job job) {
    long paced = 0;
    long due = 0;
    for (AttemptRecord a : job.attempts) {
      long start = a.start().toNanos();
      paced += Math.max(0L, start - due);
      due = start + nanos(a.duration()) + nanos(a.waitTime());
    }
    return paced;
  }

  private static List<Long> waits(Job job) {
    List<Long> waits = new ArrayList<>();
    for (AttemptRecord a : job.attempts) {
      a.waitTime().ifPresent(w -> waits.add(w.toNanos()));
    }
    return List.copyOf(waits);
  }

  private static long nanos(Optional<Duration> d) {
    return d.map(Duration::toNanos).orElse(0L);
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
    return item(job, Outcome.NOT_SENT.slug(), false, -1, why);
  }

  /**
   * Whether a write without a key was sent by an earlier run that was killed before its answer: it
   * is not sent again ({@link #sentEarlier}).
   */
  boolean sentEarlierWithoutKey(Job job) {
    BatchInput.Request r = job.request;
    return journal != null
        && !r.keyed()
        && !Idempotency.isIdempotent(r.method())
        && journal.sentUnkeyed(r.id(), r.fingerprint());
  }

  /** A write without a key that an earlier run sent and was killed before its answer (final). */
  Item sentEarlier(Job job) {
    return item(
        job,
        Outcome.NOT_RESENT.slug(),
        true,
        -1,
        "an earlier run ended (killed) while this write was being sent, before an answer; "
            + UNKEYED_MAY_HAVE_TAKEN_EFFECT);
  }

  /** A request that ended with an unexpected error of its own (final, exit code 1). */
  Item error(Job job, String why) {
    return item(job, Outcome.ERROR.slug(), true, -1, why);
  }

  /**
   * A request sent, but the run stopped before it had a final answer. A write says that it may have
   * taken effect, and whether sending it again is safe: it is when it carries its idempotency key
   * (the server replays its first answer or does the work once). A write without a key is not sent
   * again, by a resumed run either: its outcome is the final {@code not-resent}, as when a retry
   * holds it back.
   */
  Item stopped(Job job, String stopDetail) {
    String why = "stopped: " + (stopDetail == null ? "interrupted" : stopDetail);
    int last = job.attempts.isEmpty() ? -1 : job.attempts.get(job.attempts.size() - 1).status();
    if (!job.attempts.isEmpty() && !Idempotency.isIdempotent(job.request.method())) {
      if (job.key == null) {
        return item(
            job, Outcome.NOT_RESENT.slug(), true, last, why + "; " + UNKEYED_MAY_HAVE_TAKEN_EFFECT);
      }
      why +=
          "; it may have taken effect, and is safe to send again: it carries its idempotency key"
              + (journal != null
                  ? ", which the journal keeps, and the same command sends it again with it"
                  : ", the idempotency_key of this line: send it again with that key");
    }
    return item(job, Outcome.STOPPED.slug(), false, last, why);
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
        waits(job),
        pacedNanos(job),
        elapsed,
        job.key,
        error == null ? null : redactor.text(error));
  }

  /** Journals the outcome, then appends it to the results; the journal comes first. */
  void record(Job job, Item item) {
    record(job, item, true);
  }

  /**
   * Records the outcome of a request that was never sent, without waiting for the journal's force
   * (a lost {@code open} record changes nothing: a resume sends the request either way); {@link
   * BatchJournal#flush} makes them durable. For the rest of a queue after a stop.
   */
  void recordNotSent(Job job, String why) {
    record(job, notSent(job, why), false);
  }

  private void record(Job job, Item item, boolean durable) {
    job.item = item;
    timeline.ended(item);
    counts.add(item);
    BatchReport r = report;
    if (r != null) {
      r.ended(job, item);
    }
    if (journal != null) {
      try {
        if (durable) {
          journal.outcome(item.id(), item.isFinal(), item.json());
        } else {
          journal.outcomeQueued(item.id(), item.isFinal(), item.json());
        }
      } catch (IOException e) {
        journalFailed(e);
      }
    }
    if (out != null) {
      String line = item.resultsLine();
      // Flushed in groups: the last of the workers writing at once flushes, for all of them, as
      // it leaves. A line waits for no later request, only for the lines written with it.
      writing.incrementAndGet();
      synchronized (out) {
        try {
          out.write(line);
        } catch (IOException e) {
          stop.accept(BatchStop.ERROR, "the results cannot be written: " + e.getMessage());
        } finally {
          if (writing.decrementAndGet() == 0) {
            try {
              out.flush();
            } catch (IOException e) {
              stop.accept(BatchStop.ERROR, "the results cannot be written: " + e.getMessage());
            }
          }
        }
      }
    }
  }
}
