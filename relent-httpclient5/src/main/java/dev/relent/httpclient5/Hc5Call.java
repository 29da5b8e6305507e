package dev.relent.httpclient5;

import dev.relent.http.DecisionTable;
import dev.relent.http.Idempotency;
import dev.relent.http.Redactor;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;

/**
 * One logical operation of {@link RelentExecChainHandler}: a copy of the request as it entered the
 * handler, with its {@code Idempotency-Key} set once, before the first send, and what the decision
 * table needs to know about it. Each attempt sends a fresh copy of it, because the elements after
 * the handler add headers to the request they are given. Confined to the executing thread.
 */
final class Hc5Call {
  private final ClassicHttpRequest request;
  final String method;
  final String uri;
  final String endpoint;
  final String key;
  final DecisionTable table;

  /** The number of the attempt in flight or last made. */
  int attempt;

  Hc5Call(ClassicHttpRequest original, String key, DecisionTable table, Redactor redactor) {
    ClassicRequestBuilder b = ClassicRequestBuilder.copy(original);
    if (key != null && original.getFirstHeader(Idempotency.HEADER) == null) {
      b.setHeader(Idempotency.HEADER, key);
    }
    this.request = b.build();
    this.method = original.getMethod();
    URI parsed = uriOf(original);
    this.uri = parsed != null ? parsed.toString() : original.getRequestUri();
    this.endpoint = parsed != null ? redactor.uri(parsed) : redactor.text(original.getRequestUri());
    this.key = key;
    this.table = table;
  }

  /** A request for one attempt; the entity is shared, which is why it must be repeatable. */
  ClassicHttpRequest forAttempt() {
    return ClassicRequestBuilder.copy(request).build();
  }

  private static URI uriOf(ClassicHttpRequest request) {
    try {
      return request.getUri();
    } catch (URISyntaxException e) {
      return null;
    }
  }
}
