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
 * <p><b>Install it with {@link #install(HttpClientBuilder)}.</b> That calls {@code
 * disableAutomaticRetries()} — HttpClient's default {@code DefaultHttpRequestRetryStrategy}
 * re-sends idempotent requests after I/O errors and after 429 and 503, sleeping on its own, and
 * attempts would multiply across the two layers — and puts the handler where the retry element was:
 * before {@link ChainElement#PROTOCOL}, after redirects and content decompression. So every
 * redirect hop gets its own attempts, and authentication challenges are answered inside one
 * attempt.
 *
 * <p><b>Outcomes</b>, the same types as the JDK client's and the OkHttp interceptor's. A response
 * the table accepts or stops at (a 404) is returned as it is. A write without {@code
 * Idempotency-Key} that may have reached the server is not re-sent: {@link
 * NotRetriedWriteException}. A network fault the table does not retry is thrown as an {@link
 * HttpFaultException} whose cause is HttpClient's exception; a failure that is not a network fault
 * ({@code HttpException}, an unchecked exception) is thrown as it is. When the executor gives up,
 * its {@link RelentException} is thrown as it is (unchecked). An interrupted wait throws {@link
 * InterruptedIOException} with the interrupt flag set; a cancelled request stops before its next
 * attempt with {@code InterruptedIOException("Request aborted")}. {@link #callResult(HttpContext)}
 * tells the attempts, the key, the decision and the attempt records of the last call made with a
 * context.
 *
 * <p><b>Idempotency keys.</b> A request that already has an {@code Idempotency-Key} header keeps
 * it; {@link CallOptions} stored in the call's context ({@link #setOptions(HttpContext,
 * CallOptions)}) can give one, or a decision table of its own; {@link
 * Builder#withIdempotencyKeys(boolean)} keys every POST and PATCH. The key is set once, before the
 * first send, and every attempt carries it.
 *
 * <p><b>Resources and time.</b> Each attempt's response timeout and connection-request (pool)
 * timeout are the smaller of the request's own and {@link AttemptContext#timeoutNanos()} (the
 * attempt timeout or what is left of the deadline); HttpClient applies the response timeout to each
 * socket read, not to the exchange as a whole. The connect timeout is the connection manager's
 * ({@code ConnectionConfig}). A response the table would retry (or hold back) has its body read
 * into memory, at most {@link Builder#withMaxBufferedBody(int) 64 KiB} (more is cut and the
 * connection discarded), and is closed before the executor decides, so no connection is held while
 * waiting. A request whose entity is not repeatable cannot be sent twice: it is judged by {@link
 * DecisionTable#withoutResends()}, so only faults where nothing was sent are retried — wrap a
 * stream in a {@code BufferedHttpEntity} to make it retryable. For the async client, use {@link
 * RelentAsyncExecChainHandler}.
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
