package dev.relent.http;

import dev.relent.AttemptContext;
import dev.relent.RelentCounters;
import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpTimeoutException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link HttpClient} that retries what should be retried and never what must not be: {@code send}
 * and {@code sendAsync} with the JDK client's shape, run under one {@link RelentExecutor} shared by
 * every call, judged by a {@link DecisionTable}, waiting as the server asks ({@link ServerHints}),
 * logging one redacted line per attempt.
 *
 * <pre>{@code
 * RelentHttpClient http =
 *     RelentHttpClient.builder(HttpClient.newHttpClient())
 *         .withPolicy(RetryPolicy.builder().withMaxRetries(3).build())
 *         .withPacer(Pacer.of(90, Duration.ofMinutes(1)))
 *         .build();
 * RelentHttpResponse<String> response =
 *     http.send(request, BodyHandlers.ofString(), CallOptions.builder().withIdempotencyKey().build());
 * int attempts = response.attempts();
 * }</pre>
 *
 * <p><b>Outcomes.</b> A response the table accepts or stops at (a 404) is returned as it is, like
 * the JDK client does. A write without {@code Idempotency-Key} that may have reached the server is
 * not re-sent: {@link NotRetriedWriteException}. A network fault the table does not retry (unknown
 * host, TLS) is thrown as an {@link HttpFaultException} whose cause is the JDK's exception. When
 * the executor gives up (retries used, deadline, server wait too long, quota, open breaker, spent
 * budget) its {@link RelentException} is thrown as it is; its {@code lastResult()} is the last
 * response, its cause the last {@link HttpFaultException}.
 *
 * <p><b>Idempotency keys.</b> A request that already has an {@code Idempotency-Key} header keeps
 * it; {@link CallOptions} can give one ({@code withIdempotencyKey()}: a new random UUID); {@link
 * Builder#withIdempotencyKeys(boolean)} gives every POST and PATCH one. The key is set once, before
 * the first send, and every retry carries the same one. Keys are off by default: a key only makes a
 * retry safe if the server deduplicates by it.
 *
 * <p><b>Resources and time.</b> Each attempt's request gets {@code HttpRequest.timeout} = the
 * smaller of its own timeout and {@link AttemptContext#timeoutNanos()} (the attempt timeout or what
 * is left of the deadline). The JDK applies that timeout to the response headers only, so a
 * synchronous send also bounds the whole exchange, body included, by the same time, and an
 * asynchronous one is bounded by the executor. A response the table would retry has its body read
 * into memory (at most {@link Builder#withMaxBufferedBody(int) 64 KiB}; more is cut and the
 * connection closed) before the executor decides, then replayed into the caller's body handler, so
 * no connection is held while waiting. Other responses are handed over as the caller's body handler
 * reads them. Request bodies must be re-readable ({@code BodyPublishers.ofString}, {@code
 * ofByteArray}, {@code ofFile} and {@code ofInputStream} with a supplier all are).
 *
 * <p><b>The JDK client's own retries.</b> The JDK client retries once, inside one of our attempts,
 * when a connection could not be opened ({@code ConnectException}: nothing was sent) unless the
 * system property {@code jdk.httpclient.disableRetryConnect=true} is set, and when a pooled
 * connection turned out to be closed, for GET and HEAD only unless {@code
 * jdk.httpclient.enableAllMethodRetry=true} is set (leave that off: it re-sends writes). Both are
 * JVM-wide properties read once; Relent does not set them. The attempts Relent reports count sends
 * to the JDK client; set {@code -Djdk.httpclient.disableRetryConnect=true} to make each of them a
 * single connection attempt.
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentHttpClient {
  /** The default limit on a retried response's body kept in memory: {@value} bytes. */
  public static final int DEFAULT_MAX_BUFFERED_BODY = HttpAdapterBuilder.DEFAULT_MAX_BUFFERED_BODY;

  private final HttpClient client;
  private final HttpOutcomes<HttpResponse<?>> outcomes;
  private final RelentExecutor<HttpResponse<?>> executor;
  private final boolean keyWrites;
  private final int maxBufferedBody;

  private RelentHttpClient(
      HttpClient client,
      boolean keyWrites,
      int maxBufferedBody,
      HttpOutcomes<HttpResponse<?>> outcomes,
      RelentExecutor<HttpResponse<?>> executor) {
    this.client = client;
    this.keyWrites = keyWrites;
    this.maxBufferedBody = maxBufferedBody;
    this.outcomes = outcomes;
    this.executor = executor;
  }

  /**
   * Returns a builder around a JDK client.
   *
   * @param client the client that sends every attempt
   * @return a new builder with every other setting at its default
   * @throws NullPointerException if {@code client} is null
   */
  public static Builder builder(HttpClient client) {
    return new Builder(client);
  }

  /**
   * Sends a request, retrying under the policy, with the client's default options.
   *
   * @param request the request
   * @param handler the body handler for the response the caller receives
   * @param <T> the body type
   * @return the accepted response with its attempt count
   * @throws NotRetriedWriteException if an unkeyed write failed after it may have reached the
   *     server
   * @throws HttpFaultException if a network fault the table does not retry ended the call
   * @throws IOException never otherwise; declared as {@link HttpClient#send} declares it
   * @throws InterruptedException if the calling thread was interrupted
   * @throws RelentException if the executor gave up; see its subclasses
   */
  public <T> RelentHttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return send(request, handler, CallOptions.defaults());
  }

  /**
   * Sends a request with per-request options, retrying under the policy.
   *
   * @param request the request
   * @param handler the body handler for the response the caller receives
   * @param options the idempotency key and decision table for this request
   * @param <T> the body type
   * @return the accepted response with its attempt count
   * @throws NullPointerException if an argument is null
   * @throws NotRetriedWriteException if an unkeyed write failed after it may have reached the
   *     server
   * @throws HttpFaultException if a network fault the table does not retry ended the call
   * @throws IOException never otherwise; declared as {@link HttpClient#send} declares it
   * @throws InterruptedException if the calling thread was interrupted
   * @throws RelentException if the executor gave up; see its subclasses
   */
  public <T> RelentHttpResponse<T> send(
      HttpRequest request, BodyHandler<T> handler, CallOptions options)
      throws IOException, InterruptedException {
    Call call = prepare(request, handler, options);
    BodyHandler<T> guarded = guard(call, handler);
    HttpResponse<?> last;
    try {
      last = executor.get((AttemptContext ctx) -> attempt(call, guarded, ctx));
    } catch (RelentException e) {
      if (e.reason() == RelentException.Reason.INTERRUPTED) {
        // The executor restored the flag; an InterruptedException reports it instead, as the JDK's.
        Thread.interrupted();
        InterruptedException interrupted = new InterruptedException(e.getMessage());
        interrupted.initCause(e);
        throw interrupted;
      }
      Exception translated = translate(e);
      if (translated instanceof IOException) {
        throw (IOException) translated;
      }
      throw (RuntimeException) translated;
    }
    return finish(last);
  }

  /**
   * Sends a request asynchronously with the client's default options. No thread is blocked while
   * waiting between attempts; cancelling the returned future stops the operation and frees every
   * permit it held.
   *
   * @param request the request
   * @param handler the body handler
   * @param <T> the body type
   * @return a future completing with the accepted response, or exceptionally as {@link #send}
   *     throws
   */
  public <T> CompletableFuture<RelentHttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler) {
    return sendAsync(request, handler, CallOptions.defaults());
  }

  /**
   * Sends a request asynchronously with per-request options.
   *
   * @param request the request
   * @param handler the body handler
   * @param options the idempotency key and decision table for this request
   * @param <T> the body type
   * @return a future completing with the accepted response, or exceptionally as {@link #send}
   *     throws
   * @throws NullPointerException if an argument is null
   */
  public <T> CompletableFuture<RelentHttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler, CallOptions options) {
    Call call = prepare(request, handler, options);
    BodyHandler<T> guarded = guard(call, handler);
    CompletableFuture<HttpResponse<?>> inner =
        executor.getAsync(
            ctx -> {
              AttemptFuture future = new AttemptFuture(call, outcomes.redactor());
              CompletableFuture<HttpResponse<T>> sent =
                  client.sendAsync(call.forAttempt(ctx.timeoutNanos()), guarded);
              future.sent = sent;
              int attempt = ctx.attempt();
              sent.whenComplete(
                  (response, failure) -> {
                    if (failure != null) {
                      future.completeExceptionally(failure);
                    } else {
                      future.complete(new TrackedResponse<>(response, call, attempt));
                    }
                  });
              return future;
            });
    CompletableFuture<RelentHttpResponse<T>> outer = new CompletableFuture<>();
    inner.whenComplete(
        (response, failure) -> {
          if (failure == null) {
            try {
              outer.complete(finish(response));
            } catch (NotRetriedWriteException e) {
              outer.completeExceptionally(e);
            }
            return;
          }
          Throwable cause = unwrap(failure);
          outer.completeExceptionally(
              cause instanceof RelentException ? translate((RelentException) cause) : cause);
        });
    outer.whenComplete(
        (response, failure) -> {
          if (outer.isCancelled()) {
            inner.cancel(true);
          }
        });
    return outer;
  }

  /**
   * Returns the executor every call runs under, shared by all calls of this client.
   *
   * @return the executor
   */
  public RelentExecutor<HttpResponse<?>> executor() {
    return executor;
  }

  /**
   * Returns the HTTP semantics this client uses: its table, hint reader and redactor.
   *
   * @return the outcomes
   */
  public HttpOutcomes<HttpResponse<?>> outcomes() {
    return outcomes;
  }

  /**
   * Returns the JDK client that sends every attempt.
   *
   * @return the client
   */
  public HttpClient client() {
    return client;
  }

  /**
   * Returns a snapshot of the counters: first attempts, retries, successes, final failures.
   *
   * @return a new snapshot
   */
  public RelentCounters counters() {
    return executor.counters();
  }

  private <T> Call prepare(HttpRequest request, BodyHandler<T> handler, CallOptions options) {
    Objects.requireNonNull(request, "request cannot be null");
    Objects.requireNonNull(handler, "handler cannot be null");
    Objects.requireNonNull(options, "options cannot be null");
    String existing = request.headers().firstValue(Idempotency.HEADER).orElse(null);
    String key = options.keyFor(request.method(), existing, keyWrites);
    HttpRequest keyed =
        key == null || existing != null
            ? request
            : HttpRequest.newBuilder(request, (name, value) -> true)
                .setHeader(Idempotency.HEADER, key)
                .build();
    return new Call(keyed, key, options.table, outcomes.redactor());
  }

  /** Buffers the bodies of responses that will probably be retried or held back. */
  private <T> BodyHandler<T> guard(Call call, BodyHandler<T> handler) {
    DecisionTable table = call.table != null ? call.table : outcomes.table();
    return info -> {
      Decision d =
          table.decide(
              call.method, call.key != null, info.statusCode(), HeaderLookup.of(info.headers()));
      HttpResponse.BodySubscriber<T> own = handler.apply(info);
      return d.isRetry() || d.notResent() ? new BufferedSubscriber<>(own, maxBufferedBody) : own;
    };
  }

  private <T> HttpResponse<?> attempt(Call call, BodyHandler<T> handler, AttemptContext ctx)
      throws Exception {
    long timeout = ctx.timeoutNanos();
    CompletableFuture<HttpResponse<T>> sent = client.sendAsync(call.forAttempt(timeout), handler);
    try {
      // The JDK's request timeout covers the headers only; this bounds the body too.
      return new TrackedResponse<>(sent.get(timeout, TimeUnit.NANOSECONDS), call, ctx.attempt());
    } catch (ExecutionException e) {
      throw new HttpFaultException(
          call.method, call.endpoint, call.key != null, call.table, unwrap(e), outcomes.redactor());
    } catch (TimeoutException e) {
      sent.cancel(true);
      HttpTimeoutException timedOut =
          new HttpTimeoutException(
              "no complete response within " + HttpAttemptLogger.seconds(timeout));
      throw new HttpFaultException(
          call.method, call.endpoint, call.key != null, call.table, timedOut, outcomes.redactor());
    } catch (InterruptedException e) {
      sent.cancel(true);
      throw e;
    }
  }

  @SuppressWarnings("unchecked")
  private <T> RelentHttpResponse<T> finish(HttpResponse<?> response)
      throws NotRetriedWriteException {
    TrackedResponse<T> tracked = (TrackedResponse<T>) response;
    Decision decision = outcomes.decide(tracked, null);
    tracked.decision = decision;
    if (decision.notResent()) {
      throw outcomes.notRetried(tracked, null, tracked.attempt);
    }
    return tracked;
  }

  /**
   * What a give-up becomes for the caller: a held-back write, a network fault the table does not
   * retry, or the executor's own exception.
   */
  private Exception translate(RelentException e) {
    if (e.reason() == RelentException.Reason.NOT_RETRYABLE && e.getCause() != null) {
      NotRetriedWriteException held = outcomes.notRetried(null, e.getCause(), e.attempts());
      if (held != null) {
        return held;
      }
      HttpFaultException fault = HttpOutcomes.findFault(e.getCause());
      if (fault != null) {
        return fault;
      }
    }
    return e;
  }

  private static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  /**
   * The stage handed to the executor for one asynchronous attempt. The executor fails it with a
   * bare {@link TimeoutException} when the attempt's time is up, and cancels it when the caller
   * cancels; both are passed to the JDK exchange, and every failure is wrapped in an {@link
   * HttpFaultException} so that the table knows which request it belonged to.
   */
  private static final class AttemptFuture extends CompletableFuture<HttpResponse<?>> {
    private final Call call;
    private final Redactor redactor;
    volatile CompletableFuture<?> sent;

    AttemptFuture(Call call, Redactor redactor) {
      this.call = call;
      this.redactor = redactor;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
      Throwable cause = unwrap(failure);
      if (cause instanceof CancellationException) {
        return super.completeExceptionally(cause);
      }
      if (cause instanceof TimeoutException && sent != null) {
        sent.cancel(true);
      }
      return super.completeExceptionally(
          cause instanceof HttpFaultException
              ? cause
              : new HttpFaultException(
                  call.method, call.endpoint, call.key != null, call.table, cause, redactor));
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      CompletableFuture<?> exchange = sent;
      if (exchange != null) {
        exchange.cancel(mayInterruptIfRunning);
      }
      return super.cancel(mayInterruptIfRunning);
    }
  }

  /**
   * Builds a {@link RelentHttpClient}: the settings every adapter shares ({@link
   * HttpAdapterBuilder}), plus the scheduler of asynchronous sends. Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<HttpResponse<?>, Builder> {
    private final HttpClient client;

    Builder(HttpClient client) {
      this.client = Objects.requireNonNull(client, "client cannot be null");
    }

    /**
     * Builds the client.
     *
     * @return a new client
     */
    public RelentHttpClient build() {
      HttpOutcomes<HttpResponse<?>> outcomes = buildOutcomes(ResponseAccess.jdk());
      return new RelentHttpClient(
          client, keyWrites(), maxBufferedBody(), outcomes, buildExecutor(outcomes));
    }
  }
}
