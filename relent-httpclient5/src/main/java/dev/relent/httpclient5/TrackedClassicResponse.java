package dev.relent.httpclient5;

import dev.relent.http.adapter.HttpCall;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;

/**
 * A classic response with the call it answered, so that {@link Hc5Access} can judge it. It takes
 * over the original's status, headers and entity; closing it closes that entity, which releases the
 * connection as closing the original would.
 */
final class TrackedClassicResponse extends BasicClassicHttpResponse implements Hc5Access.Tracked {
  private static final long serialVersionUID = 1L;

  private final transient HttpCall call;

  TrackedClassicResponse(ClassicHttpResponse original, HttpEntity entity, HttpCall call) {
    super(original.getCode(), original.getReasonPhrase());
    setVersion(original.getVersion());
    setHeaders(original.getHeaders());
    setEntity(entity);
    this.call = call;
  }

  @Override
  public HttpCall call() {
    return call;
  }
}
