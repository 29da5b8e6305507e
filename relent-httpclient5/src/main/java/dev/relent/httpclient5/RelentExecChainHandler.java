package dev.relent.httpclient5;

import dev.relent.AttemptContext;
import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.http.CallOptions;
import dev.relent.http.CallResult;
import dev.relent.http.DecisionTable;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.adapter.Exchange;
import dev.relent.http.adapter.HttpAdapter;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.HttpCallLoop;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.Optional;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * Relent's HTTP behaviour as an Apache HttpClient 5 classic {@link ExecChainHandler}: every request
 * runs under one {@link RelentExecutor} shared by all requests of the client, judged by a {@link
 * DecisionTable}, waiting as the server asks, logging one redacted line per attempt. Each attempt
 * sends the request down the rest of the chain again ({@code chain.proceed}).
 *
 * <pre>{@code
 * RelentExecChainHandler relent =
 *     RelentExecChainHandler.builder()
 *         .withPolicy(RetryPolicy.builder().withMaxRetries(3).build())
 *         .build();
 * CloseableHttpClient client = relent.install(HttpClients.custom()).build();
 * }</pre>
 *
 * <p><b>Install it with {@link #install(HttpClientBuilder)}</b>: that disables HttpClient's own
 * retries (its default strategy re-sends after I/O errors, 429 and 503, and attempts would
 * multiply) and puts the handler where the retry element was, before {@link ChainElement#PROTOCOL}:
 * every redirect hop gets its own attempts, authentication challenges are answered inside one.
 *
 * <p>Contract, the same as the JDK client's and the OkHttp interceptor's: a response the table
 * accepts or stops at is returned; a write without {@code Idempotency-Key} that may have reached
 * the server is not re-sent ({@link NotRetriedWriteException}); a network fault the table does not
 * retry is an {@link HttpFaultException}; a give-up is the executor's {@link RelentException}; an
 * interrupted wait or a cancelled request is an {@link InterruptedIOException}. A key comes from
 * the request's header, from {@link CallOptions} in the context ({@link #setOptions(HttpContext,
 * CallOptions)}) or from {@link Builder#withIdempotencyKeys(boolean)}, and every attempt carries
 * it. Each attempt's response and pool timeouts are bounded by {@link
 * AttemptContext#timeoutNanos()}; a response that will be retried is read into memory (at most
 * {@link Builder#withMaxBufferedBody(int) 64 KiB}) and closed before the wait; a request whose
 * entity is not repeatable is judged by {@link DecisionTable#withoutResends()}. {@link
 * #callResult(HttpContext)} tells what a call did. In full: docs/http.md. For the async client, use
 * {@link RelentAsyncExecChainHandler}.
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentExecChainHandler extends HttpAdapter<HttpResponse>
    implements ExecChainHandler {
  /** The default limit on a retried response's body kept in memory: {@value} bytes. */
  public static final int DEFAULT_MAX_BUFFERED_BODY = HttpAdapterBuilder.DEFAULT_MAX_BUFFERED_BODY;

  /** The name of the handler in HttpClient's exec chain: {@value}. */
  public static final String NAME = "relent";

  /** The context attribute that holds a call's {@link CallOptions}: {@value}. */
  public static final String OPTIONS_ATTRIBUTE = Hc5Calls.OPTIONS_ATTRIBUTE;

  /**
   * The context attribute the handler stores the last call's {@link CallResult} under: {@value}.
   */
  public static final String RESULT_ATTRIBUTE = Hc5Calls.RESULT_ATTRIBUTE;

  private RelentExecChainHandler(HttpCallLoop<HttpResponse> loop) {
    super(loop);
  }

  /**
   * Returns a builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a handler with every setting at its default: {@link RetryPolicy#ofDefaults()}, {@link
   * DecisionTable#ofDefaults()}, no guards, the system time sources.
   *
   * @return a new handler
   */
  public static RelentExecChainHandler ofDefaults() {
    return builder().build();
  }

  /**
   * Installs this handler on a client builder and turns off HttpClient's own retries: calls {@code
   * disableAutomaticRetries()} and adds the handler before {@link ChainElement#PROTOCOL} under the
   * name {@value #NAME}.
   *
   * @param builder the client builder
   * @return the same builder
   * @throws NullPointerException if {@code builder} is null
   */
  public HttpClientBuilder install(HttpClientBuilder builder) {
    Objects.requireNonNull(builder, "builder cannot be null");
    return builder
        .disableAutomaticRetries()
        .addExecInterceptorBefore(ChainElement.PROTOCOL.name(), NAME, this);
  }

  /**
   * Stores per-call options in a context: pass the context to {@code execute}. The async handler
   * reads them from the same attribute.
   *
   * @param context the call's context, best an {@link HttpClientContext}
   * @param options the key, decision table and attempt listener for the call
   * @throws NullPointerException if an argument is null
   */
  public static void setOptions(HttpContext context, CallOptions options) {
    Objects.requireNonNull(context, "context cannot be null");
    context.setAttribute(
        OPTIONS_ATTRIBUTE, Objects.requireNonNull(options, "options cannot be null"));
  }

  /**
   * Returns what the handler (classic or async) did for the last call made with a context.
   *
   * <pre>{@code
   * HttpClientContext context = HttpClientContext.create();
   * client.execute(request, context, response -> EntityUtils.toString(response.getEntity()));
   * int attempts = RelentExecChainHandler.callResult(context).map(CallResult::attempts).orElse(1);
   * }</pre>
   *
   * @param context the context passed to {@code execute}
   * @return the result, or empty when no call through a handler that returned a response used the
   *     context
   * @throws NullPointerException if {@code context} is null
   */
  public static Optional<CallResult> callResult(HttpContext context) {
    Objects.requireNonNull(context, "context cannot be null");
    Object value = context.getAttribute(RESULT_ATTRIBUTE);
    return value instanceof CallResult ? Optional.of((CallResult) value) : Optional.empty();
  }

  /**
   * Runs one request: sets its key, makes attempts until the executor accepts a response or gives
   * up.
   *
   * @param request the request
   * @param scope the execution scope
   * @param chain the rest of the chain
   * @return the accepted response
   * @throws NotRetriedWriteException if an unkeyed write failed after it may have reached the
   *     server
   * @throws HttpFaultException if a network fault the table does not retry ended the call
   * @throws InterruptedIOException if the thread was interrupted while waiting, or the request was
   *     aborted
   * @throws HttpException as the chain throws it (a protocol violation: not retried)
   * @throws RelentException if the executor gave up; see its subclasses
   */
  @Override
  public ClassicHttpResponse execute(
      ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
      throws IOException, HttpException {
    HttpEntity entity = request.getEntity();
    HttpCall call =
        Hc5Calls.prepare(
            loop(), request, scope.clientContext, entity == null || entity.isRepeatable());
    ClassicRequestBuilder keyed = ClassicRequestBuilder.copy(request);
    if (call.key() != null && request.getFirstHeader(Idempotency.HEADER) == null) {
      keyed.setHeader(Idempotency.HEADER, call.key());
    }
    HttpResponse last =
        loop().execute(call, new ClassicExchange(call, keyed.build(), scope, chain));
    Hc5Calls.storeResult(scope.clientContext, call);
    return (ClassicHttpResponse) last;
  }

  /**
   * HttpClient's classic glue for one call: proceed with bounded timeouts, copy a body to be
   * retried, abort. Each attempt sends a fresh copy of the request, because the elements after the
   * handler add headers to the request they are given; the entity is shared, which is why it must
   * be repeatable.
   */
  private final class ClassicExchange implements Exchange<HttpResponse, HttpException> {
    private final HttpCall call;
    private final ClassicHttpRequest request;
    private final ExecChain.Scope scope;
    private final ExecChain chain;

    ClassicExchange(
        HttpCall call, ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain) {
      this.call = call;
      this.request = request;
      this.scope = scope;
      this.chain = chain;
    }

    @Override
    public HttpResponse send(long timeoutNanos) throws IOException, HttpException {
      HttpClientContext context = scope.clientContext;
      RequestConfig own = context.getRequestConfig();
      context.setRequestConfig(Hc5Calls.bounded(context, timeoutNanos));
      try {
        ClassicRequestBuilder attempt = ClassicRequestBuilder.copy(request);
        if (!call.attemptHeaders().isEmpty()) {
          call.attemptHeaders().forEach(attempt::setHeader); // the call observers' headers
        }
        ClassicHttpResponse response = chain.proceed(attempt.build(), scope);
        return new TrackedClassicResponse(response, response.getEntity(), call);
      } finally {
        context.setRequestConfig(own);
      }
    }

    @Override
    public HttpResponse buffer(HttpResponse response) throws IOException {
      // Read now and close, so that no connection is held while waiting.
      try (TrackedClassicResponse open = (TrackedClassicResponse) response) {
        return new TrackedClassicResponse(open, copy(open.getEntity()), call);
      }
    }

    @Override
    public boolean cancelled() {
      return scope.execRuntime.isExecutionAborted();
    }

    @Override
    public IOException cancellation() {
      return new InterruptedIOException("Request aborted");
    }

    /**
     * Copies at most {@code maxBufferedBody} bytes; a longer body is cut and its connection closed.
     */
    private HttpEntity copy(HttpEntity entity) throws IOException {
      if (entity == null) {
        return null;
      }
      int max = loop().maxBufferedBody();
      ByteArrayOutputStream copy = new ByteArrayOutputStream();
      boolean cut = false;
      try (InputStream in = entity.getContent()) {
        if (in != null) {
          byte[] chunk = new byte[8192];
          int n;
          while ((n = in.read(chunk, 0, Math.min(chunk.length, max + 1 - copy.size()))) > 0) {
            copy.write(chunk, 0, n);
            if (copy.size() > max) {
              cut = true;
              // Draining an unbounded rest would hold the wait hostage: drop the connection.
              scope.execRuntime.discardEndpoint();
              break;
            }
          }
        }
      }
      byte[] bytes = copy.toByteArray();
      int length = cut ? max : bytes.length;
      ContentType type =
          entity.getContentType() == null
              ? null
              : ContentType.parseLenient(entity.getContentType());
      return new ByteArrayEntity(bytes, 0, length, type, entity.getContentEncoding());
    }
  }

  /**
   * Builds a {@link RelentExecChainHandler} from the settings every adapter shares ({@link
   * HttpAdapterBuilder}). Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<HttpResponse, Builder> {
    Builder() {}

    /**
     * Builds the handler.
     *
     * @return a new handler
     */
    public RelentExecChainHandler build() {
      return new RelentExecChainHandler(buildLoop(Hc5Access.INSTANCE));
    }
  }
}
