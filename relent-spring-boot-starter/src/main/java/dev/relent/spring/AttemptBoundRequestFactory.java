package dev.relent.spring;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.AbstractBufferingClientHttpRequest;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;

/**
 * A request factory over one JDK {@code HttpClient} whose requests read their time limit from
 * {@link RelentRestInterceptor#ATTEMPT_TIMEOUT_ATTRIBUTE} when they are executed, which is after
 * the interceptor set it: Spring copies a request's attributes onto the request it creates, but
 * only after creating it, so the limit cannot be chosen in {@link #createRequest}. Thread-safe.
 */
final class AttemptBoundRequestFactory implements ClientHttpRequestFactory {
  private final HttpClient client;
  private final JdkClientHttpRequestFactory unbounded;

  AttemptBoundRequestFactory(HttpClient client) {
    this.client = Objects.requireNonNull(client, "client cannot be null");
    this.unbounded = new JdkClientHttpRequestFactory(client);
  }

  @Override
  public ClientHttpRequest createRequest(URI uri, HttpMethod method) {
    return new AttemptRequest(uri, method);
  }

  private final class AttemptRequest extends AbstractBufferingClientHttpRequest {
    private final URI uri;
    private final HttpMethod method;

    AttemptRequest(URI uri, HttpMethod method) {
      this.uri = uri;
      this.method = method;
    }

    @Override
    public HttpMethod getMethod() {
      return method;
    }

    @Override
    public URI getURI() {
      return uri;
    }

    @Override
    protected ClientHttpResponse executeInternal(HttpHeaders headers, byte[] body)
        throws IOException {
      Object limit = getAttributes().get(RelentRestInterceptor.ATTEMPT_TIMEOUT_ATTRIBUTE);
      ClientHttpRequestFactory factory = unbounded;
      if (limit instanceof Duration) {
        JdkClientHttpRequestFactory bounded = new JdkClientHttpRequestFactory(client);
        bounded.setReadTimeout((Duration) limit);
        factory = bounded;
      }
      ClientHttpRequest request = factory.createRequest(uri, method);
      request.getHeaders().putAll(headers);
      if (body.length > 0) {
        request.getBody().write(body);
      }
      return request.execute();
    }
  }
}
