package dev.relent.spring;

import dev.relent.RelentException;
import dev.relent.RetryPolicy;
import dev.relent.http.CallOptions;
import dev.relent.http.CallResult;
import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import dev.relent.http.HttpFaultException;
import dev.relent.http.Idempotency;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.adapter.Exchange;
import dev.relent.http.adapter.HttpAdapter;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.HttpCallLoop;
import dev.relent.http.adapter.ResponseAccess;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;
import org.springframework.web.client.RestClientException;

/**
 * Relent's HTTP behaviour as a Spring {@link ClientHttpRequestInterceptor}, for {@code RestClient}
 * and {@code RestTemplate}: every call runs under one executor shared by all calls of the
 * interceptor, judged by the same {@link DecisionTable}, keys and hints as every other Relent
 * adapter, waiting as the server asks, logging one redacted line per attempt. Each attempt calls
 * the rest of the chain again ({@code execution.execute}), as Spring Framework 7 allows.
 *
 * <pre>{@code
 * RestClient client =
 *     RestClient.builder()
 *         .requestFactory(RelentRestInterceptor.requestFactory(HttpClient.newHttpClient()))
 *         .requestInterceptor(RelentRestInterceptor.builder().build())
 *         .build();
 * }</pre>
 *
 * <p>With the starter, {@link RelentRestClients#restClient(String)} does this from the properties
 * of a named client.
 *
 * <p>Contract: a response the table accepts or stops at (a 404) is returned as it is; every give-up
 * is a {@link RestClientException} with Relent's exception as its cause ({@link RelentException}
 * when the executor gives up; {@link NotRetriedWriteException} and {@link HttpFaultException} as
 * {@code IOException}s, which Spring wraps in a {@code ResourceAccessException}). A request's
 * {@code Idempotency-Key} header is kept, a {@link CallOptions} in the attribute {@link
 * #OPTIONS_ATTRIBUTE} may give one, and every attempt carries the key chosen before the first send.
 * Each attempt's time limit is in the attribute {@link #ATTEMPT_TIMEOUT_ATTRIBUTE}, which {@link
 * #requestFactory(java.net.http.HttpClient)}'s factory applies (another factory keeps its own
 * timeouts); for a request that may be re-sent, the body is read inside the attempt up to {@link
 * Builder#withAttemptBodyLimit(int)} (default <b>1 MiB</b>), so a stalled or cut body is retried.
 * {@link #callResult(ClientHttpResponse)} tells what a call did. The exceptions, time limits and
 * body rules in full: docs/spring-boot.md, sections "Time limits" and "Outcomes".
 *
 * <p>Thread-safe: build one per downstream and share it.
 */
public final class RelentRestInterceptor extends HttpAdapter<ClientHttpResponse>
    implements ClientHttpRequestInterceptor {
  /** The request attribute holding an attempt's time limit, a {@link Duration}. */
  public static final String ATTEMPT_TIMEOUT_ATTRIBUTE = "dev.relent.spring.attemptTimeout";

  /** The request attribute a call's {@link CallOptions} may be given in. */
  public static final String OPTIONS_ATTRIBUTE = "dev.relent.spring.callOptions";

  /** The default of {@link Builder#withAttemptBodyLimit(int)}: 1 MiB. */
  public static final int DEFAULT_ATTEMPT_BODY_LIMIT = 1 << 20;

  /** The largest {@link Builder#withAttemptBodyLimit(int)}: 1 GiB. */
  public static final int MAX_ATTEMPT_BODY_LIMIT = 1 << 30;

  private final int attemptBodyLimit;

  private RelentRestInterceptor(HttpCallLoop<ClientHttpResponse> loop, int attemptBodyLimit) {
    super(loop);
    this.attemptBodyLimit = attemptBodyLimit;
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
  public static RelentRestInterceptor ofDefaults() {
    return builder().build();
  }

  /**
   * Returns a request factory over a JDK {@code HttpClient} that bounds each attempt by {@link
   * #ATTEMPT_TIMEOUT_ATTRIBUTE}, as the JDK client's per-request timeout (until the response's
   * headers) and a read timeout on its body.
   *
   * @param client the client; it is shared, and its connect timeout is its own
   * @return a new factory
   * @throws NullPointerException if {@code client} is null
   */
  public static org.springframework.http.client.ClientHttpRequestFactory requestFactory(
      java.net.http.HttpClient client) {
    return new AttemptBoundRequestFactory(client);
  }

  /**
   * Returns what the interceptor did for a response it returned.
   *
   * @param response a response returned through a {@code RelentRestInterceptor}
   * @return the result, or empty when the response did not pass one
   * @throws NullPointerException if {@code response} is null
   */
  public static Optional<CallResult> callResult(ClientHttpResponse response) {
    Objects.requireNonNull(response, "response cannot be null");
    return response instanceof Tracked
        ? Optional.ofNullable(((Tracked) response).call.result())
        : Optional.empty();
  }

  /**
   * Runs one call: sets its key, makes attempts until the executor accepts a response or gives up.
   *
   * @param request the request
   * @param body the request body, sent again with every attempt
   * @param execution the rest of the chain
   * @return the accepted response
   * @throws NotRetriedWriteException if an unkeyed write failed after it may have reached the
   *     server
   * @throws HttpFaultException if a network fault the table does not retry ended the call
   * @throws RestClientException if the executor gave up, with its {@link RelentException} as the
   *     cause and the message
   * @throws java.io.InterruptedIOException if the thread was interrupted while waiting
   */
  @Override
  public ClientHttpResponse intercept(
      HttpRequest request, byte[] body, ClientHttpRequestExecution execution) throws IOException {
    HttpHeaders headers = request.getHeaders();
    HttpCall call =
        SpringCalls.prepare(
            loop(), request.getMethod(), request.getURI(), headers, request.getAttributes());
    HttpHeaders keyed = new HttpHeaders(headers);
    if (call.key() != null && headers.getFirst(Idempotency.HEADER) == null) {
      keyed.set(Idempotency.HEADER, call.key());
    }
    try {
      return loop().execute(call, new RestExchange(request, keyed, body, execution, call));
    } catch (RelentException e) {
      // RestClient and RestTemplate pass a RuntimeException through as it is; their callers
      // handle RestClientException, so a give-up is one, with the same message.
      throw new RestClientException(e.getMessage(), e);
    }
  }

  /** Spring's glue for one call: execute the chain with the attempt's limit, buffer the body. */
  private final class RestExchange implements Exchange<ClientHttpResponse, IOException> {
    private final HttpRequest request;
    private final HttpHeaders headers;
    private final byte[] body;
    private final ClientHttpRequestExecution execution;
    private final HttpCall call;

    RestExchange(
        HttpRequest request,
        HttpHeaders headers,
        byte[] body,
        ClientHttpRequestExecution execution,
        HttpCall call) {
      this.request = request;
      this.headers = headers;
      this.body = body;
      this.execution = execution;
      this.call = call;
    }

    @Override
    public ClientHttpResponse send(long timeoutNanos) throws IOException {
      request.getAttributes().put(ATTEMPT_TIMEOUT_ATTRIBUTE, Duration.ofNanos(timeoutNanos));
      HttpHeaders attempt = headers;
      Map<String, String> extra = call.attemptHeaders();
      if (!extra.isEmpty()) {
        attempt = new HttpHeaders(headers);
        extra.forEach(attempt::set); // the call observers' headers, this attempt only
      }
      HttpHeaders sent = attempt;
      ClientHttpResponse response =
          execution.execute(
              new HttpRequestWrapper(request) {
                @Override
                public HttpHeaders getHeaders() {
                  return sent;
                }
              },
              body);
      if (!bodyInAttempt(response)) {
        return new Tracked(response, call, null, false);
      }
      try {
        byte[] head = response.getBody().readNBytes(attemptBodyLimit + 1);
        if (head.length <= attemptBodyLimit) {
          // The whole body: keep it, and give the connection back now.
          Tracked whole = new Tracked(response, call, head, true);
          response.close();
          return whole;
        }
        return new Tracked(response, call, head, false);
      } catch (IOException | RuntimeException e) {
        response.close();
        throw e;
      }
    }

    /**
     * Whether the body is read inside the attempt: for a call that may be re-sent, up to the limit;
     * a body whose length says it is larger streams after the attempt, unread.
     */
    private boolean bodyInAttempt(ClientHttpResponse response) {
      if (attemptBodyLimit == 0 || !Idempotency.isSafeToResend(call.method(), call.key() != null)) {
        return false;
      }
      long length = response.getHeaders().getContentLength();
      return length <= attemptBodyLimit; // -1: unknown, read up to the limit
    }

    @Override
    public ClientHttpResponse buffer(ClientHttpResponse response) throws IOException {
      Tracked tracked = (Tracked) response;
      if (tracked.whole) {
        return tracked;
      }
      try (ClientHttpResponse open = tracked.delegate) {
        InputStream in = tracked.getBody();
        byte[] copy = in.readNBytes(loop().maxBufferedBody());
        return new Tracked(open, call, copy, true);
      }
    }
  }

  /**
   * A response with the call it answered, and its status read once (reading it may throw, and the
   * table must not). Its body is the delegate's as it is ({@code head} null), or the bytes read
   * ahead followed by the rest of the delegate's, or ({@code whole}) the bytes read, which were all
   * of it or all that is kept: a whole one holds no connection.
   */
  private static final class Tracked implements ClientHttpResponse {
    final ClientHttpResponse delegate;
    final HttpCall call;
    final int status;
    final boolean whole;
    private final HttpStatusCode statusCode;
    private final String statusText;
    private final byte[] head;
    private InputStream body;

    Tracked(ClientHttpResponse delegate, HttpCall call, byte[] head, boolean whole)
        throws IOException {
      this.delegate = delegate;
      this.call = call;
      this.statusCode = delegate.getStatusCode();
      this.status = statusCode.value();
      this.statusText = whole ? delegate.getStatusText() : null;
      this.head = head;
      this.whole = whole;
    }

    @Override
    public HttpStatusCode getStatusCode() {
      return statusCode;
    }

    @Override
    public String getStatusText() throws IOException {
      return whole ? statusText : delegate.getStatusText();
    }

    @Override
    public HttpHeaders getHeaders() {
      return delegate.getHeaders();
    }

    @Override
    public InputStream getBody() throws IOException {
      if (head == null) {
        return delegate.getBody();
      }
      if (body == null) {
        InputStream read = new ByteArrayInputStream(head);
        body = whole ? read : new SequenceInputStream(read, delegate.getBody());
      }
      return body;
    }

    @Override
    public void close() {
      if (!whole) {
        delegate.close();
      }
    }
  }

  /** Reads a {@link Tracked} response; any other is read from what it has. */
  private enum Access implements ResponseAccess<ClientHttpResponse> {
    INSTANCE;

    @Override
    public String method(ClientHttpResponse response) {
      return ((Tracked) response).call.method();
    }

    @Override
    public String uri(ClientHttpResponse response) {
      return ((Tracked) response).call.uri();
    }

    @Override
    public boolean keyed(ClientHttpResponse response) {
      return ((Tracked) response).call.key() != null;
    }

    @Override
    public int status(ClientHttpResponse response) {
      return ((Tracked) response).status;
    }

    @Override
    public HeaderLookup headers(ClientHttpResponse response) {
      return HeaderLookup.ofValues(response.getHeaders()::getOrEmpty);
    }

    @Override
    public DecisionTable table(ClientHttpResponse response) {
      return ((Tracked) response).call.table();
    }
  }

  /**
   * Builds a {@link RelentRestInterceptor} from the settings every adapter shares ({@link
   * HttpAdapterBuilder}). Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<ClientHttpResponse, Builder> {
    private int attemptBodyLimit = DEFAULT_ATTEMPT_BODY_LIMIT;

    Builder() {}

    /**
     * Sets the largest response body read inside the attempt for a request that may be re-sent (an
     * idempotent method, or one with a key), so that the attempt's time limit covers it and a body
     * that stalls or breaks off is retried; a larger one streams to the caller after the attempt.
     * Default {@link #DEFAULT_ATTEMPT_BODY_LIMIT 1 MiB}.
     *
     * @param bytes at most {@link #MAX_ATTEMPT_BODY_LIMIT 1 GiB}; 0 reads no body in the attempt
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is negative or above 1 GiB
     */
    public Builder withAttemptBodyLimit(int bytes) {
      if (bytes < 0 || bytes > MAX_ATTEMPT_BODY_LIMIT) {
        throw new IllegalArgumentException(
            "attemptBodyLimit must be between 0 and 1 GiB: " + bytes + " bytes");
      }
      this.attemptBodyLimit = bytes;
      return this;
    }

    /**
     * Builds the interceptor.
     *
     * @return a new interceptor
     */
    public RelentRestInterceptor build() {
      return new RelentRestInterceptor(buildLoop(Access.INSTANCE), attemptBodyLimit);
    }
  }
}
