package dev.relent.proxy;

import dev.relent.http.AttemptRecord;
import dev.relent.http.CallOptions;
import dev.relent.http.HeaderLookup;
import dev.relent.http.Idempotency;
import dev.relent.http.adapter.HttpCall;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request from a caller, from its head to the last byte of the answer, on the caller's
 * connection's event loop.
 *
 * <p><b>The body.</b> Parts are kept in memory until the body ends or passes the proxy's limit. A
 * body that ended is sent with every attempt ({@code Content-Length} set). A longer one is sent
 * once, as it arrives: the call starts at once and is judged by the table without re-sends (only
 * faults where nothing was sent are retried); its parts move to the upstream one read at a time
 * (the caller's connection reads the next part only after the last was written).
 *
 * <p><b>The attempts</b> are relent-http's loop's ({@link
 * dev.relent.http.adapter.HttpCallLoop#executeAsync}); each is an {@link UpstreamAttempt}. The
 * accepted answer's body is then streamed to the caller through {@link #onContent} of a {@link
 * UpstreamAttempt.Sink}: the next upstream read is asked for only once the caller's connection took
 * the last part. A give-up is answered with a problem body ({@link GiveUp}).
 */
final class ProxyCall {
  /** The response header that says how many requests the proxy sent upstream for this one. */
  static final String ATTEMPTS = "Relent-Attempts";

  /** The response header that gives the reason when the proxy gave up. */
  static final String GIVE_UP = "Relent-Give-Up";

  /** The response header set when the request body was too long to keep and was sent once. */
  static final String BODY_ONCE = "Relent-Request-Body";

  /** The response header carrying the key the proxy gave a write. */
  static final String KEY = "Relent-Idempotency-Key";

  private final RelentProxy proxy;
  private final ClientConnection connection;
  private final ChannelHandlerContext ctx;
  private final HttpRequest request;
  private final Upstreams.Origin origin;
  private final String target;
  private final String uri;
  private final boolean keepAlive;
  private final long deadlineNanos;
  private final boolean keyRoute;

  private CompositeByteBuf kept;
  private boolean bodyEnded;
  private boolean oneShot;
  private ArrayDeque<HttpContent> oneShotQueue;
  private Channel oneShotTarget;
  private UpstreamAttempt oneShotAttempt;
  private boolean oneShotTaken;
  private long bodyBytes;

  private HttpCall call;
  private CompletableFuture<ProxyResponse> future;
  private boolean answered;
  private ScheduledFuture<?> deadlineTimer;

  /** The attempt whose body streams to the caller, once the answer was accepted. */
  private volatile UpstreamAttempt streaming;

  ProxyCall(
      RelentProxy proxy,
      ClientConnection connection,
      ChannelHandlerContext ctx,
      HttpRequest request,
      Upstreams.Origin origin,
      String target,
      long deadlineNanos) {
    this.proxy = proxy;
    this.connection = connection;
    this.ctx = ctx;
    this.request = request;
    this.origin = origin;
    this.target = target;
    this.uri = origin + target;
    this.keepAlive = HttpUtil.isKeepAlive(request);
    this.deadlineNanos = deadlineNanos;
    this.keyRoute = proxy.keysRoute(request.method().name(), pathOf(target));
  }

  private static String pathOf(String target) {
    int q = target.indexOf('?');
    return q < 0 ? target : target.substring(0, q);
  }

  /** The caller's event loop, where its upstream exchanges run too. */
  io.netty.channel.EventLoop eventLoop() {
    return ctx.channel().eventLoop();
  }

  Upstreams.Origin origin() {
    return origin;
  }

  String method() {
    return request.method().name();
  }

  String uri() {
    return uri;
  }

  boolean keyed() {
    return call != null && call.key() != null;
  }

  dev.relent.http.DecisionTable table() {
    return call.table();
  }

  int maxBufferedBody() {
    return proxy.callLoop().maxBufferedBody();
  }

  boolean upstreamKeepAlive() {
    return true;
  }

  boolean needsBuffer(int status, HttpResponse head) {
    return proxy
        .callLoop()
        .needsBuffer(call, status, HeaderLookup.ofValues(head.headers()::getAll));
  }

  // ---- the request body, on the caller's event loop

  /** One part of the caller's body. Takes ownership of {@code content}. */
  void onContent(HttpContent content) {
    boolean last = content instanceof LastHttpContent;
    bodyBytes += content.content().readableBytes();
    if (oneShot) {
      oneShotPart(content, last);
      return;
    }
    ByteBuf part = content.content();
    if (part.isReadable()) {
      if (kept == null) {
        kept = ctx.alloc().compositeBuffer();
      }
      kept.addComponent(true, part.retain());
    }
    content.release();
    if (kept != null && kept.readableBytes() > proxy.maxRequestBody()) {
      // Too long to keep for a resend: it goes once, as it arrives.
      oneShot = true;
      oneShotQueue = new ArrayDeque<>();
      oneShotQueue.add(
          last
              ? new DefaultLastHttpContent(kept)
              : new io.netty.handler.codec.http.DefaultHttpContent(kept));
      kept = null;
      bodyEnded = last;
      ctx.channel().config().setAutoRead(false);
      begin(false);
      return;
    }
    if (last) {
      bodyEnded = true;
      begin(true);
    }
  }

  private void oneShotPart(HttpContent content, boolean last) {
    bodyEnded |= last;
    if (oneShotTarget != null) {
      writeOneShot(content);
    } else {
      oneShotQueue.add(content);
    }
  }

  private void writeOneShot(HttpContent content) {
    boolean last = content instanceof LastHttpContent;
    UpstreamAttempt a = oneShotAttempt;
    oneShotTarget
        .writeAndFlush(content)
        .addListener(
            w -> {
              a.failIfNot(w);
              if (w.isSuccess() && !last) {
                ctx.read();
              }
            });
  }

  /** Whether the caller's connection went away before its body ended. */
  boolean bodyIncomplete() {
    return !bodyEnded;
  }

  long bodyBytes() {
    return bodyBytes;
  }

  /** Writes the body of one attempt, after its head. On the upstream channel's event loop. */
  void writeBody(Channel ch, UpstreamAttempt attempt) {
    if (!oneShot) {
      ByteBuf body =
          kept == null || !kept.isReadable() ? Unpooled.EMPTY_BUFFER : kept.retainedDuplicate();
      ch.writeAndFlush(new DefaultLastHttpContent(body)).addListener(attempt::failIfNot);
      return;
    }
    ctx.executor()
        .execute(
            () -> {
              if (oneShotTaken) {
                attempt.onFailure(
                    new IllegalStateException(
                        "the request body was streamed once and cannot be sent again"));
                return;
              }
              oneShotTaken = true;
              oneShotTarget = ch;
              oneShotAttempt = attempt;
              HttpContent c;
              while ((c = oneShotQueue.poll()) != null) {
                writeOneShot(c);
              }
              if (!bodyEnded) {
                ctx.read();
              }
            });
  }

  /**
   * The head of one attempt's request: the caller's, without hop-by-hop headers, for the upstream.
   */
  HttpRequest headFor(int attempt) {
    HttpHeaders h = new DefaultHttpHeaders();
    h.add(request.headers());
    boolean framed =
        h.contains(HttpHeaderNames.CONTENT_LENGTH) || HttpUtil.isTransferEncodingChunked(request);
    HopByHop.strip(h);
    h.remove(HttpHeaderNames.EXPECT);
    h.remove(HopByHop.DEADLINE);
    h.remove(HttpHeaderNames.HOST);
    h.set(HttpHeaderNames.HOST, origin.authority());
    if (call.key() != null && !h.contains(Idempotency.HEADER)) {
      h.set(Idempotency.HEADER, call.key());
    }
    for (Map.Entry<String, String> e : call.attemptHeaders().entrySet()) {
      h.set(e.getKey(), e.getValue());
    }
    if (!oneShot) {
      int size = kept == null ? 0 : kept.readableBytes();
      h.remove(HttpHeaderNames.CONTENT_LENGTH);
      if (framed || size > 0) {
        h.set(HttpHeaderNames.CONTENT_LENGTH, size);
      }
    } else if (!h.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    return new DefaultHttpRequest(HttpVersion.HTTP_1_1, request.method(), target, h);
  }

  // ---- the attempts

  private void begin(boolean resendable) {
    String existing = request.headers().get(Idempotency.HEADER);
    CallOptions.Builder options = CallOptions.builder();
    if (proxy.attemptLines()) {
      options.withAttemptListener(this::attempted);
    }
    if (keyRoute && existing == null) {
      options.withIdempotencyKey();
    }
    call =
        proxy
            .callLoop()
            .prepare(
                method(),
                uri,
                existing,
                options.build(),
                resendable,
                HeaderLookup.ofValues(request.headers()::getAll));
    if (deadlineNanos > 0) {
      deadlineTimer =
          ctx.executor().schedule(this::deadlinePassed, deadlineNanos, TimeUnit.NANOSECONDS);
    }
    future =
        proxy
            .callLoop()
            .executeAsync(
                call,
                timeoutNanos ->
                    new UpstreamAttempt(this, proxy.upstreams(), call.attempts()).start());
    future.whenComplete(
        (response, failure) -> {
          if (ctx.executor().inEventLoop()) {
            finish(response, failure);
          } else {
            ctx.executor().execute(() -> finish(response, failure));
          }
        });
  }

  private void attempted(AttemptRecord record) {
    proxy.log().attempt(connection.listener(), record, oneShot);
  }

  private void deadlinePassed() {
    if (answered) {
      return;
    }
    answered = true;
    GiveUp g =
        new GiveUp(
            504,
            "deadline",
            "The request's deadline passed",
            "no answer within the " + HopByHop.DEADLINE + " of the request",
            -1,
            null);
    proxy
        .log()
        .giveUp(connection.listener(), method(), proxy.redactor().uri(uri), g, call.attempts());
    answer(g);
    future.cancel(true);
  }

  /** The caller's connection can take more: the upstream body may be read on. */
  void writable() {
    UpstreamAttempt s = streaming;
    if (s != null) {
      s.resume();
    }
  }

  ChannelHandlerContext connectionContext() {
    return ctx;
  }

  /** The caller's connection closed or was refused: the call, if running, is cancelled. */
  void cancel() {
    answered = true;
    if (future != null) {
      future.cancel(true);
    }
    releaseBody();
  }

  private void releaseBody() {
    if (kept != null && kept.refCnt() > 0) {
      kept.release();
    }
    kept = null;
    if (oneShotQueue != null) {
      HttpContent c;
      while ((c = oneShotQueue.poll()) != null) {
        ReferenceCountUtil.release(c);
      }
    }
  }

  private void finish(ProxyResponse response, Throwable failure) {
    if (deadlineTimer != null) {
      deadlineTimer.cancel(false);
    }
    releaseBody();
    if (answered || !ctx.channel().isActive()) {
      if (response != null) {
        response.release();
      } else if (failure != null) {
        GiveUp.of(failure, proxy.redactor(), proxy.now());
      }
      if (!answered) {
        connection.callEnded(this, false);
      }
      answered = true;
      return;
    }
    answered = true;
    if (response != null) {
      relay(response, null);
      return;
    }
    GiveUp g = GiveUp.of(failure, proxy.redactor(), proxy.now());
    proxy
        .log()
        .giveUp(connection.listener(), method(), proxy.redactor().uri(uri), g, call.attempts());
    if (g.passThrough() != null) {
      relay(g.passThrough(), g.reason());
    } else {
      answer(g);
    }
  }

  /** Answers a give-up with its problem body. */
  private void answer(GiveUp g) {
    ByteBuf body =
        Unpooled.copiedBuffer(
            g.problemJson(call == null ? 0 : call.attempts()),
            java.nio.charset.StandardCharsets.UTF_8);
    HttpResponse head =
        new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(g.status()));
    HttpHeaders h = head.headers();
    h.set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json");
    h.set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    h.set(ATTEMPTS, call == null ? 0 : call.attempts());
    h.set(GIVE_UP, g.reason());
    if (g.retryAfterSeconds() >= 0) {
      h.set(HttpHeaderNames.RETRY_AFTER, g.retryAfterSeconds());
    }
    ownHeaders(h);
    boolean alive = keepAlive && bodyEnded && connection.keepsAlive();
    if (!alive) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    ctx.write(head);
    ctx.writeAndFlush(new DefaultLastHttpContent(body))
        .addListener(f -> connection.callEnded(this, alive && f.isSuccess()));
  }

  private void ownHeaders(HttpHeaders h) {
    if (oneShot) {
      h.set(
          BODY_ONCE,
          "streamed-once; not re-sent (longer than " + proxy.maxRequestBody() + " bytes)");
    }
    if (call != null && call.key() != null && request.headers().get(Idempotency.HEADER) == null) {
      h.set(KEY, call.key());
    }
  }

  /** Sends an upstream answer on: its head, then its body as it arrives. */
  private void relay(ProxyResponse response, String reason) {
    HttpResponse up = response.head();
    HttpHeaders h = new DefaultHttpHeaders();
    h.add(up.headers());
    HopByHop.strip(h);
    h.set(ATTEMPTS, call.attempts());
    if (reason != null) {
      h.set(GIVE_UP, reason);
    }
    ownHeaders(h);
    boolean http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
    boolean alive = keepAlive && bodyEnded && connection.keepsAlive();
    int status = up.status().code();
    boolean noBody =
        request.method().equals(HttpMethod.HEAD) || status == 204 || status == 304 || status < 200;
    ByteBuf body = response.body();
    if (body != null) {
      if (!noBody) {
        h.set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
      }
    } else if (!noBody && !h.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      if (http10) {
        alive = false;
      } else {
        h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      }
    }
    if (!alive) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (http10) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    HttpResponse head = new DefaultHttpResponse(request.protocolVersion(), up.status(), h);
    boolean keep = alive;
    if (body != null) {
      ctx.write(head);
      ctx.writeAndFlush(new DefaultLastHttpContent(noBody ? Unpooled.EMPTY_BUFFER : body.retain()))
          .addListener(f -> connection.callEnded(this, keep && f.isSuccess()));
      response.release();
      return;
    }
    // Flushed with the first part of the body, one write for both when they come together.
    ctx.write(head);
    UpstreamAttempt source = response.stream();
    streaming = source;
    source.stream(
        new UpstreamAttempt.Sink() {
          @Override
          public void onContent(HttpContent content, boolean last) {
            ctx.writeAndFlush(content)
                .addListener(
                    f -> {
                      if (!f.isSuccess()) {
                        source.abort();
                        connection.callEnded(ProxyCall.this, false);
                      } else if (last) {
                        connection.callEnded(ProxyCall.this, keep);
                      }
                    });
            if (!last && !ctx.channel().isWritable()) {
              source.pause();
            }
          }

          @Override
          public boolean writable() {
            return ctx.channel().isWritable();
          }

          @Override
          public void flushHead() {
            ctx.flush();
          }

          @Override
          public void onAbort(Throwable cause) {
            proxy
                .log()
                .event(
                    connection.listener(),
                    "upstream-body-failed",
                    "the upstream's body ended early ("
                        + proxy.redactor().text(String.valueOf(cause.getMessage()))
                        + "); the caller's connection is closed so that it sees a truncated answer",
                    method() + " " + proxy.redactor().uri(uri));
            connection.callEnded(ProxyCall.this, false);
          }
        });
  }
}
