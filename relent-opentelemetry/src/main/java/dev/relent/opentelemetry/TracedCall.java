package dev.relent.opentelemetry;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.ServerHint;
import dev.relent.Verdict;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Redactor;
import dev.relent.http.adapter.CallObserver;
import dev.relent.http.adapter.HttpCall;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The spans of one call: the call's span, started when the call is made, and the client span of the
 * request in flight.
 *
 * <p>Design: the adapter calls {@code attemptStarted}, {@code attemptEnded}, {@code onEvent} and
 * {@code callEnded} in the order the call runs, but for an asynchronous call on different threads,
 * and a cancellation can overlap the end of an attempt; every method is synchronized, so the fields
 * need no other care and a span is ended once. A client span still open when the call ends (a
 * cancellation that came first) is ended then, as cancelled.
 */
final class TracedCall implements CallObserver {
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<String> METHOD_ORIGINAL =
      AttributeKey.stringKey("http.request.method_original");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
  static final AttributeKey<String> URL_TEMPLATE = AttributeKey.stringKey("url.template");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("relent.attempts");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("relent.attempt");
  static final AttributeKey<String> RULE = AttributeKey.stringKey("relent.rule");
  static final AttributeKey<Long> WAIT_MS = AttributeKey.longKey("relent.wait_ms");
  static final AttributeKey<String> HINT = AttributeKey.stringKey("relent.server_hint");
  static final AttributeKey<Long> HINT_WAIT_MS = AttributeKey.longKey("relent.server_hint.wait_ms");
  static final AttributeKey<String> REASON = AttributeKey.stringKey("relent.reason");
  static final AttributeKey<String> WAIT_SOURCE = AttributeKey.stringKey("relent.wait_source");
  static final AttributeKey<String> MESSAGE = AttributeKey.stringKey("relent.message");

  /** The conventions' {@code error.type} when nothing more precise is known. */
  static final String OTHER = "_OTHER";

  static final String RETRY_EVENT = "relent.retry";
  static final String PACED_EVENT = "relent.paced";
  static final String GIVE_UP_EVENT = "relent.give_up";

  /** The methods the conventions name; any other is reported as {@code _OTHER}. */
  private static final Set<String> KNOWN_METHODS =
      Set.of("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE");

  private static final TextMapSetter<BiConsumer<String, String>> SETTER =
      (headers, name, value) -> {
        if (headers != null) {
          headers.accept(name, value);
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final HttpCall call;
  private final Redactor redactor;
  private final Attributes request;
  private final String clientName;
  private final Span span;
  private final Context context;
  private Span attempt;
  private int attemptNumber;
  private int lastStatus = -1;
  private boolean ended;

  TracedCall(
      Tracer tracer, TextMapPropagator propagator, HttpCall call, String route, Context parent) {
    this.tracer = tracer;
    this.propagator = propagator;
    this.call = call;
    this.redactor = call.redactor();
    String method = call.method();
    boolean known = KNOWN_METHODS.contains(method);
    AttributesBuilder a = Attributes.builder();
    a.put(METHOD, known ? method : "_OTHER");
    if (!known) {
      a.put(METHOD_ORIGINAL, method);
    }
    putServer(a, call.uri());
    a.put(URL_FULL, call.endpoint());
    if (route != null) {
      a.put(URL_TEMPLATE, route);
    }
    this.request = a.build();
    String base = known ? method : "HTTP";
    this.clientName = route == null ? base : base + " " + route;
    this.span =
        tracer
            .spanBuilder("relent " + clientName)
            .setParent(parent)
            .setSpanKind(SpanKind.INTERNAL)
            .setAllAttributes(request)
            .startSpan();
    this.context = parent.with(span);
  }

  /** {@code server.address} and {@code server.port}, the port made explicit from the scheme. */
  private static void putServer(AttributesBuilder a, String uri) {
    URI parsed;
    try {
      parsed = URI.create(uri);
    } catch (IllegalArgumentException e) {
      return; // the client refuses it; there is no server to name
    }
    String host = parsed.getHost();
    if (host == null) {
      return;
    }
    a.put(SERVER_ADDRESS, host);
    int port = parsed.getPort();
    if (port < 0) {
      String scheme = parsed.getScheme() == null ? "" : parsed.getScheme();
      port = "https".equalsIgnoreCase(scheme) ? 443 : "http".equalsIgnoreCase(scheme) ? 80 : -1;
    }
    if (port >= 0) {
      a.put(SERVER_PORT, (long) port);
    }
  }

  @Override
  public synchronized void attemptStarted(int number, BiConsumer<String, String> headers) {
    if (ended) {
      return;
    }
    endAttempt(-1, OTHER); // none is open unless an end was missed
    SpanBuilder b =
        tracer
            .spanBuilder(clientName)
            .setParent(context)
            .setSpanKind(SpanKind.CLIENT)
            .setAllAttributes(request);
    if (number > 1) {
      b.setAttribute(RESEND_COUNT, (long) (number - 1));
    }
    attempt = b.startSpan();
    attemptNumber = number;
    propagator.inject(context.with(attempt), headers, SETTER);
  }

  @Override
  public synchronized void attemptEnded(int number, int status, Throwable failure) {
    if (attempt == null || number != attemptNumber) {
      return;
    }
    if (status >= 0) {
      lastStatus = status;
    }
    endAttempt(status, failure == null ? null : errorType(failure));
  }

  private void endAttempt(int status, String error) {
    Span s = attempt;
    if (s == null) {
      return;
    }
    attempt = null;
    if (status >= 0) {
      s.setAttribute(STATUS, (long) status);
      if (status >= 400) {
        error = Integer.toString(status);
      }
    }
    if (error != null) {
      s.setAttribute(ERROR_TYPE, error);
      s.setStatus(StatusCode.ERROR);
    }
    s.end();
  }

  @Override
  public synchronized void onEvent(RelentEvent<?> event) {
    if (ended) {
      return;
    }
    switch (event.type()) {
      case RETRY:
        {
          AttributesBuilder a = Attributes.builder().put(ATTEMPT, (long) event.attempt());
          event.verdict().map(Verdict::rule).ifPresent(rule -> a.put(RULE, rule));
          event.waitTime().ifPresent(wait -> a.put(WAIT_MS, millis(wait)));
          a.put(WAIT_SOURCE, event.isServerWait() ? "server" : "backoff");
          event.hint().ifPresent(hint -> putHint(a, hint));
          span.addEvent(RETRY_EVENT, a.build());
          break;
        }
      case PACED:
        {
          AttributesBuilder a = Attributes.builder().put(ATTEMPT, (long) event.attempt() + 1);
          event.waitTime().ifPresent(wait -> a.put(WAIT_MS, millis(wait)));
          span.addEvent(PACED_EVENT, a.build());
          break;
        }
      case FAILURE:
        {
          AttributesBuilder a = Attributes.builder().put(ATTEMPT, (long) event.attempt());
          event.verdict().map(Verdict::rule).ifPresent(rule -> a.put(RULE, rule));
          event.hint().ifPresent(hint -> putHint(a, hint));
          // The meters' reason tag and the log line's give-up spell it the same way.
          event.giveUpReason().ifPresent(reason -> a.put(REASON, reason.slug()));
          event
              .exception()
              .map(RelentException::getMessage)
              .ifPresent(message -> a.put(MESSAGE, redactor.text(message)));
          span.addEvent(GIVE_UP_EVENT, a.build());
          break;
        }
      default:
        break;
    }
  }

  private void putHint(AttributesBuilder a, ServerHint hint) {
    a.put(HINT, redactor.text(hint.source()));
    a.put(HINT_WAIT_MS, millis(hint.waitTime()));
  }

  @Override
  public synchronized void callEnded(int status, Throwable failure) {
    if (ended) {
      return;
    }
    ended = true;
    // Open only when a cancellation ended the call before the attempt's end was seen.
    endAttempt(-1, failure != null ? errorType(failure) : OTHER);
    span.setAttribute(ATTEMPTS, (long) call.attempts());
    String error = null;
    if (status >= 0) {
      span.setAttribute(STATUS, (long) status);
      if (status >= 400) {
        error = Integer.toString(status);
      }
    } else if (lastStatus >= 0 && failure instanceof RelentException) {
      // A give-up after answers: the last answer's status says what the server last said.
      span.setAttribute(STATUS, (long) lastStatus);
    }
    if (failure != null) {
      error = errorType(failure);
    }
    if (error != null) {
      span.setAttribute(ERROR_TYPE, error);
      span.setStatus(StatusCode.ERROR);
    }
    span.end();
  }

  /**
   * The conventions' {@code error.type} of a failure: the class name of the client's exception
   * under a fault, else of the exception itself.
   */
  static String errorType(Throwable failure) {
    Throwable t = failure;
    if (t instanceof HttpFaultException && t.getCause() != null) {
      t = t.getCause();
    }
    return t.getClass().getName();
  }

  private static long millis(Duration d) {
    return d.toMillis();
  }

  @Override
  public String toString() {
    return "TracedCall[" + call.method() + " " + call.endpoint() + "]";
  }
}
