package dev.relent.proxy;

import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;

/**
 * One upstream answer as the proxy's attempt loop sees it: the request's method, URI and key, the
 * status and headers, and the body, either read into memory (an answer the decision table retries
 * or holds back, at most the adapter's buffered-body limit) or still on its upstream connection, to
 * be streamed to the caller. It is the response type of the proxy's {@link
 * dev.relent.http.adapter.HttpCallLoop}: a caller of {@link RelentProxy} never holds one, but
 * {@link RelentProxy.Builder#withExecutor} speaks of it.
 *
 * <p>Owned by one call at a time; not thread-safe.
 */
public final class ProxyResponse {
  private final String method;
  private final String uri;
  private final boolean keyed;
  private final HttpResponse head;
  private final HeaderLookup headers;
  private final ByteBuf body;
  private final boolean cut;
  private final UpstreamAttempt stream;
  private final DecisionTable table;

  ProxyResponse(
      String method,
      String uri,
      boolean keyed,
      HttpResponse head,
      ByteBuf body,
      boolean cut,
      UpstreamAttempt stream,
      DecisionTable table) {
    this.table = table;
    this.method = method;
    this.uri = uri;
    this.keyed = keyed;
    this.head = head;
    HttpHeaders h = head.headers();
    this.headers = HeaderLookup.ofValues(h::getAll);
    this.body = body;
    this.cut = cut;
    this.stream = stream;
  }

  /**
   * Returns the status code the upstream answered.
   *
   * @return the status
   */
  public int status() {
    return head.status().code();
  }

  String method() {
    return method;
  }

  String uri() {
    return uri;
  }

  boolean keyed() {
    return keyed;
  }

  /** The call's own decision table (a body sent once is judged without re-sends), or null. */
  DecisionTable table() {
    return table;
  }

  HeaderLookup headers() {
    return headers;
  }

  HttpResponse head() {
    return head;
  }

  /** The body read into memory, or null when it streams from {@link #stream()}. */
  ByteBuf body() {
    return body;
  }

  /** Whether the buffered body is only the first part of the upstream's. */
  boolean cut() {
    return cut;
  }

  /** The attempt whose connection still carries the body, or null when it was buffered. */
  UpstreamAttempt stream() {
    return stream;
  }

  /** Frees what the response holds: its buffered body, or its upstream connection. */
  void release() {
    if (body != null && body.refCnt() > 0) {
      body.release();
    }
    if (stream != null) {
      stream.abort();
    }
  }
}
