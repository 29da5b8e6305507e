package dev.relent.spring;

import dev.relent.http.CallOptions;
import dev.relent.http.Idempotency;
import dev.relent.http.adapter.HttpCall;
import dev.relent.http.adapter.HttpCallLoop;
import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;

/** What the {@code RestClient} interceptor and the {@code WebClient} filter do alike. Stateless. */
final class SpringCalls {
  private SpringCalls() {}

  /**
   * Starts a call for a Spring request: its own {@code Idempotency-Key}, the {@link CallOptions} in
   * its attribute {@link RelentRestInterceptor#OPTIONS_ATTRIBUTE} (else the defaults), its headers
   * for the scopes. The body of every Spring request is resendable.
   */
  static HttpCall prepare(
      HttpCallLoop<?> loop,
      HttpMethod method,
      URI uri,
      HttpHeaders headers,
      Map<String, Object> attributes) {
    Object options = attributes.get(RelentRestInterceptor.OPTIONS_ATTRIBUTE);
    return loop.prepare(
        method.name(),
        uri.toString(),
        headers.getFirst(Idempotency.HEADER),
        options instanceof CallOptions ? (CallOptions) options : CallOptions.ofDefaults(),
        true,
        headers::getFirst);
  }
}
