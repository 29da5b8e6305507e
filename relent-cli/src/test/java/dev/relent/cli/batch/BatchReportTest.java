package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.relent.Verdict;
import dev.relent.http.AttemptRecord;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The collectors of {@code relent batch --html}, on times given by the test (ticker nanoseconds,
 * the run's origin 1000 s in): exact bucket counts, in-flight carried over quiet seconds, buckets
 * merged two by two past the limit, latency percentiles within their bin, and the slowest and
 * failed requests kept with their attempts, no more.
 */
class BatchReportTest {
  private static final long ORIGIN = 1_000_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;

  private final AtomicLong pace = new AtomicLong(1);
  private final BatchReport report = new BatchReport(() -> ORIGIN, pace::get);

  private static long at(double seconds) {
    return ORIGIN + Math.round(seconds * S);
  }

  @Test
  void startsOutcomesAndPaceAreCountedInTheSecondTheyHappen() {
    pace.set(100 * MS);
    report.attemptStarted(at(0.1));
    report.attemptEnded(at(0.2), 100 * MS, 200);
    report.attemptStarted(at(0.5));
    report.attemptEnded(at(0.9), 400 * MS, 429);
    pace.set(250 * MS);
    report.attemptStarted(at(1.2));
    report.attemptEnded(at(1.3), 100 * MS, 503);
    report.attemptStarted(at(1.4));
    report.attemptEnded(at(2.4), S, -1);
    pace.set(1); // not pacing any more
    report.attemptStarted(at(2.5));
    report.attemptEnded(at(2.6), 100 * MS, 404);
    report.finish(at(2.7));

    BatchReport.View v = report.view();
    assertThat(v.bucketNanos()).isEqualTo(S);
    assertThat(v.starts()).containsExactly(2, 2, 1);
    assertThat(v.outcomes()[BatchReport.Kind.OK.ordinal()]).containsExactly(1, 0, 0);
    assertThat(v.outcomes()[BatchReport.Kind.TOO_MANY_REQUESTS.ordinal()]).containsExactly(1, 0, 0);
    assertThat(v.outcomes()[BatchReport.Kind.SERVER_ERROR.ordinal()]).containsExactly(0, 1, 0);
    assertThat(v.outcomes()[BatchReport.Kind.NO_ANSWER.ordinal()]).containsExactly(0, 0, 1);
    assertThat(v.outcomes()[BatchReport.Kind.CLIENT_ERROR.ordinal()]).containsExactly(0, 0, 1);
    assertThat(v.byKind()).containsExactly(1, 1, 1, 1, 1);
    assertThat(v.paceNanos()).containsExactly(100 * MS, 250 * MS, 0);
    assertThat(v.peakInFlight()).containsExactly(1, 1, 1);
    assertThat(v.endNanos()).isEqualTo(2_700 * MS);
    assertThat(v.attempts().count()).isEqualTo(5);
    assertThat(v.attempts().max()).isEqualTo(S);
  }

  @Test
  void attemptsInFlightCountInEverySecondTheyLast() {
    report.attemptStarted(at(0.5));
    report.attemptStarted(at(0.6));
    report.attemptStarted(at(0.7));
    report.attemptEnded(at(0.8), 300 * MS, 200);
    // two stay on the wire through seconds 1 to 3, when no event comes
    report.attemptEnded(at(4.1), 3_500 * MS, 200);
    report.attemptEnded(at(4.2), 3_600 * MS, 200);
    report.finish(at(5.5));

    assertThat(report.view().peakInFlight()).containsExactly(3, 2, 2, 2, 2, 0);
  }

  @Test
  void aLongRunMergesBucketsTwoByTwoAndKeepsEveryCount() {
    int seconds = BatchReport.MAX_BUCKETS * 2 + 10;
    for (int i = 0; i < seconds; i++) {
      report.attemptStarted(at(i + 0.25));
      report.attemptEnded(at(i + 0.5), 250 * MS, i % 2 == 0 ? 200 : 503);
    }
    BatchReport.View v = report.view();
    assertThat(v.bucketNanos()).isEqualTo(4 * S);
    assertThat(v.buckets()).isLessThanOrEqualTo(BatchReport.MAX_BUCKETS);
    assertThat(v.buckets()).isEqualTo((seconds + 3) / 4);
    long total = 0;
    for (long n : v.starts()) {
      total += n;
    }
    assertThat(total).isEqualTo(seconds);
    assertThat(v.starts()[0]).isEqualTo(4);
    assertThat(v.starts()[v.buckets() - 1]).isEqualTo(seconds % 4 == 0 ? 4 : seconds % 4);
    assertThat(v.outcomes()[BatchReport.Kind.OK.ordinal()][0]).isEqualTo(2);
    assertThat(v.outcomes()[BatchReport.Kind.SERVER_ERROR.ordinal()][0]).isEqualTo(2);
    assertThat(v.byKind()[BatchReport.Kind.OK.ordinal()]).isEqualTo(seconds / 2);
    assertThat(v.peakInFlight()).containsOnly(1);
  }

  @Test
  void percentilesAreWithinTheirBinAndTheExtremesAreExact() {
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 1; i <= 1000; i++) {
      h.add(i * MS);
    }
    assertThat(h.count()).isEqualTo(1000);
    assertThat(h.min()).isEqualTo(MS);
    assertThat(h.max()).isEqualTo(1000 * MS);
    assertThat(h.percentile(100)).isEqualTo(1000 * MS);
    assertThat((double) h.percentile(50)).isCloseTo(500.0 * MS, within(500.0 * MS / 32));
    assertThat((double) h.percentile(99)).isCloseTo(990.0 * MS, within(990.0 * MS / 32));
    assertThat(h.percentile(50)).isGreaterThanOrEqualTo(500 * MS);

    LatencyHistogram small = new LatencyHistogram();
    for (int i = 0; i < 10; i++) {
      small.add(i);
    }
    assertThat(small.percentile(50)).isEqualTo(4);
    assertThat(new LatencyHistogram().percentile(99)).isZero();
  }

  @Test
  void binsCoverEveryLongAndTheirBoundsHoldTheirValues() {
    for (long v :
        new long[] {0, 1, 31, 32, 33, 63, 64, 1_000_000, 123_456_789_012L, Long.MAX_VALUE}) {
      int bin = LatencyHistogram.bin(v);
      assertThat(LatencyHistogram.upper(bin)).as("upper bound of %s", v).isGreaterThanOrEqualTo(v);
      if (bin > 0) {
        assertThat(LatencyHistogram.upper(bin - 1)).as("bin below %s", v).isLessThan(v);
      }
    }
  }

  @Test
  void keepsTheSlowestAndTheFirstFailedWithTheirAttempts() {
    for (int i = 1; i <= 40; i++) {
      BatchRecorder.Job job = job("r-" + i, (i - 1) * 100 * MS);
      boolean fail = i % 3 == 0;
      job.attempts.add(attempt(1, 0, 20 * MS, fail ? 503 : 200, fail ? 50 * MS : 0));
      if (fail) {
        job.attempts.add(attempt(2, 70 * MS, 30 * MS, 503, 0));
      }
      report.ended(job, item(job, fail ? "retries-exhausted" : "success", i * MS));
    }
    BatchRecorder.Job notSent = job("never", 0);
    report.ended(notSent, item(notSent, "not-sent", 0));

    BatchReport.View v = report.view();
    assertThat(v.slowest())
        .extracting(BatchReport.Kept::id)
        .containsExactly(
            "r-40", "r-39", "r-38", "r-37", "r-36", "r-35", "r-34", "r-33", "r-32", "r-31");
    assertThat(v.failedCount()).isEqualTo(13);
    assertThat(v.failed()).hasSize(13);
    assertThat(v.failed().get(0).id()).isEqualTo("r-3");
    BatchReport.Kept first = v.failed().get(0);
    assertThat(first.beginNanos()).isEqualTo(200 * MS);
    assertThat(first.url()).isEqualTo("https://api.example/items/r-3");
    assertThat(first.attempts())
        .containsExactly(
            new BatchReport.Attempt(1, 205 * MS, 20 * MS, 503, "HTTP 503", 50 * MS),
            new BatchReport.Attempt(2, 275 * MS, 30 * MS, 503, "HTTP 503", 0));
    assertThat(v.requests().count()).isEqualTo(40);
  }

  @Test
  void keepsNoMoreThanTheFirstFailedRequests() {
    for (int i = 1; i <= BatchReport.FAILED + 15; i++) {
      BatchRecorder.Job job = job("f-" + i, 0);
      job.attempts.add(attempt(1, 0, MS, 404, 0));
      report.ended(job, item(job, "http-error", MS));
    }
    BatchReport.View v = report.view();
    assertThat(v.failed()).hasSize(BatchReport.FAILED);
    assertThat(v.failed().get(BatchReport.FAILED - 1).id()).isEqualTo("f-" + BatchReport.FAILED);
    assertThat(v.failedCount()).isEqualTo(BatchReport.FAILED + 15);
  }

  private static BatchRecorder.Job job(String id, long beginNanos) {
    BatchRecorder.Job job =
        new BatchRecorder.Job(
            new BatchInput.Request(
                7,
                id,
                HttpRequest.newBuilder(URI.create("https://api.example/items/" + id)).build(),
                BatchInput.KeyMode.AUTO,
                null,
                new BatchInput.Fingerprint(
                    "GET", URI.create("https://api.example/items/" + id), null)));
    job.startNanos = ORIGIN + beginNanos;
    job.sendNanos = beginNanos + 5 * MS;
    return job;
  }

  private static AttemptRecord attempt(
      int number, long startNanos, long durationNanos, int status, long waitNanos) {
    return new AttemptRecord(
        number,
        Duration.ofNanos(startNanos),
        Optional.of(Duration.ofNanos(durationNanos)),
        "GET",
        "https://api.example/items",
        status,
        Optional.empty(),
        "HTTP " + status,
        status == 200 ? Verdict.SUCCESS : Verdict.RETRY,
        "rule",
        false,
        false,
        waitNanos > 0 ? Optional.of(Duration.ofNanos(waitNanos)) : Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        false,
        Optional.empty(),
        Optional.empty());
  }

  private static BatchRecorder.Item item(BatchRecorder.Job job, String outcome, long elapsed) {
    int status = job.attempts.isEmpty() ? -1 : job.attempts.get(job.attempts.size() - 1).status();
    return new BatchRecorder.Item(
        job.request.id(),
        7,
        "GET",
        "https://api.example/items/" + job.request.id(),
        outcome,
        !outcome.equals("not-sent"),
        status,
        job.attempts.size(),
        List.of(),
        0,
        elapsed,
        null,
        outcome.equals("success") ? null : "failed");
  }

  @Test
  void kindsFollowTheStatus() {
    assertThat(BatchReport.Kind.of(200)).isEqualTo(BatchReport.Kind.OK);
    assertThat(BatchReport.Kind.of(304)).isEqualTo(BatchReport.Kind.OK);
    assertThat(BatchReport.Kind.of(429)).isEqualTo(BatchReport.Kind.TOO_MANY_REQUESTS);
    assertThat(BatchReport.Kind.of(404)).isEqualTo(BatchReport.Kind.CLIENT_ERROR);
    assertThat(BatchReport.Kind.of(503)).isEqualTo(BatchReport.Kind.SERVER_ERROR);
    assertThat(BatchReport.Kind.of(-1)).isEqualTo(BatchReport.Kind.NO_ANSWER);
  }
}
