package dev.relent.cli;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.http.CallOptions;
import dev.relent.http.HttpScopes;
import dev.relent.http.Redactor;
import dev.relent.http.ServerHints;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.redis.RedisPacerState;
import dev.relent.redis.RelentRedis;
import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Scheduler;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.io.Writer;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * The workers of a batch: a queue of requests sent through one shared {@link RelentHttpClient} (one
 * executor, one {@link Pacer} for the start rate when {@code --rate} sets a ceiling, one {@link
 * ConcurrencyLimit}, and a {@link GuardRegistry} of the requests' scopes, where a 429 with a wait
 * or an exhausted rate-limit header pauses the scope it belongs to, for every worker, and with
 * {@code --shared} for every process of the account) by as many worker threads as the limit. Used
 * by {@code relent batch} and {@code relent demo}. What happened to each request is kept by the
 * {@link BatchRecorder}; what is shown, by the {@link BatchTimeline}.
 *
 * <p>Design. Each worker takes the next request from the queue (the input is read a line at a time
 * as workers take them, under the run's lock, and each line is parsed by the worker that took it,
 * outside the lock; a request's state is dropped once it has ended and been recorded: memory does
 * not grow with the queue) and sends it synchronously: the executor runs the concurrency limit, the
 * pacer, the attempts and the waits on the worker's thread. Each send carries its own attempt
 * listener ({@link BatchEvents#attempts}), so every attempt record is the request's without asking
 * which thread it came on; what the whole run counts comes from the executor's events ({@link
 * BatchEvents#onEvent}). Waits go through a sleeper that a stop ends at once, so that after a stop
 * no new attempt starts: a quota exhausted (an answer, or a rate-limit header with a long scope),
 * the batch deadline, Ctrl-C, or a journal that cannot be written. Attempts already on the wire
 * finish (each is bounded by the attempt timeout); on Ctrl-C they get a short grace, then are
 * interrupted. Requests that never reached the network are recorded as {@code not-sent}: not final,
 * a resumed run sends them; so is a keyed write that ended {@code unresolved} (it may have taken
 * effect).
 *
 * <p>Time: the {@link Ticker} and {@link Clock} are injected; waits are real (a latch with a
 * timeout), which the end-to-end tests keep to milliseconds. One run per instance.
 */
final class BatchRun {

  /** Why a run stopped before its queue was empty. */
  enum Stop {
    QUOTA,
    BATCH_DEADLINE,
    INTERRUPTED,
    ERROR
  }

  /**
   * The settings of a run.
   *
   * @param rate the most starts per unit of time for the whole queue (a ceiling), or null for none
   * @param concurrency the concurrency limit and the number of workers
   * @param policy retries and times of each request
   * @param random the jitter's randomness
   * @param attemptTimeout each attempt's time limit (also the connect timeout)
   * @param batchDeadline the whole run's time limit, or null
   * @param scopes how each request's scopes are derived, and which one a 429 pauses
   * @param shared where the pacer's schedule is shared with other processes, or null for this
   *     process alone
   * @param guards the retry budget and circuit breaker asked for, if any
   */
  record Settings(
      Rate rate,
      int concurrency,
      RetryPolicy policy,
      RandomSource random,
      Duration attemptTimeout,
      Duration batchDeadline,
      HttpScopes scopes,
      Shared shared,
      Guards guards) {

    /** The settings of a run that paces alone, with no retry budget and no circuit breaker. */
    Settings(
        Rate rate,
        int concurrency,
        RetryPolicy policy,
        RandomSource random,
        Duration attemptTimeout,
        Duration batchDeadline,
        HttpScopes scopes) {
      this(
          rate,
          concurrency,
          policy,
          random,
          attemptTimeout,
          batchDeadline,
          scopes,
          null,
          Guards.NONE);
    }
  }

  /**
   * The optional guards of a run ({@code --retry-budget}, {@code --breaker}), shared through Redis
   * with the account's other processes when the run is shared.
   *
   * @param retryRatio retries allowed per first attempt over a sliding 10 s, plus 10 a second, or
   *     null for no budget
   * @param breakerPercent the failure rate, in percent of the last 100 attempts (at least 20), at
   *     which the breaker opens for 30 s, or null for no breaker
   */
  record Guards(Double retryRatio, Double breakerPercent) {
    static final Guards NONE = new Guards(null, null);
  }

  /**
   * A pacer schedule shared through Redis by every process that names the same account ({@code
   * --shared}, {@code --account}). The connection is the caller's to close, after the run.
   *
   * @param redis the connection
   * @param account the account's name; the schedule is Redis's {@code relent:{account:NAME}:pacer}
   */
  record Shared(RelentRedis redis, String account) {
    /** The name of the shared pacer and concurrency states. */
    String pacerName() {
      return "account:" + account;
    }

    /** The name of a scope's shared pacer state: the account's name and the scope's. */
    String scopeName(Scope scope) {
      return pacerName() + ":" + RedisPacerState.nameOf(scope);
    }

    /** For the summary: {@code shared through redis://host:port as account NAME}. */
    String describe() {
      return "shared through " + redis.uri() + " as account " + account;
    }
  }

  private final Settings settings;
  private final Ticker ticker;
  private final Clock clock;
  private final Redactor redactor;
  private final BatchTimeline timeline;
  private final BatchRecorder recorder;
  private final BatchEvents events;
  private final RelentHttpClient http;
  private final GuardRegistry registry;
  private final Pacer pacer;
  private final BatchJournal journal;

  /**
   * The requests to send, in order: each is read in turn under the run's lock, then made into its
   * request by the worker that took it, outside the lock.
   */
  interface Source {
    /** The next entry, read under the run's lock; null at the end. */
    Pending next() throws IOException;

    /**
     * The requests of an input file: lines read in turn, each parsed by the worker that took it.
     *
     * @param requests the file's requests
     * @param skip whether a request's id is to be left out (it finished in an earlier run); asked
     *     by one worker at a time (the journal's table of finished ids is not thread-safe)
     */
    static Source of(BatchInput.Requests requests, Predicate<String> skip) {
      Object skipLock = new Object();
      return () -> {
        BatchInput.Line line = requests.nextLine();
        if (line == null) {
          return null;
        }
        return () -> {
          BatchInput.Request r = line.request();
          if (r == null) {
            return null;
          }
          synchronized (skipLock) {
            return skip.test(r.id()) ? null : r;
          }
        };
      };
    }
  }

  /** An entry of the source, taken but not yet made into its request. */
  interface Pending {
    /** Its request, or null to leave it out (a bad line, a request finished earlier). */
    BatchInput.Request request();
  }

  private final Source source;
  private final int total;
  private final List<BatchRecorder.Job> kept;

  /**
   * The job each worker has in hand, or null: written by its worker only, read once every worker
   * has ended.
   */
  private BatchRecorder.Job[] inHand = new BatchRecorder.Job[0];

  private boolean drained;

  /** How many entries were taken from the source; guarded by this. */
  private int taken;

  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicReference<Stop> stop = new AtomicReference<>();
  private volatile String stopDetail;
  private final List<Thread> workers = new ArrayList<>();

  /**
   * Creates a run of a few requests that keeps every request's record for {@link #jobs()} (the demo
   * shows their timelines).
   */
  BatchRun(
      Settings settings,
      List<BatchInput.Request> requests,
      BatchJournal journal,
      Writer out,
      Ticker ticker,
      Clock clock,
      Redactor redactor) {
    this(settings, iterate(requests), requests.size(), true, journal, out, ticker, clock, redactor);
  }

  private static Source iterate(List<BatchInput.Request> requests) {
    java.util.Iterator<BatchInput.Request> it = requests.iterator();
    return () -> {
      if (!it.hasNext()) {
        return null;
      }
      BatchInput.Request r = it.next();
      return () -> r;
    };
  }

  /**
   * Creates a run.
   *
   * @param settings the settings
   * @param source the requests to send, in order (those finished earlier already left out), read as
   *     workers take them
   * @param total how many {@code source} gives
   * @param keep whether to keep every request's record for {@link #jobs()}; without, a request's
   *     state is dropped when it ends and only counts remain
   * @param journal the journal, or null
   * @param out where results lines go, or null
   * @param ticker monotonic time
   * @param clock wall time
   * @param redactor scrubs URLs and messages
   */
  BatchRun(
      Settings settings,
      Source source,
      int total,
      boolean keep,
      BatchJournal journal,
      Writer out,
      Ticker ticker,
      Clock clock,
      Redactor redactor) {
    this.settings = settings;
    this.source = source;
    this.total = total;
    this.kept = keep ? new ArrayList<>() : null;
    this.ticker = ticker;
    this.clock = clock;
    this.redactor = redactor;
    this.timeline = new BatchTimeline(ticker, total);
    this.recorder = new BatchRecorder(journal, out, ticker, redactor, timeline, this::stop);
    this.journal = journal;
    this.events = new BatchEvents(recorder, timeline, ticker, redactor, this::quotaStop);
    TimeSource time =
        TimeSource.of(ticker, clock, this::sleep, Scheduler.system(), settings.random());
    // Escalation: three endpoints of one account paused within a minute pause the account.
    this.registry = registry(settings.shared(), time);
    this.pacer = pacer(settings.rate(), settings.shared(), time);
    this.http =
        RelentHttpClient.builder(jdkClient(settings.attemptTimeout()))
            .withPolicy(settings.policy())
            .withExecutor(
                x ->
                    guarded(
                        x.withPacer(pacer)
                            .withConcurrencyLimit(
                                concurrencyLimit(settings.concurrency(), settings.shared()))
                            .onEvent(events),
                        settings.guards(),
                        settings.shared(),
                        time))
            .withScopes(settings.scopes(), registry)
            .withRedactor(redactor)
            .withTime(time)
            .withoutLogging()
            .build();
    events.use(http.outcomes());
  }

  /**
   * The one place that chooses the queue's pacer: an adaptive one, which learns the rate from
   * rate-limit headers and 429s (relent-core's {@link Pacer#adaptive()}), under the ceiling of
   * {@code --rate} when given (starting there), never faster than it. With {@code shared}, its
   * schedule lives in Redis and every process of the account reserves its starts there: the
   * processes together start no faster than the pace each asks for. What the adaptive pacer learns
   * (its interval, its congestion state) stays this process's own.
   *
   * @param rate the ceiling, or null for none
   * @param shared where the schedule is shared, or null for an in-memory one
   * @param time the run's time source; a shared schedule speaks its ticker
   * @return the pacer
   */
  static Pacer pacer(Rate rate, Shared shared, TimeSource time) {
    Pacer.Builder b = Pacer.builder().adaptive(Pacer.Congestion.BRACKET).withTime(time);
    if (rate != null) {
      double permits = rate.permits();
      if (permits == Math.rint(permits) && permits <= Integer.MAX_VALUE) {
        b.withRate((int) permits, rate.per());
      } else {
        long interval = (long) Math.ceil(rate.per().toNanos() / permits);
        b.withRate(1, Duration.ofNanos(Math.max(1L, interval)));
      }
    }
    if (shared != null) {
      b.withState(shared.redis().pacerState(shared.pacerName(), time.ticker()));
    }
    return b.build();
  }

  /**
   * The registry of the requests' scopes. Shared, each scope gets a pacer whose state lives in
   * Redis under the account and the scope's name: it never limits the rate (the queue's pacer
   * does), but a pause it holds, from a 429 or a quota answer to any process of the account, holds
   * that scope's requests in every process.
   */
  static GuardRegistry registry(Shared shared, TimeSource time) {
    GuardRegistry.Builder b = GuardRegistry.builder().withTime(time);
    if (shared != null) {
      for (Scope.Kind kind : Scope.Kind.values()) {
        b.withPacer(kind, scope -> scopePacer(shared, scope, time));
      }
    }
    return b.build();
  }

  /** A scope's pacer in a shared run: its pauses shared, its rate unlimited. */
  static Pacer scopePacer(Shared shared, Scope scope, TimeSource time) {
    return Pacer.builder()
        .withRate(Integer.MAX_VALUE, Duration.ofSeconds(1))
        .withBurst(Integer.MAX_VALUE)
        .withTime(time)
        .withState(shared.redis().pacerState(shared.scopeName(scope), time.ticker()))
        .build();
  }

  /**
   * The queue's concurrency limit: this process's own, or with {@code shared} one count for every
   * process of the account, whose slots each process holds under a lease (a process killed with
   * requests in flight gives them back when its lease ends).
   */
  static ConcurrencyLimit concurrencyLimit(int concurrency, Shared shared) {
    if (shared == null) {
      return ConcurrencyLimit.of(concurrency);
    }
    return ConcurrencyLimit.builder()
        .withMaxConcurrent(concurrency)
        .withState(shared.redis().concurrencyLimitState(shared.pacerName()))
        .build();
  }

  /**
   * Adds the retry budget and the circuit breaker of {@code --retry-budget} and {@code --breaker},
   * each one for the whole account when the run is shared: the fleet's retries stay within the
   * ratio of the fleet's first attempts, and one breaker opens for every process.
   */
  static <R> RelentExecutor.Builder<R> guarded(
      RelentExecutor.Builder<R> x, Guards guards, Shared shared, TimeSource time) {
    if (guards.retryRatio() != null) {
      RetryBudget.Builder budget =
          RetryBudget.builder().withRatio(guards.retryRatio()).withTime(time);
      if (shared != null) {
        budget.withState(shared.redis().retryBudgetState(shared.pacerName()));
      }
      x.withRetryBudget(budget.build());
    }
    if (guards.breakerPercent() != null) {
      CircuitBreaker.Builder breaker =
          CircuitBreaker.builder().withFailureRateThreshold(guards.breakerPercent()).withTime(time);
      if (shared != null) {
        breaker.withState(shared.redis().circuitBreakerState(shared.pacerName()));
      }
      x.withCircuitBreaker(breaker.build());
    }
    return x;
  }

  private static HttpClient jdkClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .connectTimeout(connectTimeout)
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  /**
   * Runs the queue to its end or to a stop, then records every request not sent. Blocks.
   *
   * @throws InterruptedException if the calling thread is interrupted while waiting for workers
   */
  void run() throws InterruptedException {
    timeline.begin();
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
    int n = Math.min(settings.concurrency(), Math.max(1, total));
    inHand = new BatchRecorder.Job[n];
    for (int i = 0; i < n; i++) {
      int worker = i;
      Thread t = new Thread(() -> work(worker), "relent-batch-" + (i + 1));
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
    // Joined: what each worker wrote is visible here.
    for (BatchRecorder.Job job : inHand) {
      if (job != null && job.item == null) {
        recorder.record(
            job, recorder.notSent(job, "the batch stopped before it was sent: " + stopDetail));
      }
    }
    // The rest of the queue, read to its end: each is recorded, without a force of its own.
    BatchRecorder.Job job;
    while ((job = take(true)) != null) {
      recorder.recordNotSent(job, "the batch stopped before it was sent: " + stopDetail);
    }
    if (journal != null) {
      try {
        journal.flush();
      } catch (IOException e) {
        stop(Stop.ERROR, "the journal cannot be written: " + e.getMessage());
      }
    }
    timeline.end();
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

  /**
   * The next request as a job, or null at the end of the queue (or, unless {@code evenIfStopped},
   * once the run stopped). The input is read here one entry per call under the run's lock; the
   * entry is parsed after it, on the caller's thread.
   */
  private BatchRecorder.Job take(boolean evenIfStopped) {
    while (true) {
      Pending pending;
      int index;
      synchronized (this) {
        if (drained || (!evenIfStopped && stop.get() != null)) {
          return null;
        }
        try {
          pending = source.next();
        } catch (IOException | RuntimeException e) {
          drained = true;
          stop(Stop.ERROR, "the input cannot be read: " + e.getMessage());
          return null;
        }
        if (pending == null) {
          drained = true;
          return null;
        }
        index = taken++;
      }
      BatchInput.Request r;
      try {
        r = pending.request();
      } catch (RuntimeException e) {
        stop(Stop.ERROR, "the input cannot be read: " + e.getMessage());
        return null;
      }
      if (r == null) {
        continue;
      }
      BatchRecorder.Job job = new BatchRecorder.Job(r);
      if (kept != null) {
        keep(index, job);
      }
      return job;
    }
  }

  /** Keeps a job in the place of its entry, whichever worker got there first. */
  private void keep(int index, BatchRecorder.Job job) {
    synchronized (kept) {
      while (kept.size() <= index) {
        kept.add(null);
      }
      kept.set(index, job);
    }
  }

  private void work(int worker) {
    BatchRecorder.Job job;
    while ((job = take(false)) != null) {
      inHand[worker] = job;
      try {
        execute(job);
      } catch (Throwable e) {
        // An OutOfMemoryError, a bug: the request ends as an error and the run stops, saying why.
        String why = RelentCli.unexpected(e);
        stop(Stop.ERROR, why);
        if (job.item == null) {
          recorder.record(job, recorder.error(job, why));
        }
      } finally {
        inHand[worker] = null;
      }
    }
  }

  private void execute(BatchRecorder.Job job) {
    recorder.begin(job);
    CallOptions.Builder options = CallOptions.builder().withAttemptListener(events.attempts(job));
    try {
      String key = recorder.key(job);
      if (key != null) {
        options.withIdempotencyKey(key);
      } else {
        options.withoutIdempotencyKey();
      }
    } catch (IOException e) {
      stop(Stop.ERROR, "the journal cannot be written: " + e.getMessage());
      recorder.record(job, recorder.notSent(job, "the journal cannot be written"));
      return;
    }
    CallOutcome outcome =
        CallOutcome.of(
            () -> {
              recorder.sending(job);
              return http.send(
                  job.request.request(), HttpResponse.BodyHandlers.discarding(), options.build());
            },
            redactor,
            false);
    BatchRecorder.Item item;
    switch (outcome.reason()) {
      case "quota-exhausted":
        quotaStop(outcome.retryAt(), "HTTP " + outcome.status());
        item = recorder.item(job, outcome, false);
        break;
      case "unresolved":
        // A keyed write that may have taken effect: not final, a resumed run sends it again with
        // its journaled key until an answer resolves it.
        item = recorder.item(job, outcome, false);
        break;
      case "interrupted":
        // The worker was cut off (Ctrl-C): it records what it has, which no interrupt may stop.
        Thread.interrupted();
        item = recorder.stopped(job, stopDetail);
        break;
      case "rate-limit-wait":
        // A stop ends the pacer's wait too.
        item =
            stop.get() != null
                ? recorder.stopped(job, stopDetail)
                : recorder.item(job, outcome, true);
        break;
      default:
        item = recorder.item(job, outcome, true);
        break;
    }
    if (!item.success() && job.attempts.isEmpty()) {
      // Nothing reached the network: whatever stopped it, a later run may send it.
      item = recorder.notSent(job, item.error());
    }
    recorder.record(job, item);
  }

  private void quotaStop(Instant resetAt, String what) {
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

  /** Waits like the system sleeper, but a stop ends every wait at once. */
  private void sleep(long nanos) throws InterruptedException {
    timeline.waitBegan();
    try {
      if (stop.get() != null || stopped.await(nanos, TimeUnit.NANOSECONDS)) {
        throw new InterruptedException("the batch is stopping");
      }
    } finally {
      timeline.waitEnded();
    }
  }

  /** Collects what {@code --html} draws, as the run goes; call before {@link #run()}. */
  void report(BatchReport report) {
    events.report(report);
    recorder.report(report);
  }

  /** Every request's record, for a run made to keep them; empty otherwise. */
  List<BatchRecorder.Job> jobs() {
    if (kept == null) {
      return List.of();
    }
    List<BatchRecorder.Job> jobs = new ArrayList<>();
    synchronized (kept) {
      for (BatchRecorder.Job job : kept) {
        if (job != null) {
          jobs.add(job);
        }
      }
    }
    return List.copyOf(jobs);
  }

  /** What the run counted as its requests ended. */
  BatchRecorder.Counts counts() {
    return recorder.counts();
  }

  /** The requests of this run (those finished in earlier runs left out). */
  int total() {
    return total;
  }

  BatchTimeline timeline() {
    return timeline;
  }

  Settings settings() {
    return settings;
  }

  /** The queue's pacer. */
  Pacer pacer() {
    return pacer;
  }

  /** The guards and pauses of the scopes the run's requests belong to. */
  GuardRegistry registry() {
    return registry;
  }

  /** How many answers stated a rate limit that cannot be true, by kind. */
  Map<ServerHints.Doubt, Long> headerDoubts() {
    return http.outcomes().headerDoubts();
  }

  Stop stopReason() {
    return stop.get();
  }

  String stopDetail() {
    return stopDetail;
  }
}
