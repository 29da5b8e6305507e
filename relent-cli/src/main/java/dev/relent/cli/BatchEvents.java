package dev.relent.cli;

import dev.relent.RelentEvent;
import dev.relent.ServerHint;
import dev.relent.Verdict;
import dev.relent.http.HttpOutcomes;
import dev.relent.http.Redactor;
import dev.relent.time.Ticker;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.function.BiConsumer;

/**
 * The one source of attempt facts for the {@link BatchRecorder}: it turns what the client reports,
 * the attempt starts the {@link TrackingHttpClient} sees and the executor's events, into the
 * recorder's {@code attemptStarted}, {@code attemptEnded}, {@code attemptDecided} and {@code
 * paced}. Both arrive on the thread of the worker that sends the request, which is how {@link
 * BatchRun} knows the job they belong to (a thread local) and hands it in; a report for no job (a
 * thread that is not a worker) is only counted.
 *
 * <p>It also passes on what the timeline counts (starts, 429s) and a quota that an answer says is
 * exhausted, which stops the run. Called on each worker's thread for its own job; thread-safe as
 * the recorder and the timeline are.
 */
final class BatchEvents {
  private final BatchRecorder recorder;
  private final BatchTimeline timeline;
  private final Ticker ticker;
  private final Redactor redactor;
  private final BiConsumer<Instant, String> quotaExhausted;
  private HttpOutcomes<HttpResponse<?>> outcomes;

  /**
   * @param quotaExhausted told the reset time (or null) and what said so, when an answer's
   *     rate-limit headers say the quota is gone
   */
  BatchEvents(
      BatchRecorder recorder,
      BatchTimeline timeline,
      Ticker ticker,
      Redactor redactor,
      BiConsumer<Instant, String> quotaExhausted) {
    this.recorder = recorder;
    this.timeline = timeline;
    this.ticker = ticker;
    this.redactor = redactor;
    this.quotaExhausted = quotaExhausted;
  }

  /** Uses the client's HTTP semantics to describe outcomes; call before the first send. */
  void use(HttpOutcomes<HttpResponse<?>> outcomes) {
    this.outcomes = outcomes;
  }

  /** The tracking client saw an attempt start. */
  void attemptStarted(BatchRecorder.Job job, long startNanos) {
    timeline.attemptStarted(startNanos);
    if (job != null) {
      recorder.attemptStarted(job, startNanos);
    }
  }

  /** The executor reported an event. */
  void onEvent(BatchRecorder.Job job, RelentEvent<HttpResponse<?>> event) {
    if (job == null) {
      return;
    }
    switch (event.type()) {
      case PACED:
        recorder.paced(job, event.waitTime().orElseThrow().toNanos());
        break;
      case ATTEMPT:
        attemptEnded(job, event);
        break;
      case RETRY:
        recorder.attemptDecided(job, "retry", event.waitTime().orElseThrow().toNanos(), null);
        break;
      case SUCCESS:
        recorder.attemptDecided(job, "stop", -1, null);
        break;
      case FAILURE:
        String gaveUp = event.exception().map(e -> Format.slug(e.reason())).orElse(null);
        recorder.attemptDecided(job, "stop", -1, gaveUp);
        break;
      default:
        break;
    }
  }

  private void attemptEnded(BatchRecorder.Job job, RelentEvent<HttpResponse<?>> event) {
    HttpResponse<?> response = event.result().orElse(null);
    Throwable failure = event.failure().orElse(null);
    Verdict verdict = event.verdict().orElse(null);
    int status = -1;
    boolean replayed = false;
    if (response != null && failure == null) {
      status = response.statusCode();
      replayed = response.headers().firstValue("Idempotent-Replayed").orElse("").equals("true");
      if (status == 429) {
        timeline.tooManyRequests();
      }
    }
    String outcome = outcomes.describe(response, failure);
    ServerHint hint = event.hint().orElse(null);
    String hintText = hint == null ? null : redactor.text(hint.source());
    recorder.attemptEnded(
        job,
        ticker.read(),
        status,
        replayed,
        outcome,
        verdict == null ? null : Format.slug(verdict.kind()),
        verdict == null ? null : verdict.rule(),
        hintText);
    if (hint != null && hint.isQuotaExhausted()) {
      // Said on any answer (a 200 with "0 left today"): no later request can succeed.
      quotaExhausted.accept(hint.resetAt(), outcome + " with " + hintText);
    }
  }
}
