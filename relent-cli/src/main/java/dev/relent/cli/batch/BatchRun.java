package dev.relent.cli.batch;

import dev.relent.RelentExecutor;
import dev.relent.ServerHint;
import dev.relent.cli.common.CallOutcome;
import dev.relent.cli.common.Format;
import dev.relent.cli.common.Outcome;
import dev.relent.cli.common.Rate;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import dev.relent.http.CallOptions;
import dev.relent.http.HeaderLookup;
import dev.relent.http.Redactor;
import dev.relent.http.ServerHints;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.time.Clock;
import dev.relent.time.Scheduler;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.io.Writer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * The workers of a batch: a queue of requests sent through one shared {@link RelentHttpClient} (one
 * executor, one fixed-rate {@link Pacer} as the ceiling of the whole queue when {@code --rate} sets
 * one, one {@link ConcurrencyLimit}, and a {@link GuardRegistry} of the requests' scopes) by as
 * many worker threads as the limit. Every scope has an adaptive pacer of its own, which learns that
 * scope's rate from the answers that belong to it, and its own pause: a 429 with a wait, or an
 * exhausted rate-limit header, pauses and slows the scope it belongs to for every worker (and with
 * {@code --shared} for every process of the account), not the queue. Used by {@code relent batch}
 * and {@code relent demo}. What happened to each request is kept by the {@link BatchRecorder}; what
 * is shown, by the {@link BatchTimeline}.
 *
 * <p>Design. Each worker takes the next request from the queue (the input is read a line at a time
 * as workers take them, under the run's lock, and each line is parsed by the worker that took it,
 * outside the lock; a request's state is dropped once it has ended and been recorded: memory does
 * not grow with the queue) and sends it synchronously: the executor runs the concurrency limit, the
 * pacers, the attempts and the waits on the worker's thread. Each send carries its own attempt
 * listener ({@link BatchEvents#attempts}), so every attempt record is the request's without asking
 * which thread it came on; what the whole run counts comes from the executor's events ({@link
 * BatchEvents#onEvent}).
 *
 * <p>Scopes isolate. A quota an answer says is exhausted (a 429 with a wait of hours, a daily quota
 * at 0) stops the scope it belongs to, not the run ({@link QuotaStop}): a request of a stopped
 * scope is recorded {@code not-sent} as soon as a worker takes it, saying which scope and when it
 * resets, and a worker waiting for such a request stops waiting; the other scopes go on, and the
 * run ends when the queue is empty. A scope that is paused or slowed down (its pacer learned a rate
 * below the ceiling) holds at most all workers but one: while that many have its requests (or
 * another held-back scope's) in hand, a worker sets the next ones aside ({@value #MAX_SET_ASIDE} at
 * most, {@value #MAX_SET_ASIDE_BYTES} bytes of bodies) and takes the next request of the queue, so
 * that one scope's waits do not hold the others' requests; set-aside requests go first, in their
 * order, as soon as they may, and when the set-aside is full or the input is read to its end a
 * worker takes the oldest of them anyway.
 *
 * <p>Waits go through a sleeper that a stop of the run ends at once, so that after it no new
 * attempt starts: the batch deadline, Ctrl-C, or a journal that cannot be written. Attempts already
 * on the wire finish (each is bounded by the attempt timeout); on Ctrl-C they get a short grace,
 * then are interrupted. Requests that never reached the network are recorded as {@code not-sent}:
 * not final, a resumed run sends them; so is a keyed write that ended {@code unresolved} (it may
 * have taken effect).
 *
 * <p>Time: the {@link Ticker} and {@link Clock} are injected; waits are real (a condition with a
 * timeout), which the end-to-end tests keep to milliseconds. One run per instance.
 */
final class BatchRun {

  private final BatchSettings settings;
  private final Ticker ticker;
  private final Clock clock;
  private final Redactor redactor;
  private final BatchTimeline timeline;
  private final BatchRecorder recorder;
  private final BatchEvents events;
  private final RelentHttpClient http;
  private final GuardRegistry registry;

  /** The ceiling of the whole queue ({@code --rate}), or null. */
  private final Pacer ceiling;

  /** The interval a scope's pacer starts at: the ceiling's, or 1 ns (not pacing). */
  private final long startIntervalNanos;

  /**
   * The kind of scope an answer's limit belongs to unless it says otherwise ({@code --scope-by}).
   */
  private final Scope.Kind scopeKind;

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

  /** The most requests of held-back scopes set aside at once. */
  static final int MAX_SET_ASIDE = 64;

  /** The most bytes of request bodies set aside at once. */
  static final long MAX_SET_ASIDE_BYTES = 8L << 20;

  /** How long a request paused past its deadline waits for its scope's quota stop to be told. */
  static final long QUOTA_SETTLE_MILLIS = 1_000;

  /** Requests of held-back scopes waiting for a worker, oldest first; guarded by this. */
  private final ArrayDeque<BatchRecorder.Job> setAside = new ArrayDeque<>();

  /** The bytes of the bodies set aside; guarded by this. */
  private long setAsideBytes;

  private boolean drained;

  /** How many entries were taken from the source; guarded by this. */
  private int taken;

  /** The scopes whose quota is exhausted, in this run or an earlier one. */
  private final Map<Scope, QuotaStop> quotaStops = new ConcurrentHashMap<>();

  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicReference<BatchStop> stop = new AtomicReference<>();
  private volatile String stopDetail;

  /** Signalled on a stop of the run or of a scope: every wait looks again whether it must end. */
  private final ReentrantLock stopLock = new ReentrantLock();

  private final Condition stopSignal = stopLock.newCondition();

  private final List<Worker> workers = new ArrayList<>();

  /** The workers once made, for the progress thread ({@link #knownWaitNanos}); empty before. */
  private volatile List<Worker> made = List.of();

  /** A worker thread, with the request it has in hand. */
  private static final class Worker extends Thread {
    /**
     * The job in hand, or null: written by its worker only, read by the others as they take
     * requests, by the run's sleeper on this thread, and once every worker has ended.
     */
    volatile BatchRecorder.Job job;

    Worker(Runnable work, String name) {
      super(work, name);
      setDaemon(true);
    }
  }

  /**
   * Creates a run of a few requests that keeps every request's record for {@link #jobs()} (the demo
   * shows their timelines).
   */
  BatchRun(
      BatchSettings settings,
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
      BatchSettings settings,
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
    this.events = new BatchEvents(recorder, timeline, ticker, redactor, this::quotaExhausted);
    TimeSource time =
        TimeSource.of(ticker, clock, this::sleep, Scheduler.system(), settings.random());
    // Escalation: three endpoints of one account paused within a minute pause the account.
    this.registry = registry(settings.rate(), settings.shared(), time);
    this.ceiling = ceiling(settings.rate(), settings.shared(), time);
    this.startIntervalNanos = ceiling == null ? 1 : ceiling.interval().toNanos();
    this.scopeKind = settings.scopes().pauses(200, HeaderLookup.NONE);
    this.http =
        RelentHttpClient.builder(jdkClient(settings.attemptTimeout()))
            .withPolicy(settings.policy())
            .withExecutor(
                x -> {
                  if (ceiling != null) {
                    x.withPacer(ceiling);
                  }
                  guarded(
                      x.withConcurrencyLimit(
                              concurrencyLimit(settings.concurrency(), settings.shared()))
                          .onEvent(events),
                      settings.guards(),
                      settings.shared(),
                      time);
                })
            .withScopes(settings.scopes(), registry)
            .withRedactor(redactor)
            .withTime(time)
            .withoutLogging()
            .build();
    events.use(http.outcomes());
  }

  /**
   * The ceiling of the whole queue, {@code --rate}: a fixed-rate pacer every attempt of every scope
   * takes a start from, after its scope's own; null without {@code --rate}. With {@code shared},
   * its schedule lives in Redis and every process of the account reserves its starts there: the
   * processes together start no faster than the rate each gives.
   *
   * @param rate the ceiling, or null for none
   * @param shared where the schedule is shared, or null for an in-memory one
   * @param time the run's time source; a shared schedule speaks its ticker
   * @return the pacer, or null
   */
  static Pacer ceiling(Rate rate, BatchSettings.Shared shared, TimeSource time) {
    if (rate == null) {
      return null;
    }
    Pacer.Builder b = rated(Pacer.builder(), rate).withTime(time);
    if (shared != null) {
      b.withState(shared.redis().pacerState(shared.pacerName(), time.ticker()));
    }
    return b.build();
  }

  private static Pacer.Builder rated(Pacer.Builder b, Rate rate) {
    double permits = rate.permits();
    if (permits == Math.rint(permits) && permits <= Integer.MAX_VALUE) {
      return b.withRate((int) permits, rate.per());
    }
    long interval = (long) Math.ceil(rate.per().toNanos() / permits);
    return b.withRate(1, Duration.ofNanos(Math.max(1L, interval)));
  }

  /**
   * The registry of the requests' scopes: every scope, of every kind, gets an adaptive pacer of its
   * own ({@link #scopePacer}), which learns the rate of the answers that belong to that scope.
   */
  static GuardRegistry registry(Rate rate, BatchSettings.Shared shared, TimeSource time) {
    GuardRegistry.Builder b = GuardRegistry.builder().withTime(time);
    for (Scope.Kind kind : Scope.Kind.values()) {
      b.withPacer(kind, scope -> scopePacer(rate, shared, scope, time));
    }
    return b.build();
  }

  /**
   * A scope's pacer: adaptive (relent-core's {@link Pacer.Congestion#BRACKET}), it learns the
   * scope's rate from the rate-limit headers and 429s of the scope's answers, under {@code --rate}
   * when given (starting there; the queue's {@link #ceiling} holds all scopes together to it as
   * well). With {@code shared}, its schedule, its pauses and the slow-downs it learns live in Redis
   * under the account and the scope's name, so that they hold in every process of the account.
   */
  static Pacer scopePacer(Rate rate, BatchSettings.Shared shared, Scope scope, TimeSource time) {
    Pacer.Builder b = Pacer.builder().adaptive(Pacer.Congestion.BRACKET).withTime(time);
    if (rate != null) {
      rated(b, rate);
    }
    if (shared != null) {
      b.withState(shared.redis().pacerState(shared.scopeName(scope), time.ticker()));
    }
    return b.build();
  }

  /**
   * The queue's concurrency limit: this process's own, or with {@code shared} one count for every
   * process of the account, whose slots each process holds under a lease (a process killed with
   * requests in flight gives them back when its lease ends).
   */
  static ConcurrencyLimit concurrencyLimit(int concurrency, BatchSettings.Shared shared) {
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
      RelentExecutor.Builder<R> x,
      BatchSettings.Guards guards,
      BatchSettings.Shared shared,
      TimeSource time) {
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
                        BatchStop.BATCH_DEADLINE,
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
    for (int i = 0; i < n; i++) {
      Worker[] self = new Worker[1];
      self[0] = new Worker(() -> work(self[0]), "relent-batch-" + (i + 1));
      workers.add(self[0]);
    }
    made = List.copyOf(workers);
    for (Worker w : workers) {
      w.start();
    }
    // Ctrl-C: attempts on the wire get one grace of about 2 s in all (20 joins of 100 ms, real
    // time like the attempts themselves), then every worker still running is cut off.
    int graceLeft = 20;
    boolean cutOff = false;
    for (Thread t : workers) {
      while (t.isAlive()) {
        t.join(100);
        if (stop.get() == BatchStop.INTERRUPTED && !cutOff && graceLeft-- <= 0) {
          cutOff = true;
          for (Thread w : workers) {
            w.interrupt();
          }
        }
      }
    }
    // Joined: what each worker wrote is visible here.
    for (Worker w : workers) {
      BatchRecorder.Job job = w.job;
      if (job != null && job.item == null) {
        recorder.record(job, recorder.notSent(job, stoppedBeforeSent()));
      }
    }
    // What was set aside, and the rest of the queue, read to its end: each is recorded, without a
    // force of its own.
    BatchRecorder.Job job;
    while ((job = rest()) != null) {
      QuotaStop quota = quotaStopOf(job);
      if (quota != null && stop.get() == null) {
        notSent(job, quota);
      } else {
        recorder.recordNotSent(job, stoppedBeforeSent());
      }
    }
    recorder.forceJournal();
    timeline.end();
    if (watchdog != null) {
      watchdog.interrupt();
    }
  }

  private String stoppedBeforeSent() {
    return "the batch stopped before it was sent: " + stopDetail;
  }

  /**
   * Stops the run: no new attempt starts, waits end now. The first stop wins.
   *
   * @param why the reason
   * @param detail a sentence for the summary, without secrets
   */
  void stop(BatchStop why, String detail) {
    if (stop.compareAndSet(null, why)) {
      stopDetail = detail;
      stopped.countDown();
      wakeWaits();
    }
  }

  /** Every wait looks again whether a stop ends it. */
  private void wakeWaits() {
    stopLock.lock();
    try {
      stopSignal.signalAll();
    } finally {
      stopLock.unlock();
    }
  }

  // ------------------------------------------------------------------ taking requests

  /**
   * The next request for {@code self} to send, or null once the run stopped or nothing is left: a
   * set-aside request that may go now, else the next of the queue, else (the queue read to its end,
   * or the set-aside full) the oldest set-aside request anyway. A request of a held-back scope that
   * would take the last worker not busy with held-back scopes is set aside instead, while there is
   * room. The input is read here one entry per step under the run's lock; the entry is parsed after
   * it, on the caller's thread. The job is in {@code self}'s hand before the lock is let go, so
   * that the other workers count it.
   */
  private BatchRecorder.Job take(Worker self) {
    self.job = null;
    while (true) {
      Pending pending = null;
      int index = -1;
      synchronized (this) {
        if (stop.get() != null) {
          return null;
        }
        BatchRecorder.Job ready = readySetAside(self);
        if (ready != null) {
          self.job = ready;
          return ready;
        }
        if (!drained && !setAsideFull()) {
          pending = read();
          if (stop.get() != null) {
            return null;
          }
          index = pending == null ? -1 : taken++;
        }
        if (pending == null) {
          // Nothing else to take: the oldest set aside goes, over its scope's share.
          self.job = pollSetAside();
          return self.job;
        }
      }
      BatchRecorder.Job job = made(pending, index);
      if (job == null) {
        continue;
      }
      synchronized (this) {
        if (workers.size() > 1
            && !setAsideFull()
            && quotaStopOf(job) == null
            && heldBack(job)
            && heldBackInHand(self) >= workers.size() - 1) {
          setAside.addLast(job);
          setAsideBytes += bodyBytes(job);
          continue;
        }
        self.job = job;
      }
      return job;
    }
  }

  /**
   * The first set-aside request that may go now: one of a stopped scope (to be recorded at once),
   * of a scope no longer held back, or any while the held-back scopes leave a worker free. Holds
   * this.
   */
  private BatchRecorder.Job readySetAside(Worker self) {
    if (setAside.isEmpty()) {
      return null;
    }
    boolean room = workers.size() <= 1 || heldBackInHand(self) < workers.size() - 1;
    for (Iterator<BatchRecorder.Job> it = setAside.iterator(); it.hasNext(); ) {
      BatchRecorder.Job job = it.next();
      if (room || quotaStopOf(job) != null || !heldBack(job)) {
        it.remove();
        setAsideBytes -= bodyBytes(job);
        return job;
      }
    }
    return null;
  }

  /** The oldest set-aside request, or null. Holds this. */
  private BatchRecorder.Job pollSetAside() {
    BatchRecorder.Job job = setAside.pollFirst();
    if (job != null) {
      setAsideBytes -= bodyBytes(job);
    }
    return job;
  }

  private boolean setAsideFull() {
    return setAside.size() >= MAX_SET_ASIDE || setAsideBytes >= MAX_SET_ASIDE_BYTES;
  }

  private static long bodyBytes(BatchRecorder.Job job) {
    long n =
        job.request
            .request()
            .bodyPublisher()
            .map(HttpRequest.BodyPublisher::contentLength)
            .orElse(0L);
    return Math.max(0L, n);
  }

  /**
   * Whether a request's scope holds it back now: one of its scopes is paused, or its pacer learned
   * a rate below the one it started at.
   */
  private boolean heldBack(BatchRecorder.Job job) {
    for (Scope scope : job.scopes) {
      ScopeGuards g = registry.find(scope).orElse(null);
      if (g == null) {
        continue;
      }
      if (g.isPaused()) {
        return true;
      }
      Pacer p = g.pacer().orElse(null);
      if (p != null && p.interval().toNanos() > startIntervalNanos) {
        return true;
      }
    }
    return false;
  }

  /** How many workers but {@code self} have a request of a held-back scope in hand. */
  private int heldBackInHand(Worker self) {
    int n = 0;
    for (Worker w : workers) {
      BatchRecorder.Job job = w.job;
      if (w != self && job != null && heldBack(job)) {
        n++;
      }
    }
    return n;
  }

  /**
   * After the workers ended: what was set aside, then the rest of the queue, one job per call; null
   * at the end.
   */
  private BatchRecorder.Job rest() {
    while (true) {
      Pending pending;
      int index;
      synchronized (this) {
        BatchRecorder.Job aside = pollSetAside();
        if (aside != null) {
          return aside;
        }
        if (drained) {
          return null;
        }
        pending = read();
        if (pending == null) {
          return null;
        }
        index = taken++;
      }
      BatchRecorder.Job job = made(pending, index);
      if (job != null) {
        return job;
      }
    }
  }

  /** The next entry of the source, or null at its end or when it cannot be read. Holds this. */
  private Pending read() {
    try {
      Pending pending = source.next();
      if (pending == null) {
        drained = true;
      }
      return pending;
    } catch (IOException | RuntimeException e) {
      drained = true;
      stop(BatchStop.ERROR, "the input cannot be read: " + e.getMessage());
      return null;
    }
  }

  /**
   * Makes an entry into its job, or null to leave it out (a line that cannot be read stops the
   * run).
   */
  private BatchRecorder.Job made(Pending pending, int index) {
    BatchInput.Request r;
    try {
      r = pending.request();
    } catch (RuntimeException e) {
      stop(BatchStop.ERROR, "the input cannot be read: " + e.getMessage());
      return null;
    }
    if (r == null) {
      return null;
    }
    BatchRecorder.Job job = new BatchRecorder.Job(r);
    job.scopes = scopesOf(r.request());
    if (kept != null) {
      keep(index, job);
    }
    return job;
  }

  /** A request's scopes, broadest first, as the client derives them. */
  private List<Scope> scopesOf(HttpRequest request) {
    return settings
        .scopes()
        .scopesOf(request.method(), request.uri(), HeaderLookup.of(request.headers()));
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

  // ------------------------------------------------------------------ sending

  private void work(Worker self) {
    BatchRecorder.Job job;
    while ((job = take(self)) != null) {
      try {
        QuotaStop quota = quotaStopOf(job);
        if (quota != null) {
          // Its scope's quota is gone until the reset: recorded at once, the worker goes on.
          notSent(job, quota);
        } else {
          execute(job);
        }
      } catch (Throwable e) {
        // An OutOfMemoryError, a bug: the request ends as an error and the run stops, saying why.
        String why = CallOutcome.unexpected(e, Redactor.ofDefaults()).message();
        stop(BatchStop.ERROR, why);
        if (job.item == null) {
          recorder.record(job, recorder.error(job, why));
        }
      } finally {
        self.job = null;
      }
    }
  }

  private void execute(BatchRecorder.Job job) {
    recorder.begin(job);
    if (recorder.sentEarlierWithoutKey(job)) {
      recorder.record(job, recorder.sentEarlier(job));
      return;
    }
    CallOptions.Builder options = CallOptions.builder().withAttemptListener(events.attempts(job));
    try {
      String key = recorder.key(job);
      if (key != null) {
        options.withIdempotencyKey(key);
      } else {
        options.withoutIdempotencyKey();
      }
    } catch (IOException e) {
      stop(BatchStop.ERROR, "the journal cannot be written: " + e.getMessage());
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
    QuotaStop quota;
    switch (Outcome.of(outcome.reason())) {
      case QUOTA_EXHAUSTED:
        // The answer's own event stopped its scope already, naming its headers; this is in case
        // it did not.
        stopScope(
            job.scopes,
            nanosUntil(outcome.retryAt()),
            outcome.retryAt(),
            "HTTP " + outcome.status());
        item = recorder.item(job, withResetOf(quotaStopOf(job), outcome), false);
        break;
      case UNRESOLVED:
        // A keyed write that may have taken effect: not final, a resumed run sends it again with
        // its journaled key until an answer resolves it.
        item = recorder.item(job, outcome, false);
        break;
      case INTERRUPTED:
        // The worker was cut off (Ctrl-C), or the quota of the request's scope ran out while it
        // waited: it records what it has, which no interrupt may stop.
        Thread.interrupted();
        quota = stop.get() == null ? quotaStopOf(job) : null;
        if (quota != null && job.attempts.isEmpty()) {
          notSent(job, quota);
          return;
        }
        item = recorder.stopped(job, quota != null ? quota.describe(clock) : stopDetail);
        break;
      case RATE_LIMIT_WAIT:
        // A stop ends the pacer's wait too; the pause of a scope whose quota is exhausted
        // outlasts any deadline.
        quota = stop.get() == null && job.attempts.isEmpty() ? settledQuotaStop(job) : null;
        if (quota != null && job.attempts.isEmpty()) {
          notSent(job, quota);
          return;
        }
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

  /**
   * The outcome of an answer that exhausted a quota, its retry time the reset of its scope's quota
   * stop: the answers on the wire together each said their own (moments apart, to the millisecond),
   * and the summary, the journal and the requests not sent give the stop's.
   */
  private static CallOutcome withResetOf(QuotaStop quota, CallOutcome outcome) {
    if (quota == null || quota.until().isEmpty() || outcome.retryAt() == null) {
      return outcome;
    }
    String own = "retry at " + outcome.retryAt();
    String message = outcome.message();
    int at = message.lastIndexOf(own);
    if (at < 0) {
      return outcome;
    }
    return outcome.withMessage(
        message.substring(0, at)
            + "retry at "
            + quota.until().get()
            + message.substring(at + own.length()));
  }

  private long nanosUntil(Instant at) {
    return at == null ? 0 : Math.max(0L, at.toEpochMilli() - clock.millis()) * 1_000_000L;
  }

  // ------------------------------------------------------------------ quota stops

  /** The stop of one of a request's scopes, or null. */
  private QuotaStop quotaStopOf(BatchRecorder.Job job) {
    if (quotaStops.isEmpty()) {
      return null;
    }
    for (Scope scope : job.scopes) {
      QuotaStop q = quotaStops.get(scope);
      if (q != null) {
        return q;
      }
    }
    return null;
  }

  /**
   * The quota stop of a request's scope, waiting up to {@value #QUOTA_SETTLE_MILLIS} ms for one
   * that another worker is recording: the answer that exhausted the quota pauses its scope before
   * its event stops the scope, so a request may find that pause (past its deadline) a moment before
   * the stop is there to say why. Null if none comes, or if interrupted.
   */
  private QuotaStop settledQuotaStop(BatchRecorder.Job job) {
    QuotaStop quota = quotaStopOf(job);
    if (quota != null) {
      return quota;
    }
    long left = TimeUnit.MILLISECONDS.toNanos(QUOTA_SETTLE_MILLIS);
    stopLock.lock();
    try {
      while ((quota = quotaStopOf(job)) == null && left > 0 && stop.get() == null) {
        left = stopSignal.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopLock.unlock();
    }
    return quota;
  }

  /** Records a request of a stopped scope as not sent, saying which scope and when it resets. */
  private void notSent(BatchRecorder.Job job, QuotaStop quota) {
    quota.countNotSent();
    recorder.recordNotSent(job, "not sent: " + quota.describe(clock));
  }

  /** An answer's rate-limit headers say a quota is exhausted: its scope stops. */
  private void quotaExhausted(HttpResponse<?> response, ServerHint hint, String what) {
    if (response == null) {
      return; // the request's own outcome stops its scope (execute)
    }
    long wait = hint.waitNanos();
    Instant until =
        hint.resetAt().orElseGet(() -> Instant.ofEpochMilli(clock.millis()).plusNanos(wait));
    stopScope(scopesOf(response.request()), wait, until, what);
  }

  /**
   * Stops the scope an exhausted quota belongs to: the broadest of the request's scopes that the
   * answer paused about as long as the quota lasts (the endpoint by default; its account when the
   * server said the limit is the account's, or when escalation paused it), else the one {@code
   * --scope-by} names. The first stop of a scope wins; every wait looks again whether it must end.
   */
  private void stopScope(List<Scope> scopes, long waitNanos, Instant until, String what) {
    Scope target = null;
    for (Scope scope : scopes) {
      ScopeGuards g = registry.find(scope).orElse(null);
      if (g != null && g.isPaused() && g.pauseRemaining().toNanos() >= waitNanos / 2) {
        target = scope;
        break;
      }
    }
    if (target == null && !scopes.isEmpty()) {
      target = scopes.get(scopes.size() - 1);
      for (Scope scope : scopes) {
        if (scope.kind() == scopeKind) {
          target = scope;
          break;
        }
      }
    }
    if (target != null
        && quotaStops.putIfAbsent(target, new QuotaStop(target, until, what, 0)) == null) {
      wakeWaits();
    }
  }

  /**
   * Holds back a scope that an earlier run of the journal found out of quota, until its reset: its
   * requests are recorded not sent without asking the server again. Call before {@link #run()}.
   *
   * @param scope the scope
   * @param until when its quota resets; a time already past holds nothing
   * @param cause what the earlier run was told
   * @param run which run of the journal was told
   * @return whether it holds the scope back
   */
  boolean stoppedEarlier(Scope scope, Instant until, String cause, int run) {
    if (until == null || until.toEpochMilli() <= clock.millis()) {
      return false;
    }
    return quotaStops.putIfAbsent(scope, new QuotaStop(scope, until, cause, run)) == null;
  }

  /** The scopes whose quota is exhausted, by name. */
  List<QuotaStop> quotaStops() {
    List<QuotaStop> stops = new ArrayList<>(quotaStops.values());
    stops.sort(Comparator.comparing(q -> q.scope().toString()));
    return stops;
  }

  /**
   * Waits like the system sleeper, but a stop of the run ends every wait at once, and a stop of the
   * scope of the request a worker waits for ends that worker's wait.
   */
  private void sleep(long nanos) throws InterruptedException {
    Thread current = Thread.currentThread();
    BatchRecorder.Job job = current instanceof Worker ? ((Worker) current).job : null;
    timeline.waitBegan();
    stopLock.lock();
    try {
      long left = nanos;
      while (true) {
        if (stop.get() != null) {
          throw new InterruptedException("the batch is stopping");
        }
        if (job != null && quotaStopOf(job) != null) {
          throw new InterruptedException("the quota of the request's scope is exhausted");
        }
        if (left <= 0) {
          return;
        }
        left = stopSignal.awaitNanos(left);
      }
    } finally {
      stopLock.unlock();
      timeline.waitEnded();
    }
  }

  /**
   * The longest wait known now of a request that a worker has in hand or has set aside: the pause
   * left of its scopes, those stopped for their quota left out (their requests are recorded at
   * once). No request of that scope ends before it, so the progress's ETA is never shorter. Called
   * by the progress thread while the workers run.
   */
  long knownWaitNanos() {
    List<BatchRecorder.Job> jobs = new ArrayList<>();
    for (Worker w : made) {
      BatchRecorder.Job job = w.job;
      if (job != null) {
        jobs.add(job);
      }
    }
    synchronized (this) {
      jobs.addAll(setAside);
    }
    long longest = 0;
    for (BatchRecorder.Job job : jobs) {
      if (quotaStopOf(job) != null) {
        continue;
      }
      for (Scope scope : job.scopes) {
        ScopeGuards g = registry.find(scope).orElse(null);
        if (g != null) {
          longest = Math.max(longest, g.pauseRemaining().toNanos());
        }
      }
    }
    return longest;
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

  /** The only writer of the journal and the results, for the records before and after the run. */
  BatchRecorder recorder() {
    return recorder;
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

  BatchSettings settings() {
    return settings;
  }

  /** The run's wall clock. */
  Clock clock() {
    return clock;
  }

  /** The kind of scope {@code --scope-by} names: whose pacer learns and pauses by default. */
  Scope.Kind scopeKind() {
    return scopeKind;
  }

  /** The ceiling of the whole queue ({@code --rate}), or null. */
  Pacer ceiling() {
    return ceiling;
  }

  /**
   * The scopes of the {@code --scope-by} kind whose pacer learned a rate below the one it started
   * at, slowest first.
   */
  List<ScopeGuards> slowedScopes() {
    List<ScopeGuards> slowed = new ArrayList<>();
    for (ScopeGuards g : registry.scopes()) {
      if (g.scope().kind() == scopeKind && intervalOf(g) > startIntervalNanos) {
        slowed.add(g);
      }
    }
    slowed.sort(Comparator.comparingLong(BatchRun::intervalOf).reversed());
    return slowed;
  }

  /** The interval a scope's pacer has now, 0 if it has none. */
  static long intervalOf(ScopeGuards g) {
    return g.pacer().map(p -> p.interval().toNanos()).orElse(0L);
  }

  /**
   * The interval between starts the queue has now, for the report: the ceiling's (1 ns without one:
   * not pacing) while a scope of the {@code --scope-by} kind is not slowed down; else that of the
   * scopes' learned rates added up, never faster than the ceiling.
   */
  long paceNanos() {
    double perSecond = 0;
    for (ScopeGuards g : registry.scopes()) {
      if (g.scope().kind() != scopeKind) {
        continue;
      }
      long interval = intervalOf(g);
      if (interval <= startIntervalNanos) {
        return startIntervalNanos;
      }
      perSecond += 1e9 / interval;
    }
    return perSecond == 0
        ? startIntervalNanos
        : Math.max(startIntervalNanos, (long) Math.ceil(1e9 / perSecond));
  }

  /** The guards and pauses of the scopes the run's requests belong to. */
  GuardRegistry registry() {
    return registry;
  }

  /** How many answers stated a rate limit that cannot be true, by kind. */
  Map<ServerHints.Doubt, Long> headerDoubts() {
    return http.outcomes().headerDoubts();
  }

  BatchStop stopReason() {
    return stop.get();
  }

  String stopDetail() {
    return stopDetail;
  }
}
