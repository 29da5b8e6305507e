package dev.relent.httpclient5;

import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;

/**
 * A response with the call it answered and its attempt number, so that {@link Hc5Access} can judge
 * it. It takes over the original's status, headers and entity; closing it closes that entity, which
 * releases the connection as closing the original would.
 */
final class TrackedResponse extends BasicClassicHttpResponse {
  private static final long serialVersionUID = 1L;

  final transient Hc5Call call;
  final int attempt;

  TrackedResponse(ClassicHttpResponse original, HttpEntity entity, Hc5Call call, int attempt) {
    super(original.getCode(), original.getReasonPhrase());
    setVersion(original.getVersion());
    setHeaders(original.getHeaders());
    setEntity(entity);
    this.call = call;
    this.attempt = attempt;
  }
}
