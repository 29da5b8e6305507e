package dev.relent.cli.batch;

import dev.relent.time.Ticker;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a batch shows people, as it runs and when it ends: the run's time, the counts of the
 * progress line (requests started, ended, failed, waiting; attempts in flight), the start of every
 * attempt, the 429s seen, and the concurrency achieved. {@link BatchDisplay} prints them.
 *
 * <p>Written by the workers, the recorder and the events, read by the progress thread: counters are
 * atomic, the starts a bounded array under the timeline's lock. Thread-safe.
 */
final class BatchTimeline {

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

  private final Ticker ticker;
  private final int total;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  private final LongAdder completed = new LongAdder();
  private final LongAdder busyNanos = new LongAdder();
  private final AtomicInteger done = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicInteger unfinished = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicInteger started = new AtomicInteger();
  private final AtomicInteger tooManyRequests = new AtomicInteger();
  private final AtomicInteger tooManyWithWait = new AtomicInteger();

  /** Attempt starts kept for the summary's spacing: the first {@value}, 8 MiB at most. */
  static final int MAX_STARTS = 1 << 20;

  // Guarded by itself.
  private long[] starts = new long[1024];
  private int startCount;
  private volatile long origin;
  private volatile long endNanos = -1;

  /**
   * @param ticker monotonic time
   * @param total the requests of the run
   */
  BatchTimeline(Ticker ticker, int total) {
    this.ticker = ticker;
    this.total = total;
  }

  /** The run begins now. */
  void begin() {
    origin = ticker.read();
  }

  /** The run has ended: the elapsed time stops. */
  void end() {
    endNanos = ticker.read();
  }

  /** When the run began, in ticker nanoseconds. */
  long origin() {
    return origin;
  }

  void requestStarted() {
    started.incrementAndGet();
  }

  /** A request recorded its outcome. */
  void ended(BatchRecorder.Item item) {
    if (item.isFinal()) {
      done.incrementAndGet();
      if (!item.success()) {
        failed.incrementAndGet();
      }
    } else {
      unfinished.incrementAndGet();
    }
  }

  void waitBegan() {
    waiting.incrementAndGet();
  }

  void waitEnded() {
    waiting.decrementAndGet();
  }

  /** An attempt began at {@code startNanos} (ticker time): the pacer and the limit let it go. */
  void attemptStarted(long startNanos) {
    synchronized (this) {
      if (startCount < MAX_STARTS) {
        if (startCount == starts.length) {
          starts = Arrays.copyOf(starts, Math.min(MAX_STARTS, starts.length * 2));
        }
        starts[startCount++] = startNanos;
      }
    }
    int now = inFlight.incrementAndGet();
    // Written only when higher: every attempt reads the peak, few raise it.
    int before;
    while (now > (before = peak.get()) && !peak.compareAndSet(before, now)) {
      // another attempt raised it meanwhile; compare again
    }
  }

  /** An attempt that began ended after {@code durationNanos}. */
  void attemptEnded(long durationNanos) {
    inFlight.decrementAndGet();
    completed.increment();
    busyNanos.add(durationNanos);
  }

  /** A 429 came; {@code withWait} when it said how long (so it paused its scope). */
  void tooManyRequests(boolean withWait) {
    tooManyRequests.incrementAndGet();
    if (withWait) {
      tooManyWithWait.incrementAndGet();
    }
  }

  Snapshot snapshot() {
    long end = endNanos;
    long now = end >= 0 ? end : ticker.read();
    return new Snapshot(
        total,
        done.get(),
        failed.get(),
        unfinished.get(),
        inFlight.get(),
        waiting.get(),
        started.get(),
        origin == 0 && end < 0 ? 0 : Math.max(0L, now - origin));
  }

  long elapsedNanos() {
    return snapshot().elapsedNanos();
  }

  /** The 429 answers seen. */
  int tooManyRequestsSeen() {
    return tooManyRequests.get();
  }

  /** The 429 answers that said how long to wait ({@code Retry-After}, a reset). */
  int tooManyRequestsWithWait() {
    return tooManyWithWait.get();
  }

  int peakInFlight() {
    return peak.get();
  }

  /** Mean attempt duration in nanoseconds, or -1 before the first completes. */
  long meanAttemptNanos() {
    long n = completed.sum();
    return n == 0 ? -1 : busyNanos.sum() / n;
  }

  /**
   * Attempt starts in ticker nanoseconds, sorted: every one, or the first {@link #MAX_STARTS} of a
   * run that made more.
   */
  long[] starts() {
    long[] copy;
    synchronized (this) {
      copy = Arrays.copyOf(starts, startCount);
    }
    Arrays.sort(copy);
    return copy;
  }

  /** Whether more attempts started than {@link #starts} keeps. */
  boolean startsCapped() {
    synchronized (this) {
      return startCount == MAX_STARTS && started.get() > 0;
    }
  }
}
