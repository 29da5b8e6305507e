package dev.relent.cli;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RetryPolicy;
import dev.relent.ServerHint;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.http.CallOptions;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.Redactor;
import dev.relent.http.RelentHttpClient;
import dev.relent.http.RelentHttpResponse;
import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Scheduler;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a queue of requests through one shared {@link RelentHttpClient}: one executor, one {@link
 * Pacer} (the start rate; a 429 or an exhausted rate-limit header pauses it for every worker), one
 * {@link ConcurrencyLimit}, and as many worker threads as the limit. Used by {@code relent batch}
 * and {@code relent demo}.
 *
 * <p>Design. Each worker takes the next request from the queue and sends it synchronously: the
 * executor runs the concurrency limit, the pacer, the attempts and the waits on the worker's
 * thread, so the worker's current job (a thread local) tells the event listener, the {@link
 * TrackingHttpClient} and the sleeper which request they serve. A write's idempotency key is
 * journaled (and forced to the disk) before its first send; each outcome is journaled, then
 * appended to the results. Waits go through a sleeper that a stop ends at once, so that after a
 * stop no new attempt starts: a quota exhausted (an answer, or a rate-limit header with a long
 * scope), the batch deadline, Ctrl-C, or a journal that cannot be written. Attempts already on the
 * wire finish (each is bounded by the attempt timeout); on Ctrl-C they get a short grace, then are
 * interrupted. Requests that never reached the network are recorded as {@code not-sent}: not final,
 * a resumed run sends them.
 *
 * <p>Time: the {@link Ticker} and {@link Clock} are injected; waits are real (a latch with a
 * timeout), which the end-to-end tests keep to milliseconds. One run per instance.
 */
final class BatchRun {

  /** Why a run stopped before its queue was empty. */
  enum Stop {
    QUOTA("quota"),
    BATCH_DEADLINE("batch-deadline"),
    INTERRUPTED("interrupted"),
    ERROR("error");

    final String name;

    Stop(String name) {
      this.name = name;
    }
  }

  /**
   * The settings of a run.
   *
   * @param rate the start rate of the shared pacer
   * @param concurrency the concurrency limit and the number of workers
   * @param policy retries and times of each request
   * @param random the jitter's randomness
   * @param attemptTimeout each attempt's time limit (also the connect timeout)
   * @param batchDeadline the whole run's time limit, or null
   */
  record Settings(
      Rate rate,
      int concurrency,
      RetryPolicy policy,
      RandomSource random,
      Duration attemptTimeout,
      Duration batchDeadline) {}

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
    boolean keyFromJournal;
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
   * @param outcome {@code success}, {@code http-error}, {@code not-resent}, {@code
   *     fault-not-retried}, {@code retries-exhausted}, {@code deadline}, {@code
   *     server-wait-too-long}, {@code quota-exhausted}, {@code rate-limit-wait}, {@code not-sent},
   *     {@code stopped}, {@code error}, ...
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
        w.add(millis(n));
      }
      m.put("waits_ms", w);
      m.put("paced_ms", millis(pacedNanos));
      m.put("elapsed_ms", millis(elapsedNanos));
      m.put("idempotency_key", key);
      m.put("error", error);
      return m;
    }

    boolean success() {
      return outcome.equals("success");
    }

    /** What it contributes to the exit code. */
    int exitCode() {
      return exitCodeOf(outcome);
    }
  }

  /**
   * The exit code an outcome contributes: 0 success; 3 not retried; 4 retries used up (or refused
   * by a budget or breaker); 5 time, quota, not sent or stopped; 1 anything else.
   */
  static int exitCodeOf(String outcome) {
    switch (outcome) {
      case "success":
        return ExitCodes.OK;
      case "http-error":
      case "not-resent":
      case "fault-not-retried":
      case "not-retryable":
        return ExitCodes.NOT_RETRIED;
      case "retries-exhausted":
      case "retry-budget":
      case "circuit-open":
        return ExitCodes.RETRIES_EXHAUSTED;
      case "deadline":
      case "server-wait-too-long":
      case "quota-exhausted":
      case "rate-limit-wait":
      case "concurrency-limit":
      case "not-sent":
      case "stopped":
        return ExitCodes.DEADLINE;
      default:
        return ExitCodes.ERROR;
    }
  }

  /** A point-in-time view for the progress display. */
  record Snapshot(
      int total,
      int done,
      int failed,
      int unfinished,
      int inFlight,
      int waiting,
      int started,
      long elapsedNanos) {}

  private final Settings settings;
  private final List<Job> jobs;
  private final BatchJournal journal;
  private final Writer out;
  private final Ticker ticker;
  private final Clock clock;
  private final Redactor redactor;

  private final ConcurrentLinkedQueue<Job> queue;
  private final ThreadLocal<Job> current = new ThreadLocal<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicReference<Stop> stop = new AtomicReference<>();
  private volatile String stopDetail;
  private volatile Instant quotaResetAt;
  private final AtomicInteger done = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicInteger unfinished = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicInteger started = new AtomicInteger();
  private final AtomicInteger tooManyRequests = new AtomicInteger();
  private final List<Long> starts = Collections.synchronizedList(new ArrayList<>());
  private final List<Thread> workers = new ArrayList<>();
  private final TrackingHttpClient tracking;
  private final RelentHttpClient http;
  private volatile long origin;
  private volatile long endNanos = -1;

  /**
   * Creates a run.
   *
   * @param settings the settings
   * @param requests the requests to send, in order (those finished earlier already left out)
   * @param journal the journal, or null
   * @param out where results lines go, or null
   * @param ticker monotonic time
   * @param clock wall time
   * @param redactor scrubs URLs and messages
   */
  BatchRun(
      Settings settings,
      List<BatchInput.Request> requests,
      BatchJournal journal,
      Writer out,
      Ticker ticker,
      Clock clock,
      Redactor redactor) {
    this.settings = settings;
    this.journal = journal;
    this.out = out;
    this.ticker = ticker;
    this.clock = clock;
    this.redactor = redactor;
    List<Job> js = new ArrayList<>();
    for (BatchInput.Request r : requests) {
      js.add(new Job(r));
    }
    this.jobs = List.copyOf(js);
    this.queue = new ConcurrentLinkedQueue<>(jobs);
    this.tracking =
        new TrackingHttpClient(jdkClient(settings.attemptTimeout()), ticker, this::attemptStarted);
    this.http =
        RelentHttpClient.builder(tracking)
            .withPolicy(settings.policy())
            .withPacer(pacer(settings.rate()))
            .withConcurrencyLimit(ConcurrencyLimit.of(settings.concurrency()))
            .withRedactor(redactor)
            .withTime(
                TimeSource.of(ticker, clock, this::sleep, Scheduler.system(), settings.random()))
            .withoutLogging()
            .onEvent(this::onEvent)
            .build();
  }

  /** The pacer of a rate: strictly spaced starts, never faster than the rate. */
  static Pacer pacer(Rate rate) {
    double permits = rate.permits();
    if (permits == Math.rint(permits) && permits <= Integer.MAX_VALUE) {
      return Pacer.of((int) permits, rate.per());
    }
    long interval = (long) Math.ceil(rate.per().toNanos() / permits);
    return Pacer.of(1, Duration.ofNanos(Math.max(1L, interval)));
  }

  private static HttpClient jdkClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .connectTimeout(connectTimeout)
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  // ------------------------------------------------------------------ running

  /**
   * Runs the queue to its end or to a stop, then records every request not sent. Blocks.
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting for workers
   */
  void run() throws InterruptedException {
    origin = ticker.read();
    Thread watchdog = null;
    if (settings.batchDeadline() != null) {
      long limit = settings.batchDeadline().toNanos();
      watchdog =
          new Thread(
              () -> {
                try {
                  if (!stopped.await(limit, TimeUnit.NANOSECONDS)) {
                    stop(
                        Stop.BATCH_DEADLINE,
                        "the batch deadline of "
                            + Format.duration(settings.batchDeadline())
                            + " passed");
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "relent-batch-deadline");
      watchdog.setDaemon(true);
      watchdog.start();
    }
    int n = Math.min(settings.concurrency(), Math.max(1, jobs.size()));
    for (int i = 0; i < n; i++) {
      Thread t = new Thread(this::work, "relent-batch-" + (i + 1));
      t.setDaemon(true);
      workers.add(t);
      t.start();
    }
    // Ctrl-C: attempts on the wire get one grace of about 2 s in all (20 joins of 100 ms, real
    // time like the attempts themselves), then every worker still running is cut off.
    int graceLeft = 20;
    boolean cutOff = false;
    for (Thread t : workers) {
      while (t.isAlive()) {
        t.join(100);
        if (stop.get() == Stop.INTERRUPTED && !cutOff && graceLeft-- <= 0) {
          cutOff = true;
          for (Thread w : workers) {
            w.interrupt();
          }
        }
      }
    }
    for (Job job : jobs) {
      if (job.item == null) {
        record(job, notSent(job, "the batch stopped before it was sent: " + stopDetail));
      }
    }
    endNanos = ticker.read();
    if (watchdog != null) {
      watchdog.interrupt();
    }
  }

  /**
   * Stops the run: no new attempt starts, waits end now. The first stop wins.
   *
   * @param why the reason
   * @param detail a sentence for the summary, without secrets
   */
  void stop(Stop why, String detail) {
    if (stop.compareAndSet(null, why)) {
      stopDetail = detail;
      stopped.countDown();
    }
  }

  private void work() {
    Job job;
    while (stop.get() == null && (job = queue.poll()) != null) {
      current.set(job);
      try {
        execute(job);
      } finally {
        current.remove();
      }
    }
  }

  private void execute(Job job) {
    BatchInput.Request r = job.request;
    job.startNanos = ticker.read();
    started.incrementAndGet();
    CallOptions.Builder options = CallOptions.builder();
    if (r.keyed()) {
      BatchJournal.Key journaled = journal == null ? null : journal.keyOf(r.id());
      if (journaled != null) {
        job.key = journaled.key();
        job.keyFromJournal = true;
      } else {
        job.key = r.givenKey() != null ? r.givenKey() : Idempotency.newKey();
        if (journal != null) {
          try {
            journal.key(r.id(), job.key, r.fingerprint());
          } catch (IOException e) {
            stop(Stop.ERROR, "the journal cannot be written: " + e.getMessage());
            record(job, notSent(job, "the journal cannot be written"));
            return;
          }
        }
      }
      options.withIdempotencyKey(job.key);
    } else {
      options.withoutIdempotencyKey();
    }
    Item item;
    try {
      RelentHttpResponse<Void> response =
          http.send(r.request(), HttpResponse.BodyHandlers.discarding(), options.build());
      int status = response.statusCode();
      if (status >= 200 && status < 400) {
        item = item(job, "success", true, status, null);
      } else {
        String why =
            response.decision() == null
                ? "not retried"
                : response.decision().explanation() + " (rule " + response.decision().rule() + ")";
        item =
            item(
                job,
                "http-error",
                true,
                status,
                "HTTP " + status + " after " + attempts(job) + ": " + why);
      }
    } catch (NotRetriedWriteException e) {
      item = item(job, "not-resent", true, e.status(), e.getMessage());
    } catch (HttpFaultException e) {
      item = item(job, "fault-not-retried", true, -1, e.getMessage() + "; not retried");
    } catch (RelentException e) {
      item = gaveUp(job, e);
    } catch (InterruptedException e) {
      Thread.interrupted();
      item = stopped(job);
    } catch (IOException | RuntimeException e) {
      item =
          item(
              job,
              "error",
              true,
              -1,
              "unexpected error: "
                  + e.getClass().getSimpleName()
                  + (e.getMessage() == null ? "" : ": " + redactor.text(e.getMessage())));
    }
    if (!item.success() && job.attempts.isEmpty()) {
      // Nothing reached the network: whatever stopped it, a later run may send it.
      item = notSent(job, item.error());
    }
    record(job, item);
  }

  private Item gaveUp(Job job, RelentException e) {
    String reason = e.reason().name().toLowerCase(Locale.ROOT).replace('_', '-');
    Object last = e.lastResult().orElse(null);
    int status = last instanceof HttpResponse ? ((HttpResponse<?>) last).statusCode() : -1;
    switch (e.reason()) {
      case QUOTA_EXHAUSTED:
        quotaStop(e.retryAt().orElse(null), "HTTP " + status);
        return item(job, reason, false, status, e.getMessage());
      case INTERRUPTED:
        return stopped(job);
      case RETRIES_EXHAUSTED:
      case RETRY_BUDGET:
      case CIRCUIT_OPEN:
        return item(job, reason, true, status, e.getMessage());
      case RATE_LIMIT_WAIT:
        if (stop.get() != null) {
          return stopped(job);
        }
        return item(job, reason, true, status, e.getMessage());
      case NOT_RETRYABLE:
        return item(job, reason, true, status, e.getMessage());
      default:
        return item(job, reason, true, status, e.getMessage());
    }
  }

  private Item stopped(Job job) {
    String why = "stopped: " + (stopDetail == null ? "interrupted" : stopDetail);
    return item(job, "stopped", false, lastStatus(job), why);
  }

  private Item notSent(Job job, String why) {
    return item(job, "not-sent", false, -1, why);
  }

  private static int lastStatus(Job job) {
    return job.attempts.isEmpty() ? -1 : job.attempts.get(job.attempts.size() - 1).status;
  }

  private static String attempts(Job job) {
    int n = job.attempts.size();
    return n + (n == 1 ? " attempt" : " attempts");
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
  private void record(Job job, Item item) {
    job.item = item;
    if (item.isFinal()) {
      done.incrementAndGet();
      if (!item.success()) {
        failed.incrementAndGet();
      }
    } else {
      unfinished.incrementAndGet();
    }
    if (journal != null) {
      Map<String, Object> rec = new LinkedHashMap<>();
      rec.put("rec", item.isFinal() ? "done" : "open");
      rec.put("id", item.id());
      rec.put("result", item.json());
      try {
        journal.append(rec);
      } catch (IOException e) {
        stop(Stop.ERROR, "the journal cannot be written: " + e.getMessage());
      }
    }
    if (out != null) {
      synchronized (out) {
        try {
          out.write(JsonTree.write(item.json()));
          out.write('\n');
          out.flush();
        } catch (IOException e) {
          stop(Stop.ERROR, "the results cannot be written: " + e.getMessage());
        }
      }
    }
  }

  private void quotaStop(Instant resetAt, String what) {
    if (resetAt != null) {
      quotaResetAt = resetAt;
    }
    String when =
        resetAt == null
            ? "the server did not say when it resets"
            : "it resets at "
                + resetAt
                + " (in "
                + Format.span(
                    Duration.ofMillis(Math.max(0L, resetAt.toEpochMilli() - clock.millis())))
                + ")";
    stop(Stop.QUOTA, "the quota is exhausted (" + what + "); " + when);
  }

  // ------------------------------------------------------------------ what the client reports

  private void attemptStarted(HttpRequest request, long startNanos) {
    starts.add(startNanos);
    Job job = current.get();
    if (job == null) {
      return;
    }
    Attempt a = new Attempt();
    a.number = job.attempts.size() + 1;
    a.startNanos = startNanos - origin;
    job.open = a;
    job.attempts.add(a);
  }

  private void onEvent(RelentEvent<HttpResponse<?>> event) {
    Job job = current.get();
    if (job == null) {
      return;
    }
    switch (event.type()) {
      case PACED:
        job.pacedNanos += event.waitTime().orElseThrow().toNanos();
        break;
      case ATTEMPT:
        Attempt a = job.open;
        if (a == null) {
          a = new Attempt();
          a.number = job.attempts.size() + 1;
          a.startNanos = ticker.read() - origin;
          job.attempts.add(a);
          job.open = a;
        }
        HttpResponse<?> response = event.result().orElse(null);
        a.durationNanos = Math.max(0L, ticker.read() - origin - a.startNanos);
        if (response != null && event.failure().orElse(null) == null) {
          a.status = response.statusCode();
          a.replayed =
              response.headers().firstValue("Idempotent-Replayed").orElse("").equals("true");
          if (a.status == 429) {
            tooManyRequests.incrementAndGet();
          }
        }
        a.outcome = http.outcomes().describe(response, event.failure().orElse(null));
        if (event.verdict().orElse(null) != null) {
          a.verdict =
              event.verdict().orElse(null).kind().name().toLowerCase(Locale.ROOT);
          a.rule = event.verdict().orElse(null).rule();
        }
        ServerHint hint = event.hint().orElse(null);
        if (hint != null) {
          a.hint = redactor.text(hint.source());
          if (hint.isQuotaExhausted()) {
            // Said on any answer (a 200 with "0 left today"): no later request can succeed.
            quotaStop(hint.resetAt(), a.outcome + " with " + a.hint);
          }
        }
        break;
      case RETRY:
        job.waits.add(event.waitTime().orElseThrow().toNanos());
        if (job.open != null) {
          job.open.decision = "retry";
          job.open.waitNanos = event.waitTime().orElseThrow().toNanos();
          job.open = null;
        }
        break;
      case SUCCESS:
        close(job, null);
        break;
      case FAILURE:
        RelentException e = event.exception().orElse(null);
        close(job, e == null ? null : e.reason().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        break;
      default:
        break;
    }
  }

  private static void close(Job job, String gaveUp) {
    if (job.open != null) {
      job.open.decision = "stop";
      job.open.gaveUp = gaveUp;
      job.open = null;
    }
  }

  /** Waits like the system sleeper, but a stop ends every wait at once. */
  private void sleep(long nanos) throws InterruptedException {
    waiting.incrementAndGet();
    try {
      if (stop.get() != null || stopped.await(nanos, TimeUnit.NANOSECONDS)) {
        throw new InterruptedException("the batch is stopping");
      }
    } finally {
      waiting.decrementAndGet();
    }
  }

  // ------------------------------------------------------------------ what the run saw

  Snapshot snapshot() {
    long end = endNanos;
    long now = end >= 0 ? end : ticker.read();
    return new Snapshot(
        jobs.size(),
        done.get(),
        failed.get(),
        unfinished.get(),
        tracking.inFlight(),
        waiting.get(),
        started.get(),
        origin == 0 && end < 0 ? 0 : Math.max(0L, now - origin));
  }

  List<Job> jobs() {
    return jobs;
  }

  Stop stopReason() {
    return stop.get();
  }

  String stopDetail() {
    return stopDetail;
  }

  Instant quotaResetAt() {
    return quotaResetAt;
  }

  int tooManyRequests() {
    return tooManyRequests.get();
  }

  int peakInFlight() {
    return tracking.peakInFlight();
  }

  long meanAttemptNanos() {
    return tracking.meanAttemptNanos();
  }

  long elapsedNanos() {
    return snapshot().elapsedNanos();
  }

  /** Every attempt's start, in ticker nanoseconds, sorted. */
  List<Long> starts() {
    List<Long> copy;
    synchronized (starts) {
      copy = new ArrayList<>(starts);
    }
    Collections.sort(copy);
    return copy;
  }

  Settings settings() {
    return settings;
  }

  /** Milliseconds with at most three decimals, as a JSON number. */
  static BigDecimal millis(long nanos) {
    return BigDecimal.valueOf(nanos)
        .movePointLeft(6)
        .setScale(3, RoundingMode.HALF_UP)
        .stripTrailingZeros();
  }
}
