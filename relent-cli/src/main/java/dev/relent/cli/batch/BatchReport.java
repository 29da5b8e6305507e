package dev.relent.cli.batch;

import dev.relent.http.AttemptRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.LongSupplier;

/**
 * What {@code relent batch --html} draws, collected as the run goes with memory that does not grow
 * with the queue: per-interval buckets of attempt starts, attempt outcomes by kind, the most
 * attempts in flight and the pace the pacer had; two latency histograms (attempts, requests); the
 * {@value #SLOWEST} slowest requests and the first {@value #FAILED} failed ones, each with its
 * attempt timeline. {@link BatchHtml} writes the page from it. A run without {@code --html} makes
 * none, and its hooks cost a null check.
 *
 * <p>Buckets are one second wide; when a run outlasts {@value #MAX_BUCKETS} of them, neighbours are
 * merged two by two and the width doubles (2 s, 4 s, ...), so that a run of any length keeps at
 * most {@value #MAX_BUCKETS} buckets. Times are ticker nanoseconds, given by the callers; the
 * origin is the run's ({@link BatchTimeline#origin()}).
 *
 * <p>Thread-safety: every method may be called from any worker; the state is guarded by this
 * object's lock.
 */
final class BatchReport {

  /** How an attempt ended, as the outcome chart and the timelines color it. */
  enum Kind {
    OK("2xx/3xx", "#16a34a"),
    TOO_MANY_REQUESTS("429", "#ea580c"),
    CLIENT_ERROR("other 4xx", "#7c3aed"),
    SERVER_ERROR("5xx", "#dc2626"),
    NO_ANSWER("no answer", "#111827");

    final String label;
    final String color;

    Kind(String label, String color) {
      this.label = label;
      this.color = color;
    }

    /** The kind of an attempt that ended with {@code status}, or -1 for no answer. */
    static Kind of(int status) {
      if (status < 0) {
        return NO_ANSWER;
      }
      if (status == 429) {
        return TOO_MANY_REQUESTS;
      }
      if (status >= 500) {
        return SERVER_ERROR;
      }
      if (status >= 400) {
        return CLIENT_ERROR;
      }
      return OK;
    }
  }

  /** One attempt of a kept request: times from the start of the run, in nanoseconds. */
  record Attempt(
      int number, long startNanos, long durationNanos, int status, String outcome, long waitNanos) {
    Kind kind() {
      return Kind.of(status);
    }
  }

  /**
   * A request kept for the report, with its attempts.
   *
   * @param beginNanos when its turn began (before the pacer), from the start of the run
   * @param url redacted
   * @param error redacted, or null
   * @param attemptCount every attempt it made; {@code attempts} keeps the first {@value
   *     #MAX_ATTEMPTS}
   */
  record Kept(
      String id,
      int line,
      String method,
      String url,
      String outcome,
      int status,
      long beginNanos,
      long elapsedNanos,
      int attemptCount,
      List<Attempt> attempts,
      String error) {}

  /** The most buckets kept: {@value}. */
  static final int MAX_BUCKETS = 1800;

  /** The slowest requests kept: {@value}. */
  static final int SLOWEST = 10;

  /** The failed requests kept, the first to fail: {@value}. */
  static final int FAILED = 20;

  /** The attempts kept of one request: {@value}. */
  static final int MAX_ATTEMPTS = 50;

  private static final long SECOND = 1_000_000_000L;

  private final LongSupplier origin;
  private final LongSupplier paceNanos;

  // Guarded by this.
  private long width = SECOND;
  private int used;
  private int filled = -1;
  private int inFlight;
  private final long[] starts = new long[MAX_BUCKETS];
  private final int[] peak = new int[MAX_BUCKETS];
  private final long[] pace = new long[MAX_BUCKETS];
  private final long[][] outcomes = new long[Kind.values().length][MAX_BUCKETS];
  private final long[] kinds = new long[Kind.values().length];
  private final LatencyHistogram attemptLatency = new LatencyHistogram();
  private final LatencyHistogram requestLatency = new LatencyHistogram();
  private final PriorityQueue<Kept> slowest =
      new PriorityQueue<>(Comparator.comparingLong(Kept::elapsedNanos));
  private final List<Kept> failed = new ArrayList<>();
  private long failedCount;
  private long endNanos = -1;

  /**
   * @param origin the start of the run in ticker nanoseconds, read as events come (the run sets it
   *     as it begins)
   * @param paceNanos the interval between starts the pacer has now, 1 or less while it does not
   *     pace
   */
  BatchReport(LongSupplier origin, LongSupplier paceNanos) {
    this.origin = origin;
    this.paceNanos = paceNanos;
  }

  /** An attempt began at {@code now} (ticker time): the pacer and the limit let it go. */
  void attemptStarted(long now) {
    long interval = paceNanos.getAsLong();
    synchronized (this) {
      int b = advance(now);
      starts[b]++;
      inFlight++;
      peak[b] = Math.max(peak[b], inFlight);
      pace[b] = interval > 1 ? interval : 0;
    }
  }

  /**
   * An attempt that began ended at {@code now} after {@code durationNanos}, with {@code status}, or
   * -1 when no answer came.
   */
  void attemptEnded(long now, long durationNanos, int status) {
    Kind kind = Kind.of(status);
    synchronized (this) {
      int b = advance(now);
      outcomes[kind.ordinal()][b]++;
      kinds[kind.ordinal()]++;
      inFlight = Math.max(0, inFlight - 1);
      attemptLatency.add(durationNanos);
    }
  }

  /** A request recorded how it ended; only those that reached the network are measured. */
  void ended(BatchRecorder.Job job, BatchRecorder.Item item) {
    if (item.attempts() == 0) {
      return;
    }
    boolean fail = !item.success();
    synchronized (this) {
      requestLatency.add(item.elapsedNanos());
      boolean slow =
          slowest.size() < SLOWEST || slowest.peek().elapsedNanos() < item.elapsedNanos();
      if (fail) {
        failedCount++;
      }
      boolean keepFailed = fail && failed.size() < FAILED;
      if (!slow && !keepFailed) {
        return;
      }
      Kept kept = keep(job, item);
      if (slow) {
        slowest.add(kept);
        if (slowest.size() > SLOWEST) {
          slowest.poll();
        }
      }
      if (keepFailed) {
        failed.add(kept);
      }
    }
  }

  private Kept keep(BatchRecorder.Job job, BatchRecorder.Item item) {
    long base = origin.getAsLong();
    List<Attempt> attempts = new ArrayList<>();
    for (AttemptRecord a : job.attempts) {
      if (attempts.size() == MAX_ATTEMPTS) {
        break;
      }
      attempts.add(
          new Attempt(
              a.number(),
              job.startNanos(a),
              a.duration().map(Duration::toNanos).orElse(-1L),
              a.status(),
              a.outcome(),
              a.waitTime().map(Duration::toNanos).orElse(0L)));
    }
    return new Kept(
        item.id(),
        item.line(),
        item.method(),
        item.url(),
        item.outcome(),
        item.status(),
        job.startNanos < 0 ? 0 : Math.max(0L, job.startNanos - base),
        item.elapsedNanos(),
        item.attempts(),
        List.copyOf(attempts),
        item.error());
  }

  /** The run ended at {@code now}: the in-flight line runs to here. */
  void finish(long now) {
    synchronized (this) {
      advance(now);
      endNanos = Math.max(0L, now - origin.getAsLong());
    }
  }

  /**
   * The bucket of {@code now}, merging buckets two by two until it fits; buckets passed since the
   * last event get the attempts in flight all along.
   */
  private int advance(long now) {
    long t = Math.max(0L, now - origin.getAsLong());
    while (t / width >= MAX_BUCKETS) {
      coarsen();
    }
    int b = (int) (t / width);
    for (int i = filled + 1; i <= b; i++) {
      peak[i] = Math.max(peak[i], inFlight);
    }
    filled = Math.max(filled, b);
    used = Math.max(used, b + 1);
    return b;
  }

  private void coarsen() {
    int half = (used + 1) / 2;
    for (int i = 0; i < half; i++) {
      int a = 2 * i;
      int b = a + 1;
      boolean second = b < used;
      starts[i] = starts[a] + (second ? starts[b] : 0);
      peak[i] = Math.max(peak[a], second ? peak[b] : 0);
      pace[i] = second && pace[b] > 0 ? pace[b] : pace[a];
      for (long[] o : outcomes) {
        o[i] = o[a] + (second ? o[b] : 0);
      }
    }
    for (int i = half; i < used; i++) {
      starts[i] = 0;
      peak[i] = 0;
      pace[i] = 0;
      for (long[] o : outcomes) {
        o[i] = 0;
      }
    }
    used = half;
    filled = filled < 0 ? -1 : filled / 2;
    width *= 2;
  }

  // ------------------------------------------------------------------ for the page

  /** A copy of what was collected, for the page writer. */
  record View(
      long bucketNanos,
      long[] starts,
      int[] peakInFlight,
      long[] paceNanos,
      long[][] outcomes,
      long[] byKind,
      LatencyHistogram attempts,
      LatencyHistogram requests,
      List<Kept> slowest,
      List<Kept> failed,
      long failedCount,
      long endNanos) {

    int buckets() {
      return starts.length;
    }
  }

  synchronized View view() {
    List<Kept> slow = new ArrayList<>(slowest);
    slow.sort(Comparator.comparingLong(Kept::elapsedNanos).reversed());
    long[][] o = new long[outcomes.length][];
    for (int k = 0; k < o.length; k++) {
      o[k] = Arrays.copyOf(outcomes[k], used);
    }
    return new View(
        width,
        Arrays.copyOf(starts, used),
        Arrays.copyOf(peak, used),
        Arrays.copyOf(pace, used),
        o,
        kinds.clone(),
        attemptLatency.copy(),
        requestLatency.copy(),
        List.copyOf(slow),
        List.copyOf(failed),
        failedCount,
        endNanos);
  }
}
