package dev.relent.http.jdk;

import dev.relent.AttemptContext;
import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import dev.relent.http.CallOptions;
import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.RelentHttpResponse;
import dev.relent.http.ServerHints;
import dev.relent.http.adapter.Exchange;
import dev.relent.http.adapter.HttpAdapter;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.HttpCallLoop;
import dev.relent.http.adapter.HttpOutcomes;
import dev.relent.http.adapter.ResponseAccess;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

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
 *         .withExecutor(x -> x.withPacer(Pacer.of(90, Duration.ofMinutes(1))))
 *         .build();
 * RelentHttpResponse<String> response =
 *     http.send(request, BodyHandlers.ofString(), CallOptions.builder().withIdempotencyKey().build());
 * int attempts = response.attempts();
 * }</pre>
 *
 * <p><b>Outcomes.</b> A response the table accepts or stops at (a 404) is returned as it is. A
 * write without {@code Idempotency-Key} that may have reached the server is not re-sent ({@link
 * NotRetriedWriteException}); a network fault the table does not retry is an {@link
 * HttpFaultException}; a failure that is not a network fault is thrown as the JDK threw it; a
 * give-up is the executor's {@link RelentException}, or a {@link
 * dev.relent.http.UnresolvedWriteException} for a keyed write that may have taken effect. The
 * OkHttp and HttpClient 5 adapters throw the same types for the same situations.
 *
 * <p><b>Defaults.</b> Idempotency keys off ({@link Builder#withIdempotencyKeys(boolean)}); a
 * response the table would retry is buffered, at most {@link Builder#withMaxBufferedBody(int) 64
 * KiB}. Each attempt's {@code HttpRequest.timeout} is at most {@link
 * AttemptContext#timeoutNanos()}; a synchronous send runs on the calling thread.
 *
 * <p>The JDK client (17 to 25) re-sends some requests inside one attempt on its own; only the
 * JVM-wide {@code -Djdk.httpclient.redirects.retrylimit=1} stops that; this class does not set it
 * (the {@code relent} command line does, in its own JVM). Outcomes, keys, time, buffering and those
 * re-sends: docs/http.md, sections "The JDK client wrapper" and "Idempotency keys".
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentHttpClient extends HttpAdapter<HttpResponse<?>> {
  /** The default limit on a retried response's body kept in memory: {@value} bytes. */
  public static final int DEFAULT_MAX_BUFFERED_BODY = HttpAdapterBuilder.DEFAULT_MAX_BUFFERED_BODY;

  /** The JDK's message when a send would exceed {@code jdk.httpclient.redirects.retrylimit}. */
  private static final String TOO_MANY_RETRIES = "Too many retries";

  private final HttpClient client;

  private RelentHttpClient(HttpClient client, HttpCallLoop<HttpResponse<?>> loop) {
    super(loop);
    this.client = client;
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
   * Returns how {@link HttpOutcomes} reads JDK responses: the request's method, URI and {@code
   * Idempotency-Key} header from {@link HttpResponse#request()}; responses returned by a {@code
   * RelentHttpClient} also carry their call's key and decision table.
   *
   * @return the shared JDK access
   */
  public static ResponseAccess<HttpResponse<?>> responseAccess() {
    return JdkAccess.INSTANCE;
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
    return send(request, handler, CallOptions.ofDefaults());
  }

  /**
   * Sends a request with per-request options, retrying under the policy.
   *
   * @param request the request
   * @param handler the body handler for the response the caller receives
   * @param options the idempotency key, decision table and attempt listener for this request
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
    JdkCall<T> call = prepare(request, handler, options);
    try {
      return tracked(loop().execute(call.call, call));
    } catch (InterruptedIOException e) {
      if (e.getCause() instanceof RelentException) {
        // The executor restored the flag; an InterruptedException reports it instead, as the JDK's.
        Thread.interrupted();
        InterruptedException interrupted = new InterruptedException(e.getMessage());
        interrupted.initCause(e.getCause());
        throw interrupted;
      }
      throw e;
    }
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
    return sendAsync(request, handler, CallOptions.ofDefaults());
  }

  /**
   * Sends a request asynchronously with per-request options.
   *
   * @param request the request
   * @param handler the body handler
   * @param options the idempotency key, decision table and attempt listener for this request
   * @param <T> the body type
   * @return a future completing with the accepted response, or exceptionally as {@link #send}
   *     throws
   * @throws NullPointerException if an argument is null
   */
  public <T> CompletableFuture<RelentHttpResponse<T>> sendAsync(
      HttpRequest request, BodyHandler<T> handler, CallOptions options) {
    JdkCall<T> call = prepare(request, handler, options);
    CompletableFuture<HttpResponse<?>> inner = loop().executeAsync(call.call, call::sendAsync);
    CompletableFuture<RelentHttpResponse<T>> outer = inner.thenApply(RelentHttpClient::tracked);
    outer.whenComplete(
        (response, failure) -> {
          if (outer.isCancelled()) {
            inner.cancel(true);
          }
        });
    return outer;
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
   * What the client's {@code send} reported, as its {@code sendAsync} reports it: {@code send}
   * throws a new exception of a like type (an {@code IOException} for anything it does not know)
   * with the same message and the failure itself as its cause. The failure itself is what the table
   * judges and the caller sees: a bug in a body handler stays the handler's exception.
   */
  private static Throwable original(Exception thrown) {
    Throwable cause = thrown.getCause();
    boolean rethrown =
        cause != null
            && Objects.equals(cause.getMessage(), thrown.getMessage())
            && (cause instanceof IOException
                || cause instanceof RuntimeException
                || cause instanceof Error);
    return rethrown ? cause : thrown;
  }

  /**
   * The failure itself where the JDK put its "Too many retries" in front of it: with {@code
   * jdk.httpclient.redirects.retrylimit=1} each re-send the JDK would have made on its own ends the
   * exchange that way instead, with what failed (the reset, the refused connection) as the cause.
   */
  private static Throwable withoutRetryLimit(Throwable failure) {
    Throwable cause = failure.getCause();
    return failure instanceof IOException
            && TOO_MANY_RETRIES.equals(failure.getMessage())
            && cause instanceof IOException
        ? cause
        : failure;
  }

  @SuppressWarnings("unchecked")
  private static <T> RelentHttpResponse<T> tracked(HttpResponse<?> response) {
    return (TrackedResponse<T>) response;
  }

  private <T> JdkCall<T> prepare(HttpRequest request, BodyHandler<T> handler, CallOptions options) {
    Objects.requireNonNull(request, "request cannot be null");
    Objects.requireNonNull(handler, "handler cannot be null");
    Objects.requireNonNull(options, "options cannot be null");
    String existing = request.headers().firstValue(Idempotency.HEADER).orElse(null);
    HttpCall call =
        loop()
            .prepare(
                request.method(),
                String.valueOf(request.uri()),
                existing,
                options,
                true,
                HeaderLookup.of(request.headers()));
    HttpRequest keyed =
        call.key() == null || existing != null
            ? request
            : HttpRequest.newBuilder(request, (name, value) -> true)
                .setHeader(Idempotency.HEADER, call.key())
                .build();
    return new JdkCall<>(keyed, call, handler);
  }

  /**
   * The JDK glue of one call: the keyed request, a body handler that buffers the bodies of
   * responses that will be retried or held back, and one send with a time limit.
   */
  private final class JdkCall<T> implements Exchange<HttpResponse<?>, InterruptedException> {
    final HttpRequest request;
    final HttpCall call;
    final BodyHandler<T> handler;

    JdkCall(HttpRequest request, HttpCall call, BodyHandler<T> own) {
      this.request = request;
      this.call = call;
      this.handler =
          info -> {
            HttpResponse.BodySubscriber<T> subscriber = own.apply(info);
            return loop().needsBuffer(call, info.statusCode(), HeaderLookup.of(info.headers()))
                ? new BufferedSubscriber<>(subscriber, loop().maxBufferedBody())
                : subscriber;
          };
    }

    @Override
    public HttpResponse<?> send(long timeoutNanos) throws IOException, InterruptedException {
      int attempt = call.attempts();
      // Sent on this thread: the JDK's sendAsync would hand the response to CompletableFuture's
      // default executor, a new thread per response on fewer than three cores. The request's
      // timeout bounds the headers; the attempt's limit bounds the body too.
      AttemptLimit limit = AttemptLimit.start(timeoutNanos);
      try {
        return new TrackedResponse<>(
            client.send(forAttempt(timeoutNanos), limit.bound(handler)), call, attempt);
      } catch (IOException | RuntimeException e) {
        Throwable failure = withoutRetryLimit(original(e));
        if (failure instanceof IOException) {
          throw (IOException) failure;
        }
        if (failure instanceof RuntimeException) {
          throw (RuntimeException) failure;
        }
        throw (Error) failure;
      } finally {
        limit.finish();
      }
    }

    CompletableFuture<HttpResponse<?>> sendAsync(long timeoutNanos) {
      int attempt = call.attempts();
      return client
          .sendAsync(forAttempt(timeoutNanos), handler)
          .<HttpResponse<?>>thenApply(response -> new TrackedResponse<>(response, call, attempt))
          .exceptionallyCompose(
              failure -> {
                Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
                return CompletableFuture.failedFuture(withoutRetryLimit(cause));
              });
    }

    /**
     * The request for one attempt: the caller's timeout, if shorter, else the attempt's; and the
     * headers the call's observers set for this attempt.
     */
    private HttpRequest forAttempt(long timeoutNanos) {
      Duration limit = Duration.ofNanos(Math.max(1_000_000L, timeoutNanos));
      Duration own = request.timeout().orElse(null);
      Map<String, String> extra = call.attemptHeaders();
      boolean ownLimit = own != null && own.compareTo(limit) <= 0;
      if (ownLimit && extra.isEmpty()) {
        return request;
      }
      HttpRequest.Builder b = HttpRequest.newBuilder(request, (name, value) -> true);
      if (!ownLimit) {
        b.timeout(limit);
      }
      extra.forEach(b::setHeader);
      return b.build();
    }
  }

  /**
   * Builds a {@link RelentHttpClient} from the settings every adapter shares ({@link
   * HttpAdapterBuilder}). Mutable and not thread-safe.
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
      return new RelentHttpClient(client, buildLoop(JdkAccess.INSTANCE));
    }
  }
}
