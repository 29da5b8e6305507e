package dev.relent.mockserver;

import io.netty.handler.codec.http.HttpRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request and the answer decided for it. Owned by its connection's event loop: created when the
 * request line arrives, filled by {@link Engine}, consumed by {@link Connection}. Not thread-safe,
 * and never needs to be.
 */
final class ServerExchange {

  final HttpRequest request;
  final String method;
  final String uri;
  final String path;
  final String ip;
  final String remote;
  final long arrivedMillis;
  final boolean keepAlive;
  final String origin;
  final long seq;

  boolean admin;

  // The body as it streams in: its size and digest always, its bytes only when needed.
  long bodyBytes;
  byte[] bodyDigest;
  ByteArrayOutputStream body;
  boolean tooLarge;

  // The decision.
  Engine.EndpointState endpoint;
  CompiledStep step;
  boolean renderStepHeaders;
  String outcome;
  int status;
  byte[] responseBody;
  String contentType;
  final List<String> extra = new ArrayList<>(8);
  InjectedFault fault;
  int cut;
  long stallNanos = -1;
  long delayNanos;
  boolean resourceCreate;

  // Counters this request holds until its answer is complete or its connection closes.
  private final AtomicInteger[] permits = new AtomicInteger[3];
  private int permitCount;

  ServerExchange(
      HttpRequest request,
      String path,
      String ip,
      String remote,
      long arrivedMillis,
      boolean keepAlive,
      long seq) {
    this.request = request;
    this.method = request.method().name();
    this.uri = request.uri();
    this.path = path;
    this.ip = ip;
    this.remote = remote;
    this.arrivedMillis = arrivedMillis;
    this.keepAlive = keepAlive;
    this.origin = request.headers().get("Origin");
    this.seq = seq;
  }

  void header(String name, String value) {
    extra.add(name);
    extra.add(value);
  }

  /** Answers with {@code json} as an {@code application/json} body. */
  void json(int status, String json) {
    this.status = status;
    this.responseBody = json.getBytes(StandardCharsets.UTF_8);
    this.contentType = "application/json";
  }

  void hold(AtomicInteger counter) {
    permits[permitCount++] = counter;
  }

  /** Gives back every counter held; safe to call twice. */
  void release() {
    for (int i = 0; i < permitCount; i++) {
      permits[i].decrementAndGet();
      permits[i] = null;
    }
    permitCount = 0;
  }

  /** Takes the answer of {@code s}: status, body and fault; its headers are rendered at send. */
  void answerWith(CompiledStep s) {
    step = s;
    renderStepHeaders = true;
    status = s.status;
    responseBody = s.body;
    contentType = s.hasContentType ? null : s.contentType;
    fault = s.fault;
    cut = s.cut;
    stallNanos = s.stallNanos;
    delayNanos += s.delayNanos;
  }
}
