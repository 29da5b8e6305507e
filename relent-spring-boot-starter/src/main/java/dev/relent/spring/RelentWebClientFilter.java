package dev.relent.spring;

import dev.relent.RelentException;
import dev.relent.RetryPolicy;
import dev.relent.http.CallOptions;
import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.adapter.HttpAdapter;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.HttpCallLoop;
import dev.relent.http.adapter.ResponseAccess;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Relent's HTTP behaviour as a Spring {@link ExchangeFilterFunction}, for {@code WebClient}, on the
 * asynchronous path of the same loop as every other adapter: one executor shared by all calls of
 * the filter, the same {@link DecisionTable}, keys and hints, waits on the executor's scheduler (no
 * thread blocked), one redacted log line per attempt.
 *
 * <pre>{@code
 * WebClient client = WebClient.builder().filter(RelentWebClientFilter.builder().build()).build();
 * }</pre>
 *
 * <p>With the starter, {@link RelentWebClients#webClient(String)} does this from the properties of
 * a named client. Do not combine it with Reactor's {@code retryWhen} on the same call: attempts
 * would multiply across the two layers.
 *
 * <p><b>Outcomes</b>, delivered as the {@code Mono}'s error: every give-up is a {@link
 * WebClientRequestException}, as WebClient's own failure to get an answer is, with the request's
 * method, URI and headers and Relent's exception as its cause and message: the executor's {@link
 * RelentException} when it gives up; a {@link NotRetriedWriteException} for a write without {@code
 * Idempotency-Key} that may have reached the server; an {@link HttpFaultException} for a network
 * fault the table does not retry. A {@code WebClientRequestException} of an attempt is judged by
 * the {@code IOException} it wraps, as the other adapters judge their client's. Cancelling the
 * subscription cancels the attempt in flight and the waits.
 *
 * <p><b>Idempotency keys.</b> A request with an {@code Idempotency-Key} header keeps it; a {@link
 * CallOptions} in the request attribute {@link RelentRestInterceptor#OPTIONS_ATTRIBUTE} may give
 * one, or a decision table of its own; {@link Builder#withIdempotencyKeys(boolean)} keys every POST
 * and PATCH. The key is chosen once per subscription, before the first send.
 *
 * <p><b>Resources and time.</b> The executor cancels an attempt whose time (the attempt timeout or
 * what is left of the deadline) is up. A response the table would retry (or hold back) has its body
 * read into memory, at most {@link Builder#withMaxBufferedBody(int) 64 KiB}, before the executor
 * decides; any other is handed on as it arrives. The request's body inserter is written again for
 * every attempt, as with Reactor's own retries: a body from a publisher that can be subscribed once
 * cannot be resent. A response is judged by the request it names ({@code
 * ClientResponse.request()}); one without (a hand-made response of a test's exchange function) is
 * judged as a request of an unknown method, which the table never re-sends after it may have been
 * sent.
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentWebClientFilter extends HttpAdapter<ClientResponse>
    implements ExchangeFilterFunction {
  /** The request attribute the filter puts each call in, for the response to be judged by. */
  static final String CALL_ATTRIBUTE = "dev.relent.spring.call";

  private RelentWebClientFilter(HttpCallLoop<ClientResponse> loop) {
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
   * Returns a filter with every setting at its default: {@link RetryPolicy#ofDefaults()}, {@link
   * DecisionTable#ofDefaults()}, no guards, the system time sources.
   *
   * @return a new filter
   */
  public static RelentWebClientFilter ofDefaults() {
    return builder().build();
  }

  /**
   * Runs one call per subscription: sets its key, makes attempts through {@code next} until the
   * executor accepts a response or gives up.
   *
   * @param request the request
   * @param next the rest of the chain
   * @return the accepted response, or the error the call ended with (a {@code
   *     WebClientRequestException} when Relent gave up)
   */
  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    return Mono.defer(
        () -> {
          HttpHeaders headers = request.headers();
          HttpCall call =
              SpringCalls.prepare(
                  loop(), request.method(), request.url(), headers, request.attributes());
          // The call rides along as an attribute, which Spring copies onto the request it sends
          // and a response names: so that the table judges the response by this call's key and
          // table.
          ClientRequest.Builder b = ClientRequest.from(request).attribute(CALL_ATTRIBUTE, call);
          if (call.key() != null && headers.getFirst(Idempotency.HEADER) == null) {
            b.header(Idempotency.HEADER, call.key());
          }
          ClientRequest keyed = b.build();
          return Mono.fromFuture(
                  () -> loop().executeAsync(call, timeoutNanos -> attempt(call, keyed, next)),
                  false)
              .onErrorMap(RelentWebClientFilter::isGiveUp, e -> giveUp(e, keyed));
        });
  }

  /** The errors a call ends with when Relent gives up: the executor's, and the two IOExceptions. */
  private static boolean isGiveUp(Throwable e) {
    return e instanceof RelentException || e instanceof IOException;
  }

  /**
   * A give-up as the {@code WebClientRequestException} WebClient itself delivers when a request
   * gets no answer, so that a handler of {@code WebClientException} sees every failure of a call;
   * the message is the cause's.
   */
  private static WebClientRequestException giveUp(Throwable e, ClientRequest request) {
    return new WebClientRequestException(e, request.method(), request.url(), request.headers());
  }

  private CompletableFuture<ClientResponse> attempt(
      HttpCall call, ClientRequest request, ExchangeFunction next) {
    Map<String, String> extra = call.attemptHeaders();
    ClientRequest sent =
        extra.isEmpty()
            ? request
            : ClientRequest.from(request).headers(h -> extra.forEach(h::set)).build();
    return next.exchange(sent)
        .onErrorMap(WebClientRequestException.class, RelentWebClientFilter::ioFailure)
        .flatMap(
            response ->
                loop()
                        .needsBuffer(
                            call, response.statusCode().value(), Access.INSTANCE.headers(response))
                    ? buffer(response)
                    : Mono.just(response))
        .toFuture();
  }

  /** The client's failure as the IOException it wraps, so that the table judges it as a fault. */
  private static Throwable ioFailure(WebClientRequestException e) {
    return e.getCause() instanceof IOException ? e.getCause() : new IOException(e.getMessage(), e);
  }

  /** Reads at most the limit of the body into memory; the rest is not read, which frees it. */
  private Mono<ClientResponse> buffer(ClientResponse response) {
    int max = loop().maxBufferedBody();
    Flux<DataBuffer> body =
        DataBufferUtils.takeUntilByteCount(response.body(BodyExtractors.toDataBuffers()), max);
    return DataBufferUtils.join(body)
        .map(
            joined -> {
              byte[] copy = new byte[joined.readableByteCount()];
              joined.read(copy);
              DataBufferUtils.release(joined);
              return copy;
            })
        .defaultIfEmpty(new byte[0])
        .map(
            copy ->
                // The transforming body(...) replaces the body it is given, already read, without
                // subscribing to it; body(Flux) would release it, and a body read once fails that.
                response
                    .mutate()
                    .body(
                        read ->
                            Flux.defer(
                                () ->
                                    Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(copy))))
                    .build());
  }

  /** Reads a response through the call its request carries, else through the request itself. */
  private enum Access implements ResponseAccess<ClientResponse> {
    INSTANCE;

    /** What a response without a request is judged as: never re-sent once it may have been. */
    private static final String UNKNOWN = "UNKNOWN";

    private static HttpCall call(HttpRequest request) {
      Object call = request == null ? null : request.getAttributes().get(CALL_ATTRIBUTE);
      return call instanceof HttpCall ? (HttpCall) call : null;
    }

    @Override
    public String method(ClientResponse response) {
      HttpRequest request = response.request();
      HttpCall call = call(request);
      return call != null ? call.method() : request == null ? UNKNOWN : request.getMethod().name();
    }

    @Override
    public String uri(ClientResponse response) {
      HttpRequest request = response.request();
      HttpCall call = call(request);
      return call != null ? call.uri() : request == null ? "" : request.getURI().toString();
    }

    @Override
    public boolean keyed(ClientResponse response) {
      HttpRequest request = response.request();
      HttpCall call = call(request);
      return call != null
          ? call.key() != null
          : request != null && request.getHeaders().getFirst(Idempotency.HEADER) != null;
    }

    @Override
    public DecisionTable table(ClientResponse response) {
      HttpCall call = call(response.request());
      return call != null ? call.table() : null;
    }

    @Override
    public int status(ClientResponse response) {
      return response.statusCode().value();
    }

    @Override
    public HeaderLookup headers(ClientResponse response) {
      return HeaderLookup.ofValues(response.headers().asHttpHeaders()::getOrEmpty);
    }
  }

  /**
   * Builds a {@link RelentWebClientFilter} from the settings every adapter shares ({@link
   * HttpAdapterBuilder}). Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<ClientResponse, Builder> {
    Builder() {}

    /**
     * Builds the filter.
     *
     * @return a new filter
     */
    public RelentWebClientFilter build() {
      return new RelentWebClientFilter(buildLoop(Access.INSTANCE));
    }
  }
}
