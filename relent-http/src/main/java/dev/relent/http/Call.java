package dev.relent.http;

import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * One logical operation of {@link RelentHttpClient}: the request with its key set once, before the
 * first send, and what the decision table needs to know about it. Immutable.
 */
final class Call {
  final HttpRequest request;
  final String method;
  final String uri;
  final String endpoint;
  final String key;
  final DecisionTable table;

  Call(HttpRequest request, String key, DecisionTable table, Redactor redactor) {
    this.request = request;
    this.method = request.method();
    this.uri = String.valueOf(request.uri());
    this.endpoint = redactor.uri(request.uri());
    this.key = key;
    this.table = table;
  }

  /** The request for one attempt: the caller's timeout, if shorter, else the attempt's. */
  HttpRequest forAttempt(long timeoutNanos) {
    Duration limit = Duration.ofNanos(Math.max(1_000_000L, timeoutNanos));
    Duration own = request.timeout().orElse(null);
    if (own != null && own.compareTo(limit) <= 0) {
      return request;
    }
    return HttpRequest.newBuilder(request, (name, value) -> true).timeout(limit).build();
  }
}
