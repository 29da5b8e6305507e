package dev.relent.http.adapter;

import dev.relent.AttemptContext;
import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import dev.relent.RelentListener;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Scope;
import dev.relent.http.CallOptions;
import dev.relent.http.Decision;
import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.HttpFaultException;
import dev.relent.http.HttpScopes;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.UnresolvedWriteException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one HTTP attempt loop every adapter runs its calls through: it chooses the call's key and
 * table ({@link #prepare}), runs the executor with a per-call listener that records each attempt
 * and writes its log line, buffers what will be retried, and translates the outcome the same way
 * for every client. An adapter supplies only its client's glue ({@link Exchange}, {@link
 * AsyncExchange}).
 *
 * <p><b>Outcomes, the same through every adapter.</b> A response the table accepts or stops at (a
 * 404) is returned. A write that may have reached the server and must not be re-sent: {@link
 * NotRetriedWriteException}. A network fault the table does not retry: the {@link
 * HttpFaultException} around the client's exception. A failure that is not a network fault (an
 * {@code IllegalArgumentException} for a bad port, a bug): passed through unchanged, never retried.
 * When the executor gives up (retries used, deadline, server wait too long, quota, open breaker,
 * spent budget): its {@link RelentException}, unchecked, whose message names the last outcome with
 * the method and redacted endpoint; for a non-idempotent call (POST, PATCH) with an {@code
 * Idempotency-Key} of which an attempt may have taken effect ({@link
 * dev.relent.http.AttemptRecord#ambiguous()}), the {@link UnresolvedWriteException} that restates
 * it with the key. An interrupted wait: {@link InterruptedIOException} with the interrupt flag set
 * and the executor's exception as cause.
 *
 * <p>Built by {@link HttpAdapterBuilder#buildLoop}. Immutable and thread-safe.
 *
 * @param <R> the client's response type
 */
public final class HttpCallLoop<R> {
  private final HttpOutcomes<R> outcomes;
  private final RelentExecutor<R> executor;
  private final boolean keyWrites;
  private final int maxBufferedBody;
  private final HttpAttemptLogger log;
  private final HttpScopes scopes;
  private final GuardRegistry registry;
  private final List<CallObserver.Factory> observers;

  HttpCallLoop(
      HttpOutcomes<R> outcomes,
      RelentExecutor<R> executor,
      boolean keyWrites,
      int maxBufferedBody,
      HttpAttemptLogger log,
      HttpScopes scopes,
      GuardRegistry registry,
      List<CallObserver.Factory> observers) {
    this.outcomes = outcomes;
    this.observers = observers;
    this.executor = executor;
    this.keyWrites = keyWrites;
    this.maxBufferedBody = maxBufferedBody;
    this.log = log;
    this.scopes = scopes;
    this.registry = registry;
  }

  /**
   * Returns the registry of the scopes' guards and pauses.
   *
   * @return the registry, empty unless the adapter was built {@code withScopes}
   */
  public Optional<GuardRegistry> registry() {
    return Optional.ofNullable(registry);
  }

  /**
   * Returns the HTTP semantics: table, hint reader, redactor, response access.
   *
   * @return the outcomes
   */
  public HttpOutcomes<R> outcomes() {
    return outcomes;
  }

  /**
   * Returns the executor every call runs under.
   *
   * @return the executor
   */
  public RelentExecutor<R> executor() {
    return executor;
  }

  /**
   * Returns how much of a retried response's body an adapter keeps in memory.
   *
   * @return bytes, 0 or more
   */
  public int maxBufferedBody() {
    return maxBufferedBody;
  }

  /**
   * Starts a call: resolves its {@code Idempotency-Key} once ({@link CallOptions#keyFor}) and its
   * decision table. The adapter sets the key header on its request when the request had none.
   *
   * @param method the request method
   * @param uri the request URI as a string, unredacted
   * @param existingKey the request's own {@code Idempotency-Key} header, or null
   * @param options the call's options
   * @param resendable false when the request body can be sent only once (one-shot, duplex, not
   *     repeatable): the call is then judged by {@link DecisionTable#withoutResends()}
   * @return the call
   * @throws NullPointerException if {@code method}, {@code uri} or {@code options} is null
   */
  public HttpCall prepare(
      String method, String uri, String existingKey, CallOptions options, boolean resendable) {
    return prepare(method, uri, existingKey, options, resendable, HeaderLookup.NONE);
  }

  /**
   * Starts a call as {@link #prepare(String, String, String, CallOptions, boolean)} does, with the
   * request's headers, from which the call's scopes are derived (an API key header); only a short
   * hash of a key's value is kept.
   *
   * @param method the request method
   * @param uri the request URI as a string, unredacted
   * @param existingKey the request's own {@code Idempotency-Key} header, or null
   * @param options the call's options
   * @param resendable false when the request body can be sent only once
   * @param requestHeaders the request's headers
   * @return the call
   * @throws NullPointerException if {@code method}, {@code uri}, {@code options} or {@code
   *     requestHeaders} is null
   */
  public HttpCall prepare(
      String method,
      String uri,
      String existingKey,
      CallOptions options,
      boolean resendable,
      HeaderLookup requestHeaders) {
    Objects.requireNonNull(method, "method cannot be null");
    Objects.requireNonNull(requestHeaders, "requestHeaders cannot be null");
    Objects.requireNonNull(uri, "uri cannot be null");
    Objects.requireNonNull(options, "options cannot be null");
    String key = options.keyFor(method, existingKey, keyWrites);
    DecisionTable table = options.decisionTable().orElse(null);
    if (!resendable) {
      table = (table != null ? table : outcomes.table()).withoutResends();
    }
    HttpCall call =
        new HttpCall(
            method,
            uri,
            outcomes.redactor().uri(uri),
            key,
            table,
            outcomes.redactor(),
            options.attemptListener().orElse(null),
            scopes == null ? List.of() : scopesOf(method, uri, requestHeaders));
    call.observe(observers);
    return call;
  }

  private List<Scope> scopesOf(String method, String uri, HeaderLookup headers) {
    URI parsed;
    try {
      parsed = URI.create(uri);
    } catch (IllegalArgumentException e) {
      // The client will refuse it; meanwhile it belongs to no host we know.
      parsed = URI.create("http://unknown-host/");
    }
    return scopes.scopesOf(method, parsed, headers);
  }

  /**
   * Returns whether a response with this status and these headers will be retried or held back, so
   * that its body must be read into memory before the executor waits.
   *
   * @param call the call
   * @param status the status code
   * @param headers the response headers
   * @return true to buffer
   */
  public boolean needsBuffer(HttpCall call, int status, HeaderLookup headers) {
    DecisionTable table = call.table() != null ? call.table() : outcomes.table();
    Decision d = table.decide(call.method(), call.key() != null, status, headers);
    return d.isRetry() || d.notResent();
  }

  /**
   * Runs a call synchronously.
   *
   * @param call the call from {@link #prepare}
   * @param exchange the client's glue for this call
   * @param <X> the client's own checked exception
   * @return the accepted response
   * @throws NotRetriedWriteException if a write that may have reached the server was held back
   * @throws HttpFaultException if a network fault the table does not retry ended the call
   * @throws InterruptedIOException if the thread was interrupted while waiting
   * @throws IOException the exchange's {@link Exchange#cancellation()} if the call was cancelled
   * @throws X a non-network failure the client reported checked
   * @throws UnresolvedWriteException if the executor gave up on a keyed call after an attempt that
   *     may have taken effect
   * @throws RelentException if the executor gave up otherwise
   */
  public <X extends Exception> R execute(HttpCall call, Exchange<R, X> exchange)
      throws IOException, X {
    if (!call.observed()) {
      return run(call, exchange);
    }
    R response;
    try {
      response = run(call, exchange);
    } catch (Throwable t) {
      call.ended(-1, t);
      throw t;
    }
    call.ended(outcomes.access().status(response), null);
    return response;
  }

  private <X extends Exception> R run(HttpCall call, Exchange<R, X> exchange)
      throws IOException, X {
    R last;
    try {
      last =
          executor.get(
              call.scopes(), (AttemptContext ctx) -> attempt(call, exchange, ctx), listener(call));
    } catch (Cancelled e) {
      throw exchange.cancellation();
    } catch (RelentException e) {
      throw this.<X>rethrow(translate(call, e));
    }
    return finish(call, last);
  }

  /**
   * Runs a call asynchronously. No thread is blocked while waiting between attempts; cancelling the
   * returned future cancels the attempt in flight and stops the call.
   *
   * @param call the call from {@link #prepare}
   * @param exchange the client's glue for this call
   * @return a future completing with the accepted response, or exceptionally as {@link #execute}
   *     throws
   */
  public CompletableFuture<R> executeAsync(HttpCall call, AsyncExchange<R> exchange) {
    CompletableFuture<R> inner =
        executor.getAsync(
            call.scopes(),
            ctx -> {
              call.startAttempt(ctx.attempt());
              AttemptFuture<R> future = new AttemptFuture<>(call, outcomes.access());
              call.attemptStarted();
              CompletableFuture<? extends R> sent;
              try {
                sent = exchange.send(ctx.timeoutNanos());
              } catch (RuntimeException e) {
                future.completeExceptionally(e);
                return future;
              }
              future.sent = sent;
              sent.whenComplete(
                  (response, failure) -> {
                    if (failure != null) {
                      future.completeExceptionally(failure);
                    } else {
                      future.complete(response);
                    }
                  });
              return future;
            },
            listener(call));
    CompletableFuture<R> outer = new CompletableFuture<>();
    inner.whenComplete(
        (response, failure) -> {
          // The observers hear the end before the caller does, so that a span is over by then.
          if (failure == null) {
            R last = finish(call, response);
            call.ended(outcomes.access().status(last), null);
            outer.complete(last);
            return;
          }
          Throwable cause = unwrap(failure);
          Throwable thrown =
              cause instanceof RelentException ? translate(call, (RelentException) cause) : cause;
          call.ended(-1, thrown);
          outer.completeExceptionally(thrown);
        });
    outer.whenComplete(
        (response, failure) -> {
          if (outer.isCancelled()) {
            call.ended(-1, unwrap(failure));
            inner.cancel(true);
          }
        });
    return outer;
  }

  private RelentListener<R> listener(HttpCall call) {
    return new AttemptRecorder<>(outcomes, log, call, registry);
  }

  private <X extends Exception> R attempt(
      HttpCall call, Exchange<R, X> exchange, AttemptContext ctx) throws Exception {
    call.startAttempt(ctx.attempt());
    if (exchange.cancelled()) {
      throw new Cancelled();
    }
    if (!call.observed()) {
      return sendOnce(call, exchange, ctx);
    }
    call.attemptStarted();
    R response;
    try {
      response = sendOnce(call, exchange, ctx);
    } catch (Throwable t) {
      call.attemptEnded(-1, t);
      throw t;
    }
    call.attemptEnded(outcomes.access().status(response), null);
    return response;
  }

  /** One physical request: send, and buffer what will be retried or held back. */
  private <X extends Exception> R sendOnce(
      HttpCall call, Exchange<R, X> exchange, AttemptContext ctx) throws Exception {
    R response;
    try {
      response = exchange.send(ctx.timeoutNanos());
    } catch (IOException e) {
      throw fault(call, exchange, e);
    }
    ResponseAccess<R> access = outcomes.access();
    if (!needsBuffer(call, access.status(response), access.headers(response))) {
      return response;
    }
    try {
      return exchange.buffer(response);
    } catch (IOException e) {
      throw fault(call, exchange, e);
    }
  }

  private static HttpFaultException fault(HttpCall call, Exchange<?, ?> exchange, IOException e) {
    if (exchange.cancelled()) {
      throw new Cancelled();
    }
    return call.fault(e);
  }

  /**
   * Notes the decision on the response the executor returned. A held-back write never gets here:
   * its verdict rejects the response ({@link dev.relent.Verdict#reject}), so the executor gives up
   * and {@link #translate} makes the exception, and the call has one outcome for every observer.
   */
  private R finish(HttpCall call, R response) {
    call.finish(outcomes.decide(response, null));
    return response;
  }

  /**
   * What a give-up becomes for the caller: an interrupted wait, a held-back write, a network fault
   * the table does not retry, the client's own checked failure, an unresolved keyed write, or the
   * executor's exception.
   */
  private Throwable translate(HttpCall call, RelentException e) {
    if (e.reason() == RelentException.Reason.INTERRUPTED) {
      InterruptedIOException interrupted = new InterruptedIOException(e.getMessage());
      interrupted.initCause(e);
      return interrupted;
    }
    Throwable cause = e.getCause();
    if (e.reason() == RelentException.Reason.NOT_RETRYABLE && cause != null) {
      NotRetriedWriteException held =
          outcomes.notRetried(null, cause, e.attempts(), call.attemptRecords());
      if (held != null) {
        return held;
      }
      HttpFaultException fault = HttpOutcomes.findFault(cause);
      return fault != null ? fault : cause;
    }
    if (e.reason() == RelentException.Reason.NOT_RETRYABLE && e.lastResult().isPresent()) {
      // A response the table rejects: a write held back after an answer.
      NotRetriedWriteException held =
          outcomes.notRetried(response(e), null, e.attempts(), call.attemptRecords());
      if (held != null) {
        return held;
      }
    }
    if (call.key() != null
        && !Idempotency.isIdempotent(call.method())
        && call.mayHaveTakenEffect()) {
      return new UnresolvedWriteException(
          e, call.method(), call.endpoint(), call.key(), call.attemptRecords());
    }
    return e;
  }

  /** The response a give-up carries: the executor ran this loop's attempts, so it is an R. */
  @SuppressWarnings("unchecked")
  private R response(RelentException e) {
    return (R) e.lastResult().orElseThrow();
  }

  /** Throws what {@link #translate} chose; only IOException, X or unchecked ones reach here. */
  @SuppressWarnings("unchecked")
  private <X extends Exception> X rethrow(Throwable t) throws X {
    if (t instanceof RuntimeException) {
      throw (RuntimeException) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
    throw (X) t;
  }

  /**
   * Returns an attempt's time limit in whole milliseconds, for clients whose timeouts take them:
   * rounded up, so that a limit is never shortened, and at least 1, since 0 means "no timeout" to
   * most clients.
   *
   * @param timeoutNanos the attempt's limit ({@link AttemptContext#timeoutNanos()})
   * @return milliseconds, 1 or more
   */
  public static long limitMillis(long timeoutNanos) {
    long millis = timeoutNanos / 1_000_000L + (timeoutNanos % 1_000_000L == 0 ? 0 : 1);
    return Math.max(1L, millis);
  }

  /**
   * Returns a client timeout bounded by an attempt's limit: the client's own if it is set and
   * shorter, else the limit.
   *
   * @param ownMillis the client's own timeout; 0 or less means none
   * @param limitMillis the attempt's limit ({@link #limitMillis})
   * @return the timeout to use, in milliseconds
   */
  public static long within(long ownMillis, long limitMillis) {
    return ownMillis <= 0 ? limitMillis : Math.min(ownMillis, limitMillis);
  }

  static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  /**
   * Thrown through the executor when the call was cancelled: not a network fault, never retried.
   */
  private static final class Cancelled extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Cancelled() {
      super("Canceled", null, false, false);
    }
  }

  /**
   * The stage handed to the executor for one asynchronous attempt. The executor fails it with a
   * bare {@link TimeoutException} when the attempt's time is up, and cancels it when the caller
   * cancels; both are passed to the exchange. A network failure is wrapped in an {@link
   * HttpFaultException}, so that the table knows which request it belonged to; a failure that is
   * not one (unchecked) passes as it is.
   */
  private static final class AttemptFuture<R> extends CompletableFuture<R> {
    private final HttpCall call;
    private final ResponseAccess<R> access;
    private final AtomicBoolean ended;
    volatile CompletableFuture<?> sent;

    AttemptFuture(HttpCall call, ResponseAccess<R> access) {
      this.call = call;
      this.access = access;
      this.ended = call.observed() ? new AtomicBoolean() : null;
    }

    /** Tells the observers, once, before the executor can see the outcome and start the next. */
    private void end(R response, Throwable failure) {
      if (ended != null && !isDone() && ended.compareAndSet(false, true)) {
        call.attemptEnded(failure == null ? access.status(response) : -1, failure);
      }
    }

    @Override
    public boolean complete(R response) {
      end(response, null);
      return super.complete(response);
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
      Throwable cause = unwrap(failure);
      if (cause instanceof CancellationException
          || cause instanceof RuntimeException
          || cause instanceof Error) {
        end(null, cause);
        return super.completeExceptionally(cause);
      }
      HttpFaultException fault = call.fault(cause);
      end(null, fault);
      // Fail first, then cancel the exchange: its cancellation must not become the outcome.
      boolean failed = super.completeExceptionally(fault);
      if (cause instanceof TimeoutException && sent != null) {
        sent.cancel(true);
      }
      return failed;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      CompletableFuture<?> exchange = sent;
      if (exchange != null) {
        exchange.cancel(mayInterruptIfRunning);
      }
      end(null, new CancellationException("the call was cancelled"));
      return super.cancel(mayInterruptIfRunning);
    }
  }
}
