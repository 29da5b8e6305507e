package dev.relent.httpclient5;

import dev.relent.AttemptContext;
import dev.relent.CircuitBreaker;
import dev.relent.ConcurrencyLimit;
import dev.relent.Pacer;
import dev.relent.RelentCounters;
import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import dev.relent.RelentListener;
import dev.relent.RetryBudget;
import dev.relent.RetryPolicy;
import dev.relent.RetryPolicyConfig;
import dev.relent.http.CallOptions;
import dev.relent.http.Decision;
import dev.relent.http.DecisionTable;
import dev.relent.http.HttpFaultException;
import dev.relent.http.HttpOutcomes;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.Redactor;
import dev.relent.http.ServerHints;
import dev.relent.spi.Clock;
import dev.relent.spi.RandomSource;
import dev.relent.spi.Sleeper;
import dev.relent.spi.Ticker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relent's HTTP behaviour as an Apache HttpClient 5 classic {@link ExecChainHandler}: every request
 * runs under one {@link RelentExecutor} shared by all requests of the client, judged by a {@link
 * DecisionTable}, waiting as the server asks, logging one redacted line per attempt. Each attempt
 * sends the request down the rest of the chain again ({@code chain.proceed}).
 *
 * <pre>{@code
 * RelentExecChainHandler relent =
 *     RelentExecChainHandler.builder()
 *         .withPolicy(RetryPolicy.<ClassicHttpResponse>builder().withMaxRetries(3).build())
 *         .build();
 * CloseableHttpClient client = relent.install(HttpClients.custom()).build();
 * }</pre>
 *
 * <p><b>Install it with {@link #install(HttpClientBuilder)}.</b> That calls {@code
 * disableAutomaticRetries()} — HttpClient's default {@code DefaultHttpRequestRetryStrategy}
 * re-sends idempotent requests after I/O errors and after 429 and 503, sleeping on its own, and
 * attempts would multiply across the two layers (SPEC R5) — and puts the handler where the retry
 * element was: before {@link ChainElement#PROTOCOL}, after redirects and content decompression. So
 * every redirect hop gets its own attempts, and authentication challenges are answered inside one
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
  public static final int DEFAULT_MAX_BUFFERED_BODY = 64 * 1024;

  /** The name of the handler in HttpClient's exec chain: {@value}. */
  public static final String NAME = "relent";

  /** The context attribute that holds a call's {@link CallOptions}: {@value}. */
  public static final String OPTIONS_ATTRIBUTE = "dev.relent.httpclient5.options";

  private final HttpOutcomes<ClassicHttpResponse> outcomes;
  private final RelentExecutor<ClassicHttpResponse> executor;
  private final boolean keyWrites;
  private final int maxBufferedBody;

  private RelentExecChainHandler(Builder b) {
    this.keyWrites = b.keyWrites;
    this.maxBufferedBody = b.maxBufferedBody;
    this.outcomes =
        HttpOutcomes.builder(Hc5Access.INSTANCE)
            .withDecisionTable(b.table)
            .withServerHints(b.hints)
            .withRedactor(b.redactor)
            .withClock(b.clock)
            .build();
    RetryPolicy<ClassicHttpResponse> policy =
        outcomes.applyTo(RetryPolicy.builder(b.policy.config())).build();
    RelentExecutor.Builder<ClassicHttpResponse> x =
        RelentExecutor.builder(policy)
            .withTicker(b.ticker)
            .withClock(b.clock)
            .withSleeper(b.sleeper)
            .withRandom(b.random);
    if (b.breaker != null) {
      x.withCircuitBreaker(b.breaker);
    }
    if (b.budget != null) {
      x.withRetryBudget(b.budget);
    }
    if (b.pacer != null) {
      x.withPacer(b.pacer);
    }
    if (b.limit != null) {
      x.withConcurrencyLimit(b.limit);
    }
    if (b.logger != null) {
      x.onEvent(outcomes.logger(b.logger));
    }
    for (RelentListener<ClassicHttpResponse> listener : b.listeners) {
      x.onEvent(listener);
    }
    this.executor = x.build();
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
    // Read now and close, so that no connection is held while waiting (SPEC R6).
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

  /** Builds a {@link RelentExecChainHandler}. Mutable and not thread-safe. */
  public static final class Builder {
    private RetryPolicy<ClassicHttpResponse> policy = RetryPolicy.ofDefaults();
    private DecisionTable table = DecisionTable.defaults();
    private ServerHints hints = ServerHints.ofDefaults();
    private Redactor redactor = Redactor.ofDefaults();
    private CircuitBreaker breaker;
    private RetryBudget budget;
    private Pacer pacer;
    private ConcurrencyLimit limit;
    private Ticker ticker = Ticker.system();
    private Clock clock = Clock.system();
    private Sleeper sleeper = Sleeper.system();
    private RandomSource random = RandomSource.system();
    private Logger logger = LoggerFactory.getLogger("dev.relent.http");
    private final List<RelentListener<ClassicHttpResponse>> listeners = new ArrayList<>();
    private boolean keyWrites;
    private int maxBufferedBody = DEFAULT_MAX_BUFFERED_BODY;

    Builder() {}

    /**
     * Sets the retries, backoff, deadline, attempt timeout and longest server wait. The policy must
     * not classify outcomes itself: the decision table does. Default {@link
     * RetryPolicy#ofDefaults()}: 5 retries, 500 ms base, 30 s cap, full jitter, 30 s deadline, 10 s
     * per attempt.
     *
     * @param policy the policy
     * @return this builder
     * @throws NullPointerException if {@code policy} is null
     * @throws IllegalArgumentException if the policy has a classifier, a hint extractor, or retry
     *     or abort conditions
     */
    public Builder withPolicy(RetryPolicy<ClassicHttpResponse> policy) {
      Objects.requireNonNull(policy, "policy cannot be null");
      RetryPolicyConfig<ClassicHttpResponse> c = policy.config();
      if (c.classifier().isPresent()
          || c.hintExtractor().isPresent()
          || !c.retryOn().isEmpty()
          || !c.abortOn().isEmpty()
          || !c.retryOnFailure().isEmpty()
          || !c.abortOnFailure().isEmpty()
          || !c.retryIf().isEmpty()
          || !c.abortIf().isEmpty()) {
        throw new IllegalArgumentException(
            "policy must not have a classifier, hints or retry/abort conditions: the decision"
                + " table decides; use withDecisionTable and withServerHints");
      }
      this.policy = policy;
      return this;
    }

    /**
     * Sets the decision table for every request without one of its own. Default {@link
     * DecisionTable#defaults()}.
     *
     * @param table the table
     * @return this builder
     * @throws NullPointerException if {@code table} is null
     */
    public Builder withDecisionTable(DecisionTable table) {
      this.table = Objects.requireNonNull(table, "table cannot be null");
      return this;
    }

    /**
     * Sets the hint reader. Default {@link ServerHints#ofDefaults()}.
     *
     * @param hints the reader
     * @return this builder
     * @throws NullPointerException if {@code hints} is null
     */
    public Builder withServerHints(ServerHints hints) {
      this.hints = Objects.requireNonNull(hints, "hints cannot be null");
      return this;
    }

    /**
     * Sets the redactor for logs and messages. Default {@link Redactor#ofDefaults()}.
     *
     * @param redactor the redactor
     * @return this builder
     * @throws NullPointerException if {@code redactor} is null
     */
    public Builder withRedactor(Redactor redactor) {
      this.redactor = Objects.requireNonNull(redactor, "redactor cannot be null");
      return this;
    }

    /**
     * Gives every POST and PATCH without a key a new {@code Idempotency-Key}, so that they are
     * retried like idempotent requests. Turn it on only for servers that deduplicate by key.
     * Default false.
     *
     * @param enabled whether writes get keys
     * @return this builder
     */
    public Builder withIdempotencyKeys(boolean enabled) {
      this.keyWrites = enabled;
      return this;
    }

    /**
     * Sets how much of a retried response's body is kept in memory. Default 64 KiB.
     *
     * @param bytes 0 or more
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public Builder withMaxBufferedBody(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxBufferedBody must be >= 0: " + bytes + " bytes");
      }
      this.maxBufferedBody = bytes;
      return this;
    }

    /**
     * Guards calls with a circuit breaker, usually one per downstream.
     *
     * @param breaker the breaker
     * @return this builder
     * @throws NullPointerException if {@code breaker} is null
     */
    public Builder withCircuitBreaker(CircuitBreaker breaker) {
      this.breaker = Objects.requireNonNull(breaker, "breaker cannot be null");
      return this;
    }

    /**
     * Bounds the extra load retries add.
     *
     * @param budget the budget
     * @return this builder
     * @throws NullPointerException if {@code budget} is null
     */
    public Builder withRetryBudget(RetryBudget budget) {
      this.budget = Objects.requireNonNull(budget, "budget cannot be null");
      return this;
    }

    /**
     * Limits the rate of starts; 429s and rate-limit headers pause it for every caller sharing it.
     *
     * @param pacer the pacer
     * @return this builder
     * @throws NullPointerException if {@code pacer} is null
     */
    public Builder withPacer(Pacer pacer) {
      this.pacer = Objects.requireNonNull(pacer, "pacer cannot be null");
      return this;
    }

    /**
     * Limits the attempts in flight at once.
     *
     * @param limit the limit
     * @return this builder
     * @throws NullPointerException if {@code limit} is null
     */
    public Builder withConcurrencyLimit(ConcurrencyLimit limit) {
      this.limit = Objects.requireNonNull(limit, "limit cannot be null");
      return this;
    }

    /**
     * Sets the monotonic time source. Default {@link Ticker#system()}.
     *
     * @param ticker the ticker
     * @return this builder
     * @throws NullPointerException if {@code ticker} is null
     */
    public Builder withTicker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker cannot be null");
      return this;
    }

    /**
     * Sets the wall clock: {@code Retry-After} dates, rate-limit epochs, log times. Default {@link
     * Clock#system()}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock cannot be null");
      return this;
    }

    /**
     * Sets how the calling thread waits between attempts. Default {@link Sleeper#system()}.
     *
     * @param sleeper the sleeper
     * @return this builder
     * @throws NullPointerException if {@code sleeper} is null
     */
    public Builder withSleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper cannot be null");
      return this;
    }

    /**
     * Sets the randomness for jitter and spread. Default {@link RandomSource#system()}.
     *
     * @param random the source
     * @return this builder
     * @throws NullPointerException if {@code random} is null
     */
    public Builder withRandom(RandomSource random) {
      this.random = Objects.requireNonNull(random, "random cannot be null");
      return this;
    }

    /**
     * Sets the logger for the per-attempt lines. Default the SLF4J logger {@code dev.relent.http}.
     *
     * @param logger the logger
     * @return this builder
     * @throws NullPointerException if {@code logger} is null
     */
    public Builder withLogger(Logger logger) {
      this.logger = Objects.requireNonNull(logger, "logger cannot be null");
      return this;
    }

    /**
     * Turns the per-attempt lines off.
     *
     * @return this builder
     */
    public Builder withoutLogging() {
      this.logger = null;
      return this;
    }

    /**
     * Adds a listener for every attempt and decision (metrics, tests).
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder onEvent(RelentListener<ClassicHttpResponse> listener) {
      listeners.add(Objects.requireNonNull(listener, "listener cannot be null"));
      return this;
    }

    /**
     * Builds the handler.
     *
     * @return a new handler
     */
    public RelentExecChainHandler build() {
      return new RelentExecChainHandler(this);
    }
  }
}
