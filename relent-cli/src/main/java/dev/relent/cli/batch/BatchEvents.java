package dev.relent.cli.batch;

import dev.relent.RelentEvent;
import dev.relent.RelentListener;
import dev.relent.ServerHint;
import dev.relent.http.AttemptRecord;
import dev.relent.http.Redactor;
import dev.relent.http.adapter.HttpOutcomes;
import dev.relent.time.Ticker;
import java.net.http.HttpResponse;
import java.util.function.Consumer;

/**
 * The one source of attempt facts for a batch, in two parts. Each request's attempts come as the
 * {@link AttemptRecord}s relent-http makes, through the listener of that call alone ({@link
 * #attempts}), and go to the {@link BatchRecorder}. What the whole run counts comes from the
 * executor's own events ({@link #onEvent}, an executor-wide listener): an attempt began (after the
 * pacer and the concurrency limit let it go) or ended, for the attempts in flight, their starts and
 * their mean duration in the {@link BatchTimeline}; a 429; and a quota an answer says is exhausted,
 * which stops the scope of the answer's request. None of these needs to know which request an event
 * belongs to.
 *
 * <p>Thread-safe as the recorder and the timeline are: events come on each worker's thread.
 */
final class BatchEvents implements RelentListener<HttpResponse<?>> {
  /** Told when an answer says a quota is exhausted. */
  @FunctionalInterface
  interface QuotaListener {
    /**
     * @param response the answer (its request names the scope), or null when there was none
     * @param hint what it said
     * @param what the answer and its headers, for messages, redacted
     */
    void exhausted(HttpResponse<?> response, ServerHint hint, String what);
  }

  private final BatchRecorder recorder;
  private final BatchTimeline timeline;
  private final Ticker ticker;
  private final Redactor redactor;
  private final QuotaListener quotaExhausted;
  private HttpOutcomes<HttpResponse<?>> outcomes;
  private volatile BatchReport report;

  /**
   * @param quotaExhausted told when an answer's rate-limit headers say the quota is gone
   */
  BatchEvents(
      BatchRecorder recorder,
      BatchTimeline timeline,
      Ticker ticker,
      Redactor redactor,
      QuotaListener quotaExhausted) {
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

  /** Also tells {@code report} of every attempt's start and end ({@code --html}). */
  void report(BatchReport report) {
    this.report = report;
  }

  /** The listener for one request's attempts, as each ends. */
  Consumer<AttemptRecord> attempts(BatchRecorder.Job job) {
    return record -> recorder.attempted(job, record);
  }

  /** The executor reported an event of some request. */
  @Override
  public void onEvent(RelentEvent<HttpResponse<?>> event) {
    switch (event.type()) {
      case ATTEMPT_STARTED:
        {
          long now = ticker.read();
          timeline.attemptStarted(now);
          BatchReport r = report;
          if (r != null) {
            r.attemptStarted(now);
          }
          break;
        }
      case ATTEMPT:
        {
          long duration = event.attemptDuration().orElseThrow().toNanos();
          timeline.attemptEnded(duration);
          BatchReport r = report;
          if (r != null) {
            HttpResponse<?> response = event.result().orElse(null);
            r.attemptEnded(ticker.read(), duration, response == null ? -1 : response.statusCode());
          }
          attemptEnded(event);
          break;
        }
      default:
        break;
    }
  }

  private void attemptEnded(RelentEvent<HttpResponse<?>> event) {
    HttpResponse<?> response = event.result().orElse(null);
    Throwable failure = event.failure().orElse(null);
    ServerHint hint = event.hint().orElse(null);
    if (response != null && failure == null && response.statusCode() == 429) {
      timeline.tooManyRequests(hint != null && hint.pausesAll() && hint.waitNanos() > 0);
    }
    if (hint != null && hint.isQuotaExhausted()) {
      // Said on any answer (a 200 with "0 left today"): no later request of its scope can succeed.
      quotaExhausted.exhausted(
          response,
          hint,
          outcomes.describe(response, failure) + " with " + redactor.text(hint.source()));
    }
  }
}
