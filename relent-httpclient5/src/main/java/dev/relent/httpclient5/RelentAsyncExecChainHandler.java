package dev.relent.httpclient5;

import dev.relent.RelentException;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.http.CallOptions;
import dev.relent.http.DecisionTable;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.adapter.HttpAdapter;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.HttpCallLoop;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.support.BasicRequestBuilder;

/**
 * Relent's HTTP behaviour as an Apache HttpClient 5 async {@link AsyncExecChainHandler}, on the
 * same loop as {@link RelentExecChainHandler}: every request runs under one {@link RelentExecutor}
 * shared by all requests of the client, judged by a {@link DecisionTable}, waiting as the server
 * asks on the executor's scheduler (no thread blocked), logging one redacted line per attempt.
 *
 * <pre>{@code
 * RelentAsyncExecChainHandler relent =
 *     RelentAsyncExecChainHandler.builder()
 *         .withPolicy(RetryPolicy.builder().withMaxRetries(3).build())
 *         .build();
 * CloseableHttpAsyncClient client = relent.install(HttpAsyncClients.custom()).build();
 * }</pre>
 *
 * <p><b>Install it with {@link #install(HttpAsyncClientBuilder)}</b>: that calls {@code
 * disableAutomaticRetries()} and puts the handler before {@link ChainElement#PROTOCOL}, as the
 * classic handler's installer does.
 *
 * <p><b>Outcomes</b>, the same types as every other adapter's, delivered to the call's callback
 * ({@code failed}) and future: {@link NotRetriedWriteException}, {@link HttpFaultException}, the
 * executor's {@link RelentException} when it gives up, a non-network failure as it is; a call
 * cancelled between attempts fails with {@link CancellationException}. {@link
 * RelentExecChainHandler#callResult} reads the attempts, the key, the decision and the attempt
 * records of the last call made with a context; {@link RelentExecChainHandler#setOptions} sets a
 * call's {@link CallOptions}.
 *
 * <p><b>Resources and time.</b> Each attempt's response and connection-request timeouts are bounded
 * as the classic handler's are; the executor also cancels an attempt whose time is up. A response
 * the table would retry (or hold back) has its body read into memory, at most {@link
 * Builder#withMaxBufferedBody(int) 64 KiB} (the rest is dropped), before the executor decides; any
 * other response is handed to the caller's consumer as it arrives, and from then on the call is the
 * caller's: a failure while its body streams is not retried. A request whose entity producer is not
 * repeatable is judged by {@link DecisionTable#withoutResends()}.
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentAsyncExecChainHandler extends HttpAdapter<HttpResponse>
    implements AsyncExecChainHandler {
  /** The name of the handler in HttpClient's exec chain: {@value}. */
  public static final String NAME = RelentExecChainHandler.NAME;

  private RelentAsyncExecChainHandler(HttpCallLoop<HttpResponse> loop) {
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
  public static RelentAsyncExecChainHandler ofDefaults() {
    return builder().build();
  }

  /**
   * Installs this handler on an async client builder and turns off HttpClient's own retries: calls
   * {@code disableAutomaticRetries()} and adds the handler before {@link ChainElement#PROTOCOL}
   * under the name {@value #NAME}.
   *
   * @param builder the client builder
   * @return the same builder
   * @throws NullPointerException if {@code builder} is null
   */
  public HttpAsyncClientBuilder install(HttpAsyncClientBuilder builder) {
    Objects.requireNonNull(builder, "builder cannot be null");
    return builder
        .disableAutomaticRetries()
        .addExecInterceptorBefore(ChainElement.PROTOCOL.name(), NAME, this);
  }

  /**
   * Runs one request: sets its key, makes attempts until the executor accepts a response or gives
   * up, and reports the outcome to {@code callback}.
   *
   * @param request the request
   * @param producer the request entity, or null
   * @param scope the execution scope
   * @param chain the rest of the chain
   * @param callback the caller's side of the exchange
   */
  @Override
  public void execute(
      HttpRequest request,
      AsyncEntityProducer producer,
      AsyncExecChain.Scope scope,
      AsyncExecChain chain,
      AsyncExecCallback callback) {
    HttpClientContext context = scope.clientContext;
    HttpCall call =
        Hc5Calls.prepare(loop(), request, context, producer == null || producer.isRepeatable());
    BasicRequestBuilder keyed = BasicRequestBuilder.copy(request);
    if (call.key() != null && request.getFirstHeader(Idempotency.HEADER) == null) {
      keyed.setHeader(Idempotency.HEADER, call.key());
    }
    HttpRequest sent = keyed.build();
    RequestConfig own = context.getRequestConfig();
    loop()
        .executeAsync(
            call,
            timeoutNanos -> {
              if (scope.cancellableDependency.isCancelled()) {
                return CompletableFuture.failedFuture(new CancellationException("Request aborted"));
              }
              if (producer != null && call.attempts() > 1) {
                producer.releaseResources(); // a repeatable producer starts over
              }
              context.setRequestConfig(Hc5Calls.bounded(context, timeoutNanos));
              Attempt attempt = new Attempt(call, scope, callback);
              try {
                BasicRequestBuilder copy = BasicRequestBuilder.copy(sent);
                if (!call.attemptHeaders().isEmpty()) {
                  call.attemptHeaders().forEach(copy::setHeader); // the call observers' headers
                }
                chain.proceed(copy.build(), producer, scope, attempt);
              } catch (HttpException | IOException | RuntimeException e) {
                attempt.completeExceptionally(e);
              }
              return attempt;
            })
        .whenComplete(
            (response, failure) -> {
              context.setRequestConfig(own);
              if (failure != null) {
                callback.failed(exception(failure));
                return;
              }
              Hc5Calls.storeResult(context, call);
              ((AsyncResponse) response).deliver(callback);
            });
  }

  private static Exception exception(Throwable failure) {
    Throwable t = failure instanceof CompletionException ? failure.getCause() : failure;
    return t instanceof Exception ? (Exception) t : new CompletionException(t);
  }

  /**
   * One attempt's side of the exchange, and the stage the executor waits on. A response the table
   * retries or holds back is collected here and completes the stage when its body has ended; any
   * other is handed to the caller's callback at once and completes the stage, and the body, the end
   * and a failure after that go to the caller.
   */
  private final class Attempt extends CompletableFuture<HttpResponse> implements AsyncExecCallback {
    private final HttpCall call;
    private final AsyncExecChain.Scope scope;
    private final AsyncExecCallback caller;
    private volatile AsyncResponse buffered;
    private volatile boolean handedOver;

    Attempt(HttpCall call, AsyncExecChain.Scope scope, AsyncExecCallback caller) {
      this.call = call;
      this.scope = scope;
      this.caller = caller;
    }

    /** The executor cancels an attempt whose time is up: drop its connection, which ends it. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      if (cancelled && !handedOver) {
        scope.execRuntime.discardEndpoint();
      }
      return cancelled;
    }

    @Override
    public AsyncDataConsumer handleResponse(HttpResponse response, EntityDetails details)
        throws HttpException, IOException {
      AsyncResponse tracked = new AsyncResponse(response, details, call);
      if (loop().needsBuffer(call, response.getCode(), Hc5Access.INSTANCE.headers(response))) {
        buffered = tracked;
        return details == null ? null : tracked.body(loop().maxBufferedBody());
      }
      handedOver = true;
      AsyncDataConsumer consumer = caller.handleResponse(response, details);
      complete(tracked.handedOver());
      return consumer;
    }

    @Override
    public void handleInformationResponse(HttpResponse response) throws HttpException, IOException {
      caller.handleInformationResponse(response);
    }

    @Override
    public void completed() {
      if (handedOver) {
        caller.completed();
      } else if (buffered != null) {
        complete(buffered);
      } else {
        completeExceptionally(new IOException("the exchange ended without a response"));
      }
    }

    @Override
    public void failed(Exception cause) {
      if (handedOver) {
        caller.failed(cause);
      } else {
        completeExceptionally(cause);
      }
    }
  }

  /**
   * A response with the call it answered, so that {@link Hc5Access} can judge it; a buffered one
   * also keeps its body, so that it can be replayed to the caller if the executor accepts it.
   */
  private static final class AsyncResponse extends BasicHttpResponse implements Hc5Access.Tracked {
    private static final long serialVersionUID = 1L;

    private final transient EntityDetails details;
    private final transient HttpCall call;
    private final transient ByteArrayOutputStream body = new ByteArrayOutputStream();
    private transient boolean handedOver;

    AsyncResponse(HttpResponse original, EntityDetails details, HttpCall call) {
      super(original.getCode(), original.getReasonPhrase());
      setVersion(original.getVersion());
      setHeaders(original.getHeaders());
      this.details = details;
      this.call = call;
    }

    @Override
    public HttpCall call() {
      return call;
    }

    AsyncResponse handedOver() {
      handedOver = true;
      return this;
    }

    /** Collects at most {@code max} bytes of the body; the rest is read and dropped. */
    AsyncDataConsumer body(int max) {
      return new AsyncDataConsumer() {
        @Override
        public void updateCapacity(CapacityChannel channel) throws IOException {
          channel.update(Integer.MAX_VALUE);
        }

        @Override
        public void consume(ByteBuffer src) {
          int keep = Math.min(src.remaining(), max - body.size());
          for (int i = 0; i < keep; i++) {
            body.write(src.get());
          }
          src.position(src.limit());
        }

        @Override
        public void streamEnd(List<? extends Header> trailers) {}

        @Override
        public void releaseResources() {}
      };
    }

    /** Hands an accepted response to the caller: done already, or replayed from the buffer. */
    void deliver(AsyncExecCallback caller) {
      if (handedOver) {
        return;
      }
      try {
        AsyncDataConsumer consumer = caller.handleResponse(this, details);
        if (consumer != null) {
          consumer.consume(ByteBuffer.wrap(body.toByteArray()));
          consumer.streamEnd(null);
        }
        caller.completed();
      } catch (HttpException | IOException | RuntimeException e) {
        caller.failed(e);
      }
    }
  }

  /**
   * Builds a {@link RelentAsyncExecChainHandler} from the settings every adapter shares ({@link
   * HttpAdapterBuilder}). Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<HttpResponse, Builder> {
    Builder() {}

    /**
     * Builds the handler.
     *
     * @return a new handler
     */
    public RelentAsyncExecChainHandler build() {
      return new RelentAsyncExecChainHandler(buildLoop(Hc5Access.INSTANCE));
    }
  }
}
