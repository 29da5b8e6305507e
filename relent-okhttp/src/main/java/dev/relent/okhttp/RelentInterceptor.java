package dev.relent.okhttp;

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
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
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
 *         .withExecutor(x -> x.withPacer(Pacer.of(90, Duration.ofMinutes(1))))
 *         .build();
 * OkHttpClient client = relent.install(new OkHttpClient.Builder()).build();
 * }</pre>
 *
 * <p><b>Install it with {@link #install(OkHttpClient.Builder)}.</b> That adds the interceptor and
 * calls {@code retryOnConnectionFailure(false)}: OkHttp otherwise re-sends a request itself, out of
 * sight, after a failed connection or a reset, POSTs included, and attempts would multiply across
 * the two layers. Added to a client any other way while {@code retryOnConnectionFailure} is on
 * (OkHttp's default), the interceptor refuses every call with an {@link IllegalStateException}
 * before anything is sent, naming the fix; with it off by hand, it works as installed. OkHttp still
 * follows redirects and answers authentication challenges inside one attempt, and re-sends once a
 * 503 that carries {@code Retry-After: 0} (its own rule, which no setting turns off).
 *
 * <p><b>Outcomes</b>, the same types as the JDK client's and the HttpClient 5 handler's: a response
 * the table accepts or stops at is returned as it is; an unkeyed write that may have reached the
 * server is not re-sent ({@link NotRetriedWriteException}); a network fault the table does not
 * retry is an {@link HttpFaultException} with OkHttp's exception as its cause; a give-up is the
 * executor's {@link RelentException}; an interrupted wait throws {@link InterruptedIOException}
 * with the interrupt flag set. Under {@code enqueue}, OkHttp hands the {@link Callback} only an
 * {@code IOException}: {@link #failureOf(IOException)} returns what a synchronous call would have
 * thrown. {@link #callResult(Response)} tells a returned response's attempts, key and decision.
 *
 * <p><b>Keys, time and memory.</b> A request's own {@code Idempotency-Key}, or one from a {@link
 * CallOptions} tag, is set once and carried by every attempt ({@link
 * Builder#withIdempotencyKeys(boolean)} keys every POST and PATCH). Each attempt's timeouts are the
 * smaller of the client's and {@link AttemptContext#timeoutNanos()}. A response the table would
 * retry has its body read into memory (at most {@link Builder#withMaxBufferedBody(int) 64 KiB}) and
 * is closed before the wait; a one-shot or duplex body is judged by {@link
 * DecisionTable#withoutResends()}. docs/http.md says more of each.
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentInterceptor extends HttpAdapter<Response> implements Interceptor {
  /** The default limit on a retried response's body kept in memory: {@value} bytes. */
  public static final int DEFAULT_MAX_BUFFERED_BODY = HttpAdapterBuilder.DEFAULT_MAX_BUFFERED_BODY;

  private RelentInterceptor(HttpCallLoop<Response> loop) {
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
   * Returns an interceptor with every setting at its default: {@link RetryPolicy#ofDefaults()},
   * {@link DecisionTable#ofDefaults()}, no guards, the system time sources.
   *
   * @return a new interceptor
   */
  public static RelentInterceptor ofDefaults() {
    return builder().build();
  }

  /**
   * Returns what the interceptor did for a response it returned.
   *
   * <pre>{@code
   * try (Response response = client.newCall(request).execute()) {
   *   int attempts = RelentInterceptor.callResult(response).map(CallResult::attempts).orElse(1);
   * }
   * }</pre>
   *
   * @param response a response returned through a {@code RelentInterceptor}
   * @return the result, or empty when the response did not pass one
   * @throws NullPointerException if {@code response} is null
   */
  public static Optional<CallResult> callResult(Response response) {
    Objects.requireNonNull(response, "response cannot be null");
    return Optional.ofNullable(response.request().tag(CallResult.class));
  }

  /**
   * Returns the exception a synchronous call would have thrown, for the {@code IOException} an
   * asynchronous call's {@link Callback#onFailure} received: the unchecked exception OkHttp
   * attached as its cause (OkHttp 4: as suppressed), a {@link RelentException} when the executor
   * gave up; otherwise {@code failure} itself, which is what the interceptor threw.
   *
   * @param failure what {@code onFailure} received
   * @return the exception the interceptor threw
   * @throws NullPointerException if {@code failure} is null
   */
  public static Exception failureOf(IOException failure) {
    Objects.requireNonNull(failure, "failure cannot be null");
    if (failure.getCause() instanceof RuntimeException) {
      return (RuntimeException) failure.getCause();
    }
    for (Throwable suppressed : failure.getSuppressed()) {
      if (suppressed instanceof RuntimeException) {
        return (RuntimeException) suppressed; // how OkHttp 4 attached it
      }
    }
    return failure;
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
   * Runs one call: sets its key, makes attempts until the executor accepts a response or gives up.
   *
   * @param chain OkHttp's chain
   * @return the accepted response, tagged with its {@link CallResult}
   * @throws NotRetriedWriteException if an unkeyed write failed after it may have reached the
   *     server
   * @throws HttpFaultException if a network fault the table does not retry ended the call
   * @throws RelentException if the executor gave up (unchecked)
   * @throws InterruptedIOException if the thread was interrupted while waiting
   * @throws IOException {@code "Canceled"} if the call was cancelled
   * @throws IllegalStateException if the call's client has {@code retryOnConnectionFailure} on:
   *     install the interceptor with {@link #install(OkHttpClient.Builder)}
   */
  @Override
  public Response intercept(Chain chain) throws IOException {
    refuseSilentRetries(chain.call());
    Request request = chain.request();
    CallOptions options = request.tag(CallOptions.class);
    RequestBody body = request.body();
    String existing = request.header(Idempotency.HEADER);
    HttpCall call =
        loop()
            .prepare(
                request.method(),
                request.url().toString(),
                existing,
                options != null ? options : CallOptions.ofDefaults(),
                body == null || !(body.isOneShot() || body.isDuplex()),
                request::header);
    Request.Builder keyed = request.newBuilder().tag(HttpCall.class, call);
    if (call.key() != null && existing == null) {
      keyed.header(Idempotency.HEADER, call.key());
    }
    Response last = loop().execute(call, new OkExchange(chain, keyed.build(), call));
    Request tagged = last.request().newBuilder().tag(CallResult.class, call.result()).build();
    return last.newBuilder().request(tagged).build();
  }

  /** OkHttp's glue for one call: proceed with bounded timeouts, peek the body, cancellation. */
  private final class OkExchange implements Exchange<Response, IOException> {
    private final Chain chain;
    private final Request request;
    private final HttpCall call;

    OkExchange(Chain chain, Request request, HttpCall call) {
      this.chain = chain;
      this.request = request;
      this.call = call;
    }

    @Override
    public Response send(long timeoutNanos) throws IOException {
      // OkHttp takes int milliseconds, 0 meaning none.
      long limit = Math.min(Integer.MAX_VALUE, HttpCallLoop.limitMillis(timeoutNanos));
      return chain
          .withConnectTimeout(within(chain.connectTimeoutMillis(), limit), TimeUnit.MILLISECONDS)
          .withReadTimeout(within(chain.readTimeoutMillis(), limit), TimeUnit.MILLISECONDS)
          .withWriteTimeout(within(chain.writeTimeoutMillis(), limit), TimeUnit.MILLISECONDS)
          .proceed(forAttempt());
    }

    /** The request with the headers the call's observers set for this attempt. */
    private Request forAttempt() {
      Map<String, String> extra = call.attemptHeaders();
      if (extra.isEmpty()) {
        return request;
      }
      Request.Builder b = request.newBuilder();
      extra.forEach(b::header);
      return b.build();
    }

    @Override
    public Response buffer(Response response) throws IOException {
      // Read now and close, so that no connection is held while waiting; OkHttp also
      // refuses a new proceed while the previous response is open.
      try (Response open = response) {
        ResponseBody copy = open.peekBody(loop().maxBufferedBody());
        return open.newBuilder().body(copy).build();
      }
    }

    @Override
    public boolean cancelled() {
      return chain.call().isCanceled();
    }

    @Override
    public IOException cancellation() {
      return new IOException("Canceled");
    }
  }

  /**
   * Refuses a client that would re-send requests beneath Relent. OkHttp's {@code Call} does not
   * name its client; its implementation does ({@code RealCall.getClient()}, public though in an
   * internal package), so it is looked up once by name, and a version of OkHttp without it is not
   * checked.
   */
  private static void refuseSilentRetries(Call call) {
    OkHttpClient client = ClientOfCall.of(call);
    if (client != null && client.retryOnConnectionFailure()) {
      throw new IllegalStateException(
          "RelentInterceptor is on an OkHttpClient with retryOnConnectionFailure(true), OkHttp's"
              + " default: OkHttp would send a request again on its own after a failed connection"
              + " or a reset, POSTs included, and Relent would neither count nor log it. Add the"
              + " interceptor with relent.install(builder), which turns that off, or call"
              + " retryOnConnectionFailure(false) on the builder");
    }
  }

  /** Reads the client of a call through OkHttp's call implementation, where there is one. */
  private static final class ClientOfCall {
    private static final Class<?> REAL_CALL = realCall();
    private static final MethodHandle GET_CLIENT = getClient(REAL_CALL);

    private ClientOfCall() {}

    static OkHttpClient of(Call call) {
      if (GET_CLIENT == null || !REAL_CALL.isInstance(call)) {
        return null;
      }
      try {
        return (OkHttpClient) GET_CLIENT.invoke(call);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException("cannot read the OkHttpClient of " + call, e);
      }
    }

    private static Class<?> realCall() {
      try {
        return Class.forName(
            "okhttp3.internal.connection.RealCall", false, Call.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        return null;
      }
    }

    private static MethodHandle getClient(Class<?> realCall) {
      if (realCall == null) {
        return null;
      }
      try {
        return MethodHandles.publicLookup()
            .findVirtual(realCall, "getClient", MethodType.methodType(OkHttpClient.class));
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }
  }

  private static int within(int own, long limit) {
    return (int) HttpCallLoop.within(own, limit);
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
      return new RelentInterceptor(buildLoop(OkHttpAccess.INSTANCE));
    }
  }
}
