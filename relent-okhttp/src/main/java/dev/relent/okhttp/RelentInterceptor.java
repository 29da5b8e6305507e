package dev.relent.okhttp;

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
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Relent's HTTP behaviour as an OkHttp application {@link Interceptor}: every call runs under one
 * {@link RelentExecutor} shared by all calls of the client, judged by a {@link DecisionTable},
 * waiting as the server asks, logging one redacted line per attempt. Attempts re-run the rest of
 * the chain ({@code chain.proceed}), as OkHttp allows application interceptors to.
 *
 * <pre>{@code
 * RelentInterceptor relent =
 *     RelentInterceptor.builder()
 *         .withPolicy(RetryPolicy.builder().withMaxRetries(3).build())
 *         .withPacer(Pacer.of(90, Duration.ofMinutes(1)))
 *         .build();
 * OkHttpClient client = relent.install(new OkHttpClient.Builder()).build();
 * }</pre>
 *
 * <p><b>Install it with {@link #install(OkHttpClient.Builder)}.</b> That adds the interceptor and
 * calls {@code retryOnConnectionFailure(false)}: OkHttp otherwise re-sends a request itself, out of
 * sight, after a failed connection or a reset, POSTs included, and attempts would multiply across
 * the two layers. OkHttp still follows redirects and answers authentication challenges inside one
 * attempt, and re-sends once a 503 that carries {@code Retry-After: 0} (its own rule, which no
 * setting turns off).
 *
 * <p><b>Outcomes.</b> A response the table accepts or stops at (a 404) is returned as it is. A
 * write without {@code Idempotency-Key} that may have reached the server is not re-sent: {@link
 * NotRetriedWriteException}. A network fault the table does not retry is thrown as an {@link
 * HttpFaultException} whose cause is OkHttp's exception. When the executor gives up, its {@link
 * RelentException} is thrown inside a {@link RelentIOException}: OkHttp delivers only I/O
 * exceptions to an asynchronous call's callback. An interrupted wait throws {@link
 * InterruptedIOException} with the thread's interrupt flag set; a cancelled call stops before its
 * next attempt with {@code IOException("Canceled")}. {@link CallResult#of(Response)} tells the
 * attempts, the key and the decision of a returned response.
 *
 * <p><b>Idempotency keys.</b> A request that already has an {@code Idempotency-Key} header keeps
 * it; a {@link CallOptions} tag on the request ({@code request.newBuilder().tag(CallOptions.class,
 * options)}) can give one, or a decision table of its own; {@link
 * Builder#withIdempotencyKeys(boolean)} keys every POST and PATCH. The key is set once, before the
 * first send, and every attempt carries it.
 *
 * <p><b>Resources and time.</b> Each attempt's connect, write and read timeouts are the smaller of
 * the client's own and {@link AttemptContext#timeoutNanos()} (the attempt timeout or what is left
 * of the deadline). OkHttp applies them to each connect, write and read, not to the exchange as a
 * whole; its {@code callTimeout} bounds the whole call, waits included. A response the table would
 * retry (or hold back) has its body read into memory, at most {@link
 * Builder#withMaxBufferedBody(int) 64 KiB}, and is closed before the executor decides, so no
 * connection is held while waiting; the copy is what the caller gets if it is the last. A request
 * whose body is one-shot or duplex cannot be sent twice: it is judged by {@link
 * DecisionTable#withoutResends()}, so only faults where nothing was sent are retried. The waits of
 * asynchronous calls block OkHttp's dispatcher thread.
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentInterceptor implements Interceptor {
  /** The default limit on a retried response's body kept in memory: {@value} bytes. */
  public static final int DEFAULT_MAX_BUFFERED_BODY = HttpAdapterBuilder.DEFAULT_MAX_BUFFERED_BODY;

  private final HttpOutcomes<Response> outcomes;
  private final RelentExecutor<Response> executor;
  private final boolean keyWrites;
  private final int maxBufferedBody;

  private RelentInterceptor(
      boolean keyWrites,
      int maxBufferedBody,
      HttpOutcomes<Response> outcomes,
      RelentExecutor<Response> executor) {
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
   * Returns an interceptor with every setting at its default: {@link RetryPolicy#ofDefaults()},
   * {@link DecisionTable#defaults()}, no guards, the system time sources.
   *
   * @return a new interceptor
   */
  public static RelentInterceptor ofDefaults() {
    return builder().build();
  }

  /**
   * Installs this interceptor on a client builder and turns off OkHttp's own silent retries: adds
   * it as the last application interceptor (so interceptors added before it run once per call, and
   * those after it once per attempt) and calls {@code retryOnConnectionFailure(false)}.
   *
   * @param builder the client builder
   * @return the same builder
   * @throws NullPointerException if {@code builder} is null
   */
  public OkHttpClient.Builder install(OkHttpClient.Builder builder) {
    Objects.requireNonNull(builder, "builder cannot be null");
    return builder.retryOnConnectionFailure(false).addInterceptor(this);
  }

  /**
   * Returns the executor every call runs under.
   *
   * @return the executor
   */
  public RelentExecutor<Response> executor() {
    return executor;
  }

  /**
   * Returns the HTTP semantics this interceptor uses: its table, hint reader and redactor.
   *
   * @return the outcomes
   */
  public HttpOutcomes<Response> outcomes() {
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
   * Runs one call: sets its key, makes attempts until the executor accepts a response or gives up.
   *
   * @param chain OkHttp's chain
   * @return the accepted response, tagged with its {@link CallResult}
   * @throws NotRetriedWriteException if an unkeyed write failed after it may have reached the
   *     server
   * @throws HttpFaultException if a network fault the table does not retry ended the call
   * @throws RelentIOException if the executor gave up
   * @throws InterruptedIOException if the thread was interrupted while waiting
   * @throws IOException {@code "Canceled"} if the call was cancelled
   */
  @Override
  public Response intercept(Chain chain) throws IOException {
    OkCall call = prepare(chain.request());
    Response last;
    try {
      last = executor.get((AttemptContext ctx) -> attempt(chain, call, ctx));
    } catch (Canceled e) {
      throw new IOException("Canceled");
    } catch (RelentException e) {
      if (e.reason() == RelentException.Reason.INTERRUPTED) {
        // The executor restored the interrupt flag; OkHttp's own convention keeps it set.
        InterruptedIOException interrupted = new InterruptedIOException(e.getMessage());
        interrupted.initCause(e);
        throw interrupted;
      }
      throw translate(e);
    }
    Decision decision = outcomes.decide(last, null);
    if (decision.notResent()) {
      throw outcomes.notRetried(last, null, call.attempt);
    }
    CallResult result = new CallResult(call.attempt, call.key, decision);
    Request tagged = last.request().newBuilder().tag(CallResult.class, result).build();
    return last.newBuilder().request(tagged).build();
  }

  private OkCall prepare(Request request) {
    CallOptions options = request.tag(CallOptions.class);
    if (options == null) {
      options = CallOptions.defaults();
    }
    String key = options.keyFor(request.method(), request.header(Idempotency.HEADER), keyWrites);
    DecisionTable table = options.decisionTable().orElse(null);
    RequestBody body = request.body();
    if (body != null && (body.isOneShot() || body.isDuplex())) {
      table = (table != null ? table : outcomes.table()).withoutResends();
    }
    return new OkCall(request, key, table, outcomes.redactor());
  }

  private Response attempt(Chain chain, OkCall call, AttemptContext ctx) throws IOException {
    call.attempt = ctx.attempt();
    if (chain.call().isCanceled()) {
      throw new Canceled();
    }
    int limit = (int) Math.max(1L, Math.min(Integer.MAX_VALUE, ceilMillis(ctx.timeoutNanos())));
    Chain timed =
        chain
            .withConnectTimeout(within(chain.connectTimeoutMillis(), limit), TimeUnit.MILLISECONDS)
            .withReadTimeout(within(chain.readTimeoutMillis(), limit), TimeUnit.MILLISECONDS)
            .withWriteTimeout(within(chain.writeTimeoutMillis(), limit), TimeUnit.MILLISECONDS);
    Response response;
    try {
      response = timed.proceed(call.request);
    } catch (IOException e) {
      throw fault(chain, call, e);
    }
    DecisionTable table = call.table != null ? call.table : outcomes.table();
    Decision d = table.decide(call.method, call.key != null, response.code(), response::header);
    if (!d.isRetry() && !d.notResent()) {
      return response;
    }
    // Read now and close, so that no connection is held while waiting; OkHttp also
    // refuses a new proceed while the previous response is open.
    try (Response open = response) {
      ResponseBody copy = open.peekBody(maxBufferedBody);
      return open.newBuilder().body(copy).build();
    } catch (IOException e) {
      throw fault(chain, call, e);
    }
  }

  private IOException fault(Chain chain, OkCall call, IOException e) {
    if (chain.call().isCanceled()) {
      throw new Canceled();
    }
    return new HttpFaultException(
        call.method, call.endpoint, call.key != null, call.table, e, outcomes.redactor());
  }

  private static long ceilMillis(long nanos) {
    return nanos / 1_000_000L + (nanos % 1_000_000L == 0 ? 0 : 1);
  }

  /** OkHttp's 0 means "no timeout": the attempt's limit applies then. */
  private static int within(int own, int limit) {
    return own == 0 ? limit : Math.min(own, limit);
  }

  /**
   * What a give-up becomes for the caller: a held-back write, a network fault the table does not
   * retry, or the executor's exception wrapped for OkHttp.
   */
  private IOException translate(RelentException e) {
    if (e.reason() == RelentException.Reason.NOT_RETRYABLE && e.getCause() != null) {
      NotRetriedWriteException held = outcomes.notRetried(null, e.getCause(), e.attempts());
      if (held != null) {
        return held;
      }
      if (e.getCause() instanceof IOException) {
        return (IOException) e.getCause();
      }
    }
    return new RelentIOException(e);
  }

  /** Thrown through the executor when the call was cancelled: unchecked, so never retried. */
  private static final class Canceled extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Canceled() {
      super("Canceled", null, false, false);
    }
  }

  /**
   * Builds a {@link RelentInterceptor} from the settings every adapter shares ({@link
   * HttpAdapterBuilder}). Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<Response, Builder> {
    Builder() {}

    /**
     * Builds the interceptor.
     *
     * @return a new interceptor
     */
    public RelentInterceptor build() {
      HttpOutcomes<Response> outcomes = buildOutcomes(OkHttpAccess.INSTANCE);
      return new RelentInterceptor(
          keyWrites(), maxBufferedBody(), outcomes, buildExecutor(outcomes));
    }
  }
}
