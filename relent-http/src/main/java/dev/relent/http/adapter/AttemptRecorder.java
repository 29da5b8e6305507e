package dev.relent.http.adapter;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RelentListener;
import dev.relent.ServerHint;
import dev.relent.Verdict;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import dev.relent.http.AttemptRecord;
import dev.relent.http.Decision;
import dev.relent.http.DecisionTable;
import dev.relent.http.Fault;
import dev.relent.http.HeaderLookup;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Redactor;
import dev.relent.http.ResponseFacts;
import java.time.Duration;
import java.util.Optional;

/**
 * Turns the executor's events into {@link AttemptRecord}s and hands each to its call and to the log
 * writer.
 *
 * <p>Design: the executor emits ATTEMPT_STARTED, ATTEMPT (with the duration and the hint), then
 * exactly one of SUCCESS, RETRY or FAILURE for the same attempt; the record is made on that third
 * event, which carries the outcome, the verdict and the wait chosen. A FAILURE that follows no new
 * attempt (an open breaker, a deadline reached before the next attempt) makes no record: it is
 * written as a give-up line of its own (with the last attempt's facts, when there was one). A
 * recorder made for one call (the loop passes it to the executor as that call's listener) keeps the
 * attempt's duration between events; the executor emits one call's events in order, each happening
 * before the next. A recorder without a call (executor-wide, {@link HttpOutcomes#logger}) sees many
 * calls' events interleaved: it only writes lines, whose facts come from the events alone (no key).
 */
final class AttemptRecorder<R> implements RelentListener<R> {
  private final HttpOutcomes<R> outcomes;
  private final HttpAttemptLogger log;
  private final HttpCall call;
  private final GuardRegistry registry;
  private Duration duration;
  private ServerHint hint;

  AttemptRecorder(
      HttpOutcomes<R> outcomes, HttpAttemptLogger log, HttpCall call, GuardRegistry registry) {
    this.outcomes = outcomes;
    this.log = log;
    this.call = call;
    this.registry = registry;
  }

  /**
   * The call's scopes paused now, for the log line: {@code endpoint GET h/v1/x until T (by …)};
   * null when none is, or when the call has no scopes.
   */
  private String paused() {
    if (registry == null || call == null || call.scopes().isEmpty()) {
      return null;
    }
    StringBuilder b = null;
    for (Scope scope : call.scopes()) {
      ScopeGuards g = registry.find(scope).orElse(null);
      if (g == null || !g.isPaused()) {
        continue;
      }
      b = b == null ? new StringBuilder() : b.append("; ");
      b.append(scope);
      if (g.pausedUntil().isPresent()) {
        b.append(" until ").append(g.pausedUntil().get());
      }
      if (g.pauseCause().isPresent()) {
        b.append(" by ").append(g.pauseCause().get());
      }
    }
    return b == null ? null : b.toString();
  }

  @Override
  public void onEvent(RelentEvent<R> event) {
    if (call != null) {
      call.observeEvent(event);
    }
    switch (event.type()) {
      case ATTEMPT:
        if (call != null) {
          duration = event.attemptDuration().orElse(null);
          hint = event.hint().orElse(null);
        }
        break;
      case SUCCESS:
      case RETRY:
      case FAILURE:
        // A give-up after a retry repeats the last attempt's facts but is no attempt of its own.
        AttemptRecord record = event.verdict().isPresent() ? record(event) : null;
        if (call != null && duration != null && record != null) {
          call.add(record);
        }
        duration = null;
        hint = null;
        if (log != null) {
          log.write(record, event, paused());
        }
        break;
      case PACED:
        if (log != null) {
          log.paced(event);
        }
        break;
      default:
        break;
    }
  }

  private AttemptRecord record(RelentEvent<R> event) {
    Redactor redactor = outcomes.redactor();
    ResponseAccess<R> access = outcomes.access();
    R result = event.result().orElse(null);
    Throwable failure = event.failure().orElse(null);
    HttpFaultException wrapped = failure == null ? null : HttpOutcomes.findFault(failure);
    String method;
    String endpoint;
    if (call != null) {
      method = call.method();
      endpoint = call.endpoint();
    } else if (failure == null && result != null) {
      method = access.method(result);
      endpoint = redactor.uri(access.uri(result));
    } else if (wrapped != null) {
      method = wrapped.method();
      endpoint = wrapped.endpoint();
    } else {
      method = "-";
      endpoint = "-";
    }
    HeaderLookup headers = failure == null && result != null ? access.headers(result) : null;
    Fault fault = null;
    if (failure != null) {
      fault = wrapped != null ? wrapped.fault() : Fault.classify(failure);
    }
    Decision decision = outcomes.decide(result, failure);
    Verdict verdict = event.verdict().orElseThrow();
    return new AttemptRecord(
        event.attempt(),
        event.attemptStart().orElse(Duration.ZERO),
        Optional.ofNullable(duration),
        ResponseFacts.sanitize(method),
        ResponseFacts.sanitize(endpoint),
        headers != null ? access.status(result) : -1,
        Optional.ofNullable(fault),
        outcomes.describe(result, failure),
        verdict,
        decision.rule(),
        decision.notResent(),
        ambiguous(decision),
        event.waitTime(),
        event.hint().or(() -> Optional.ofNullable(hint)).map(h -> clean(h.source(), redactor)),
        header(ResponseFacts.requestId(headers), redactor),
        header(ResponseFacts.waitHeaders(headers), redactor),
        header(ResponseFacts.layers(headers), redactor),
        headers != null && "true".equalsIgnoreCase(first(headers)),
        Optional.ofNullable(call == null ? null : AttemptRecord.shortKey(call.key())),
        event.type() == RelentEvent.Type.FAILURE
            ? event.exception().map(RelentException::reason)
            : Optional.empty());
  }

  /**
   * Whether the outcome leaves open whether the request took effect: its row is one that retries
   * only idempotent or keyed requests (the request may have reached the server), and it was not
   * accepted as the answer.
   */
  static boolean ambiguous(Decision decision) {
    DecisionTable.Rule row = decision.tableRule();
    return (row == DecisionTable.Rule.RETRY || row == DecisionTable.Rule.RETRY_WITH_RETRY_AFTER)
        && (decision.isRetry() || decision.notResent());
  }

  private static String first(HeaderLookup headers) {
    try {
      String value = headers.first(AttemptRecord.REPLAYED_HEADER);
      return value == null ? null : value.trim();
    } catch (RuntimeException e) {
      return null; // a broken header view counts as no header
    }
  }

  private static Optional<String> header(String value, Redactor redactor) {
    return Optional.ofNullable(value == null ? null : clean(value, redactor));
  }

  /** What a header value may look like in a log line: redacted, sanitised, no double quotes. */
  private static String clean(String value, Redactor redactor) {
    return ResponseFacts.sanitize(redactor.text(value)).replace('"', '\'');
  }
}
