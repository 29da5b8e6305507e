package dev.relent.cli;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RelentListener;
import dev.relent.ServerHint;
import dev.relent.Verdict;
import dev.relent.http.Fault;
import dev.relent.http.HeaderLookup;
import dev.relent.http.HttpFaultException;
import dev.relent.http.HttpOutcomes;
import dev.relent.http.Redactor;
import dev.relent.http.ResponseFacts;
import dev.relent.time.Sleeper;
import dev.relent.time.Ticker;
import java.io.PrintWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the executor's events into one record per attempt, for {@code --verbose} (one line on
 * stderr as each attempt is decided) and for {@code --report}.
 *
 * <p>Design: the executor emits ATTEMPT when an attempt has finished, then exactly one of SUCCESS,
 * RETRY (with the wait chosen) or FAILURE (with the reason it gave up) for that attempt; the record
 * is opened on the first and closed on the second. An attempt's start is not an event: the first
 * begins at {@link #begin()}, each later one when the wait before it ends, which the wrapped {@link
 * Sleeper} notes (the CLI has no pacer, so every wait is a retry's). Everything kept is redacted or
 * comes from a fixed list of headers ({@link ResponseFacts}); bodies are never read.
 *
 * <p>Events arrive on the thread that calls {@code send}, one at a time; not thread-safe otherwise.
 */
final class AttemptRecorder implements RelentListener<HttpResponse<?>> {

  /**
   * One attempt, as the report shows it.
   *
   * @param number 1 for the first attempt
   * @param startNanos when it began, from the start of the call
   * @param durationNanos how long it took until its outcome was known
   * @param status the HTTP status, or -1 when no response came
   * @param fault the network fault ({@code reset}, {@code read-timeout}, ...) or null
   * @param outcome the description, e.g. {@code HTTP 503} or {@code connection reset (IOException)}
   * @param requestId the server's request id as {@code Name: value}, or null
   * @param waitHeaders the wait headers the server sent, or null
   * @param via the layers the headers show (CDN, proxy), or null
   * @param verdict {@code success}, {@code retry} or {@code abort}
   * @param rule the decision table's rule, e.g. {@code http-503}
   * @param hint the server hint that counted, e.g. {@code Retry-After: 2}, or null
   * @param decision {@code retry} (another attempt follows after {@code waitNanos}) or {@code stop}
   * @param waitNanos the wait chosen before the next attempt, or -1
   * @param gaveUp why the executor stopped after this attempt ({@code retries-exhausted}, ...), or
   *     null
   */
  record Attempt(
      int number,
      long startNanos,
      long durationNanos,
      int status,
      String fault,
      String outcome,
      String requestId,
      String waitHeaders,
      String via,
      String verdict,
      String rule,
      String hint,
      String decision,
      long waitNanos,
      String gaveUp) {}

  private final Ticker ticker;
  private final Redactor redactor;
  private final String method;
  private final String endpoint;
  private final String key;
  private final PrintWriter verbose;
  private final List<Attempt> attempts = new ArrayList<>();
  private HttpOutcomes<HttpResponse<?>> outcomes;
  private long origin;
  private long nextStart;
  private Attempt open;

  /**
   * Creates a recorder.
   *
   * @param ticker the call's ticker
   * @param redactor scrubs header values
   * @param method the request method
   * @param endpoint the endpoint, already redacted
   * @param key the idempotency key, or null
   * @param verbose where to write a line per attempt, or null for none
   */
  AttemptRecorder(
      Ticker ticker,
      Redactor redactor,
      String method,
      String endpoint,
      String key,
      PrintWriter verbose) {
    this.ticker = ticker;
    this.redactor = redactor;
    this.method = method;
    this.endpoint = endpoint;
    this.key = key;
    this.verbose = verbose;
  }

  /** Uses the client's HTTP semantics to describe outcomes; call before the first send. */
  void use(HttpOutcomes<HttpResponse<?>> outcomes) {
    this.outcomes = outcomes;
  }

  /** Marks the start of the call: the first attempt begins now. */
  void begin() {
    origin = ticker.read();
    nextStart = origin;
  }

  /** Returns the time since {@link #begin()}. */
  long elapsedNanos() {
    return Math.max(0L, ticker.read() - origin);
  }

  /** Returns the attempts recorded so far. */
  List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  /** Wraps the sleeper so that the end of each wait marks the start of the next attempt. */
  Sleeper sleeper(Sleeper inner) {
    return nanos -> {
      try {
        inner.sleep(nanos);
      } finally {
        nextStart = ticker.read();
      }
    };
  }

  @Override
  public void onEvent(RelentEvent<HttpResponse<?>> event) {
    switch (event.type()) {
      case ATTEMPT:
        open = opened(event);
        break;
      case RETRY:
        close(event, "retry", event.waitTime().orElseThrow().toNanos(), null);
        // The next attempt begins when the wait ends; a zero wait may not call the sleeper at all.
        nextStart = ticker.read();
        break;
      case SUCCESS:
        close(event, "stop", -1, null);
        break;
      case FAILURE:
        RelentException e = event.exception().orElse(null);
        close(event, "stop", -1, e == null ? null : Format.slug(e.reason()));
        break;
      default:
        break;
    }
  }

  private Attempt opened(RelentEvent<HttpResponse<?>> event) {
    long now = ticker.read();
    HttpResponse<?> response = event.result().orElse(null);
    Throwable failure = event.failure().orElse(null);
    int status = -1;
    String fault = null;
    String requestId = null;
    String waitHeaders = null;
    String via = null;
    if (failure == null && response != null) {
      status = response.statusCode();
      HeaderLookup headers = HeaderLookup.of(response.headers());
      requestId = scrub(ResponseFacts.requestId(headers));
      waitHeaders = scrub(ResponseFacts.waitHeaders(headers));
      via = scrub(ResponseFacts.layers(headers));
    } else if (failure != null) {
      Fault f =
          failure instanceof HttpFaultException
              ? ((HttpFaultException) failure).fault()
              : Fault.classify(failure);
      fault = f == null ? "not-a-network-fault" : Format.slug(f);
    }
    Verdict verdict = event.verdict().orElse(null);
    return new Attempt(
        event.attempt(),
        Math.max(0L, nextStart - origin),
        Math.max(0L, now - nextStart),
        status,
        fault,
        outcomes == null ? null : outcomes.describe(response, failure),
        requestId,
        waitHeaders,
        via,
        verdict == null ? null : Format.slug(verdict.kind()),
        verdict == null ? null : verdict.rule(),
        event.hint().map(ServerHint::source).map(this::scrub).orElse(null),
        null,
        -1,
        null);
  }

  private void close(
      RelentEvent<HttpResponse<?>> event, String decision, long waitNanos, String gaveUp) {
    Attempt a = open;
    if (a == null) {
      // A give-up between attempts (no time left for the next one): the outcome reports it.
      return;
    }
    open = null;
    Attempt closed =
        new Attempt(
            a.number(),
            a.startNanos(),
            a.durationNanos(),
            a.status(),
            a.fault(),
            a.outcome(),
            a.requestId(),
            a.waitHeaders(),
            a.via(),
            a.verdict(),
            a.rule(),
            a.hint(),
            decision,
            waitNanos,
            gaveUp);
    attempts.add(closed);
    if (verbose != null) {
      verbose.println(line(closed));
      verbose.flush();
    }
  }

  /** The {@code --verbose} line: key=value pairs like relent-http's log, quoted where free. */
  String line(Attempt a) {
    StringBuilder s = new StringBuilder(200).append("relent: attempt=").append(a.number());
    s.append(" start=").append(Format.duration(Duration.ofNanos(a.startNanos())));
    s.append(" method=").append(method);
    s.append(" endpoint=").append(endpoint);
    if (key != null) {
      quoted(s, "idempotency-key", key);
    }
    quoted(s, "outcome", a.outcome());
    quoted(s, "request-id", a.requestId());
    quoted(s, "wait-headers", a.waitHeaders());
    quoted(s, "via", a.via());
    if (a.gaveUp() != null) {
      quoted(s, "decision", "give up: " + a.gaveUp() + ", last " + a.verdict() + ": " + a.rule());
    } else if (a.verdict() != null) {
      quoted(s, "decision", a.verdict() + ": " + a.rule());
    }
    if (a.waitNanos() >= 0) {
      s.append(" wait=").append(Format.duration(Duration.ofNanos(a.waitNanos())));
    }
    quoted(s, "hint", a.hint());
    s.append(" took=").append(Format.duration(Duration.ofNanos(a.durationNanos())));
    return s.toString();
  }

  private static void quoted(StringBuilder s, String name, String value) {
    if (value != null) {
      s.append(' ').append(name).append("=\"").append(value.replace('"', '\'')).append('"');
    }
  }

  private String scrub(String value) {
    return value == null ? null : redactor.text(value);
  }
}
