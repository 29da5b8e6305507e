package dev.relent.httpclient5;

import dev.relent.AttemptContext;
import dev.relent.RelentCounters;
import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.http.CallOptions;
import dev.relent.http.Decision;
import dev.relent.http.DecisionTable;
import dev.relent.http.HttpAdapterBuilder;
import dev.relent.http.HttpFaultException;
import dev.relent.http.HttpOutcomes;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
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
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.util.Timeout;

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
 * <p><b>Outcomes.</b> A response the table accepts or stops at (a 404) is returned as it is. A
 * write without {@code Idempotency-Key} that may have reached the server is not re-sent: {@link
 * NotRetriedWriteException}. A network fault the table does not retry is thrown as an {@link
 * HttpFaultException} whose cause is HttpClient's exception. When the executor gives up, its {@link
 * RelentException} is thrown as it is (unchecked, like the JDK wrapper's). An interrupted wait
 * throws {@link InterruptedIOException} with the interrupt flag set; a cancelled request stops
 * before its next attempt with {@code InterruptedIOException("Request aborted")}. {@link
 * CallResult#of(HttpContext)} tells the attempts, the key and the decision of the last call made
 * with a context.
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
 * stream in a {@code BufferedHttpEntity} to make it retryable. Classic only: the async client's
 * {@code AsyncExecChainHandler} is not provided.
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentExecChainHandler implements ExecChainHandler {
  /** The default limit on a retried response's body kept in memory: {@value} bytes. */
  public static final int DEFAULT_MAX_BUFFERED_BODY = HttpAdapterBuilder.DEFAULT_MAX_BUFFERED_BODY;

  /** The name of the handler in HttpClient's exec chain: {@value}. */
  public static final String NAME = "relent";

  /** The context attribute that holds a call's {@link CallOptions}: {@value}. */
  public static final String OPTIONS_ATTRIBUTE = "dev.relent.httpclient5.options";

  private final HttpOutcomes<ClassicHttpResponse> outcomes;
  private final RelentExecutor<ClassicHttpResponse> executor;
  private final boolean keyWrites;
  private final int maxBufferedBody;

  private RelentExecChainHandler(
      boolean keyWrites,
      int maxBufferedBody,
      HttpOutcomes<ClassicHttpResponse> outcomes,
      RelentExecutor<ClassicHttpResponse> executor) {
    this.keyWrites = keyWrites;
    this.maxBufferedBody = maxBufferedBody;
    this.outcomes = outcomes;
    this.executor = executor;
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
   * DecisionTable#defaults()}, no guards, the system time sources.
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
   * Stores per-call options in a context: pass the context to {@code execute}.
   *
   * @param context the call's context, best an {@link HttpClientContext}
   * @param options the key and decision table for the call
   * @throws NullPointerException if an argument is null
   */
  public static void setOptions(HttpContext context, CallOptions options) {
    Objects.requireNonNull(context, "context cannot be null");
    context.setAttribute(
        OPTIONS_ATTRIBUTE, Objects.requireNonNull(options, "options cannot be null"));
  }

  /**
   * Returns the executor every request runs under.
   *
   * @return the executor
   */
  public RelentExecutor<ClassicHttpResponse> executor() {
    return executor;
  }

  /**
   * Returns the HTTP semantics this handler uses: its table, hint reader and redactor.
   *
   * @return the outcomes
   */
  public HttpOutcomes<ClassicHttpResponse> outcomes() {
    return outcomes;
  }

  /**
   * Returns a snapshot of the counters: first attempts, retries, successes, final failures.
   *
   * @return a new snapshot
   */
  public RelentCounters counters() {
    return executor.counters();
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
    HttpClientContext context = scope.clientContext;
    Hc5Call call = prepare(request, context);
    ClassicHttpResponse last;
    try {
      last = executor.get((AttemptContext ctx) -> attempt(call, scope, chain, ctx));
    } catch (Aborted e) {
      throw new InterruptedIOException("Request aborted");
    } catch (RelentException e) {
      if (e.reason() == RelentException.Reason.INTERRUPTED) {
        InterruptedIOException interrupted = new InterruptedIOException(e.getMessage());
        interrupted.initCause(e);
        throw interrupted;
      }
      if (e.reason() == RelentException.Reason.NOT_RETRYABLE && e.getCause() != null) {
        NotRetriedWriteException held = outcomes.notRetried(null, e.getCause(), e.attempts());
        if (held != null) {
          throw held;
        }
        if (e.getCause() instanceof IOException) {
          throw (IOException) e.getCause();
        }
        if (e.getCause() instanceof HttpException) {
          throw (HttpException) e.getCause();
        }
      }
      throw e;
    }
    Decision decision = outcomes.decide(last, null);
    if (decision.notResent()) {
      throw outcomes.notRetried(last, null, call.attempt);
    }
    context.setAttribute(CallResult.ATTRIBUTE, new CallResult(call.attempt, call.key, decision));
    return last;
  }

  private Hc5Call prepare(ClassicHttpRequest request, HttpClientContext context) {
    Object attribute = context.getAttribute(OPTIONS_ATTRIBUTE);
    CallOptions options =
        attribute instanceof CallOptions ? (CallOptions) attribute : CallOptions.defaults();
    org.apache.hc.core5.http.Header existing = request.getFirstHeader(Idempotency.HEADER);
    String key =
        options.keyFor(
            request.getMethod(), existing == null ? null : existing.getValue(), keyWrites);
    DecisionTable table = options.decisionTable().orElse(null);
    HttpEntity entity = request.getEntity();
    if (entity != null && !entity.isRepeatable()) {
      table = (table != null ? table : outcomes.table()).withoutResends();
    }
    return new Hc5Call(request, key, table, outcomes.redactor());
  }

  private ClassicHttpResponse attempt(
      Hc5Call call, ExecChain.Scope scope, ExecChain chain, AttemptContext ctx)
      throws IOException, HttpException {
    call.attempt = ctx.attempt();
    if (scope.execRuntime.isExecutionAborted()) {
      throw new Aborted();
    }
    HttpClientContext context = scope.clientContext;
    RequestConfig own = context.getRequestConfig();
    RequestConfig base = own != null ? own : RequestConfig.DEFAULT;
    long limit = Math.max(1L, ceilMillis(ctx.timeoutNanos()));
    context.setRequestConfig(
        RequestConfig.copy(base)
            .setResponseTimeout(within(base.getResponseTimeout(), limit))
            .setConnectionRequestTimeout(within(base.getConnectionRequestTimeout(), limit))
            .build());
    ClassicHttpResponse response;
    try {
      response = chain.proceed(call.forAttempt(), scope);
    } catch (IOException e) {
      throw fault(scope, call, e);
    } finally {
      context.setRequestConfig(own);
    }
    DecisionTable table = call.table != null ? call.table : outcomes.table();
    Decision d =
        table.decide(
            call.method,
            call.key != null,
            response.getCode(),
            Hc5Access.INSTANCE.headers(response));
    if (!d.isRetry() && !d.notResent()) {
      return new TrackedResponse(response, response.getEntity(), call, ctx.attempt());
    }
    // Read now and close, so that no connection is held while waiting.
    try (ClassicHttpResponse open = response) {
      return new TrackedResponse(open, buffer(open.getEntity(), scope), call, ctx.attempt());
    } catch (IOException e) {
      throw fault(scope, call, e);
    }
  }

  /**
   * Copies at most {@code maxBufferedBody} bytes; a longer body is cut and its connection closed.
   */
  private HttpEntity buffer(HttpEntity entity, ExecChain.Scope scope) throws IOException {
    if (entity == null) {
      return null;
    }
    ByteArrayOutputStream copy = new ByteArrayOutputStream();
    boolean cut = false;
    try (InputStream in = entity.getContent()) {
      if (in != null) {
        byte[] chunk = new byte[8192];
        int n;
        while ((n = in.read(chunk, 0, Math.min(chunk.length, maxBufferedBody + 1 - copy.size())))
            > 0) {
          copy.write(chunk, 0, n);
          if (copy.size() > maxBufferedBody) {
            cut = true;
            // Draining an unbounded rest would hold the wait hostage: drop the connection.
            scope.execRuntime.discardEndpoint();
            break;
          }
        }
      }
    }
    byte[] bytes = copy.toByteArray();
    int length = cut ? maxBufferedBody : bytes.length;
    ContentType type =
        entity.getContentType() == null ? null : ContentType.parseLenient(entity.getContentType());
    return new ByteArrayEntity(bytes, 0, length, type, entity.getContentEncoding());
  }

  private IOException fault(ExecChain.Scope scope, Hc5Call call, IOException e) {
    if (scope.execRuntime.isExecutionAborted()) {
      throw new Aborted();
    }
    return new HttpFaultException(
        call.method, call.endpoint, call.key != null, call.table, e, outcomes.redactor());
  }

  private static long ceilMillis(long nanos) {
    return nanos / 1_000_000L + (nanos % 1_000_000L == 0 ? 0 : 1);
  }

  /** A missing or zero timeout means "none" to HttpClient: the attempt's limit applies then. */
  private static Timeout within(Timeout own, long limitMillis) {
    if (own == null || own.isDisabled() || own.toMilliseconds() > limitMillis) {
      return Timeout.of(limitMillis, TimeUnit.MILLISECONDS);
    }
    return own;
  }

  /** Thrown through the executor when the request was aborted: unchecked, so never retried. */
  private static final class Aborted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Aborted() {
      super("Request aborted", null, false, false);
    }
  }

  /**
   * Builds a {@link RelentExecChainHandler} from the settings every adapter shares ({@link
   * HttpAdapterBuilder}). Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<ClassicHttpResponse, Builder> {
    Builder() {}

    /**
     * Builds the handler.
     *
     * @return a new handler
     */
    public RelentExecChainHandler build() {
      HttpOutcomes<ClassicHttpResponse> outcomes = buildOutcomes(Hc5Access.INSTANCE);
      return new RelentExecChainHandler(
          keyWrites(), maxBufferedBody(), outcomes, buildExecutor(outcomes));
    }
  }
}
