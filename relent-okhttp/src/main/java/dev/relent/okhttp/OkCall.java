package dev.relent.okhttp;

import dev.relent.http.DecisionTable;
import dev.relent.http.Idempotency;
import dev.relent.http.Redactor;
import okhttp3.Request;

/**
 * One logical operation of {@link RelentInterceptor}: the request with its {@code Idempotency-Key}
 * set once, before the first send, and what the decision table needs to know about it. It rides
 * along as a tag of every attempt's request, so that {@link OkHttpAccess} can judge a response.
 * Confined to the thread that runs the interceptor.
 */
final class OkCall {
  final Request request;
  final String method;
  final String uri;
  final String endpoint;
  final String key;
  final DecisionTable table;

  /** The number of the attempt in flight or last made; written by the interceptor's thread. */
  int attempt;

  OkCall(Request original, String key, DecisionTable table, Redactor redactor) {
    Request.Builder b = original.newBuilder();
    if (key != null && original.header(Idempotency.HEADER) == null) {
      b.header(Idempotency.HEADER, key);
    }
    this.request = b.tag(OkCall.class, this).build();
    this.method = original.method();
    this.uri = original.url().toString();
    this.endpoint = redactor.uri(original.url().uri());
    this.key = key;
    this.table = table;
  }
}
