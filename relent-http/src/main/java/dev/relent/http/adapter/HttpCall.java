package dev.relent.http.adapter;

import dev.relent.RelentEvent;
import dev.relent.guard.Scope;
import dev.relent.http.AttemptRecord;
import dev.relent.http.CallResult;
import dev.relent.http.Decision;
import dev.relent.http.DecisionTable;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Redactor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One logical operation of an adapter, made by {@link HttpCallLoop#prepare} before the first send:
 * the request's method and URI, its {@code Idempotency-Key} (chosen once; the adapter sets the
 * header on its own request), the decision table it is judged by, and, as the call runs, its
 * attempt number, its attempt records and the final decision.
 *
 * <p>An adapter keeps it beside its request (OkHttp: as a tag; HttpClient 5 and the JDK: in the
 * response wrapper), so that its {@link ResponseAccess} can tell which call a response answered.
 * Thread-safe: an asynchronous call's attempts end on other threads.
 */
public final class HttpCall {
  private final String method;
  private final String uri;
  private final String endpoint;
  private final String key;
  private final DecisionTable table;
  private final Redactor redactor;
  private final Consumer<AttemptRecord> listener;
  private final List<Scope> scopes;
  private final List<AttemptRecord> records = new ArrayList<>(2);
  private volatile int attempt;
  private volatile Decision decision;
  // null when the adapter has no observer: the hook then costs a null check per attempt and per
  // event.
  private volatile CallObserver[] observers;
  private volatile Map<String, String> attemptHeaders = Map.of();
  private boolean over; // guarded by this

  HttpCall(
      String method,
      String uri,
      String endpoint,
      String key,
      DecisionTable table,
      Redactor redactor,
      Consumer<AttemptRecord> listener,
      List<Scope> scopes) {
    this.method = method;
    this.scopes = scopes;
    this.uri = uri;
    this.endpoint = endpoint;
    this.key = key;
    this.table = table;
    this.redactor = redactor;
    this.listener = listener;
  }

  /**
   * Returns the request method.
   *
   * @return the method, e.g. {@code "POST"}
   */
  public String method() {
    return method;
  }

  /**
   * Returns the scopes the request belongs to, broadest first.
   *
   * @return the scopes; empty unless the adapter was built {@code withScopes}
   */
  public List<Scope> scopes() {
    return scopes;
  }

  /**
   * Returns the request URI, unredacted: only for sending and for {@link ResponseAccess#uri}.
   *
   * @return the URI as a string
   */
  public String uri() {
    return uri;
  }

  /**
   * Returns the request URI, redacted: for logs, records and messages.
   *
   * @return the endpoint
   */
  public String endpoint() {
    return endpoint;
  }

  /**
   * Returns the {@code Idempotency-Key} every attempt carries.
   *
   * @return the key, or null when the call has none
   */
  public String key() {
    return key;
  }

  /**
   * Returns the redactor of the adapter, for anything written down about the call.
   *
   * @return the redactor
   */
  public Redactor redactor() {
    return redactor;
  }

  /**
   * Returns the headers the call's {@link CallObserver}s set for the attempt in flight, which the
   * adapter adds to that attempt's request (replacing a value of the same name).
   *
   * @return name to value, in the order set; empty without observers
   */
  public Map<String, String> attemptHeaders() {
    return attemptHeaders;
  }

  /**
   * Returns the call's own decision table.
   *
   * @return the table, or null for the adapter's
   */
  public DecisionTable table() {
    return table;
  }

  /**
   * Returns the number of the attempt in flight or last made.
   *
   * @return 0 before the first attempt, then 1 or more
   */
  public int attempts() {
    return attempt;
  }

  /**
   * Returns the decision about the final response, once the call returned one.
   *
   * @return the decision, or empty while the call runs or when it failed
   */
  public Optional<Decision> decision() {
    return Optional.ofNullable(decision);
  }

  /**
   * Returns the records of the attempts decided so far, in order.
   *
   * @return an immutable copy
   */
  public List<AttemptRecord> attemptRecords() {
    synchronized (records) {
      return List.copyOf(records);
    }
  }

  /**
   * Returns what the call did, for a response the loop returned.
   *
   * @return the result
   * @throws IllegalStateException if the call has not returned a response
   */
  public CallResult result() {
    Decision d = decision;
    if (d == null) {
      throw new IllegalStateException("the call has not returned a response");
    }
    return new CallResult(attempt, key, d, attemptRecords());
  }

  /**
   * Wraps a failure of one attempt with what the decision table needs to judge it.
   *
   * @param cause the client's exception
   * @return an {@link HttpFaultException} naming this call's method and endpoint, or {@code cause}
   *     itself if it already is one
   */
  public HttpFaultException fault(Throwable cause) {
    if (cause instanceof HttpFaultException) {
      return (HttpFaultException) cause;
    }
    return new HttpFaultException(method, endpoint, key != null, table, cause, redactor);
  }

  /**
   * Returns whether an attempt so far may have taken effect without an answer saying so ({@link
   * AttemptRecord#ambiguous()}).
   *
   * @return true if one did
   */
  public boolean mayHaveTakenEffect() {
    synchronized (records) {
      for (AttemptRecord r : records) {
        if (r.ambiguous()) {
          return true;
        }
      }
      return false;
    }
  }

  void startAttempt(int number) {
    this.attempt = number;
  }

  /** Makes the call's observers, once, right after the call is made. */
  void observe(List<CallObserver.Factory> factories) {
    if (factories.isEmpty()) {
      return;
    }
    List<CallObserver> made = new ArrayList<>(factories.size());
    for (CallObserver.Factory factory : factories) {
      try {
        CallObserver o = factory.create(this);
        if (o != null && o != CallObserver.NONE) {
          made.add(o);
        }
      } catch (RuntimeException e) {
        // An observer that cannot be made leaves the call unobserved, not failed.
      }
    }
    observers = made.isEmpty() ? null : made.toArray(new CallObserver[0]);
  }

  boolean observed() {
    return observers != null;
  }

  /** Before a physical request: collects the observers' headers for it. */
  void attemptStarted() {
    CallObserver[] all = observers;
    if (all == null) {
      return;
    }
    Map<String, String> headers = new LinkedHashMap<>(4);
    int number = attempt;
    for (CallObserver o : all) {
      try {
        o.attemptStarted(
            number,
            (name, value) ->
                headers.put(
                    Objects.requireNonNull(name, "header name cannot be null"),
                    Objects.requireNonNull(value, "header value cannot be null")));
      } catch (RuntimeException e) {
        // Observing must not change the call.
      }
    }
    attemptHeaders = headers.isEmpty() ? Map.of() : Collections.unmodifiableMap(headers);
  }

  void attemptEnded(int status, Throwable failure) {
    CallObserver[] all = observers;
    if (all == null) {
      return;
    }
    int number = attempt;
    for (CallObserver o : all) {
      try {
        o.attemptEnded(number, status, failure);
      } catch (RuntimeException e) {
        // Observing must not change the call.
      }
    }
  }

  void observeEvent(RelentEvent<?> event) {
    CallObserver[] all = observers;
    if (all == null) {
      return;
    }
    for (CallObserver o : all) {
      try {
        o.onEvent(event);
      } catch (RuntimeException e) {
        // Observing must not change the call.
      }
    }
  }

  /** The call's end, told once: a cancellation by the caller may race the call's own end. */
  void ended(int status, Throwable failure) {
    CallObserver[] all = observers;
    if (all == null) {
      return;
    }
    synchronized (this) {
      if (over) {
        return;
      }
      over = true;
    }
    for (CallObserver o : all) {
      try {
        o.callEnded(status, failure);
      } catch (RuntimeException e) {
        // Observing must not change the call.
      }
    }
  }

  void finish(Decision decision) {
    this.decision = decision;
  }

  void add(AttemptRecord record) {
    synchronized (records) {
      records.add(record);
    }
    if (listener != null) {
      try {
        listener.accept(record);
      } catch (RuntimeException e) {
        // The caller's listener must not change the call's outcome.
      }
    }
  }
}
