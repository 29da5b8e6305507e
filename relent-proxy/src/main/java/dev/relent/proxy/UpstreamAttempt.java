package dev.relent.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLHandshakeException;

/**
 * One physical request to an upstream: the stage the attempt loop waits on, and then, for the
 * answer the loop accepts, the source of its body.
 *
 * <p><b>Phases.</b> {@code CONNECTING} (a pooled channel is being taken or made; for {@code https}
 * its handshake) → {@code WAITING} (the request is written, the answer's head awaited) → either
 * {@code BUFFERING} (the table retries or holds back this status: the body is read into memory, at
 * most the loop's limit, and the stage completes when it ends or the limit is reached) or {@code
 * HANDED} (the stage completed with the head alone; body parts that arrive meanwhile are queued) →
 * {@code STREAMING} (a {@link Sink} takes the body, one read at a time: the next read is asked for
 * only when the sink has written the last part, so the body never piles up in memory) → {@code
 * DONE}. The connection goes back to its pool only after a complete, kept-alive exchange; any
 * failure, cut or cancel closes it.
 *
 * <p><b>Threads.</b> Every event of the channel arrives on its event loop; {@link #abort} and
 * {@link #stream} may be called from any thread and hop onto it. The stage may be completed by the
 * loop's own timer (cancelling it aborts the exchange).
 *
 * <p><b>Failures as the decision table reads them.</b> A refused connect is Netty's {@code
 * ConnectException}, a slow one its {@code ConnectTimeoutException}; a failed handshake becomes an
 * {@link SSLHandshakeException}; a connection closed before any answer an {@code IOException}
 * saying "unexpected end of stream"; a body cut before its end an {@link EOFException}; a reset the
 * socket's own "Connection reset".
 */
final class UpstreamAttempt {
  /** Where a streamed body goes: the caller's connection. */
  interface Sink {
    /** Takes one part; {@code last} for the end. The sink releases it. */
    void onContent(HttpContent content, boolean last);

    /** The body cannot be completed. */
    void onAbort(Throwable cause);

    /** Whether the caller's connection can take more now. */
    boolean writable();

    /** No part of the body is here yet: send the head on its own. */
    void flushHead();
  }

  private enum Phase {
    CONNECTING,
    WAITING,
    BUFFERING,
    HANDED,
    STREAMING,
    DONE
  }

  private final ProxyCall call;
  private final Upstreams upstreams;
  private final int attempt;
  final CompletableFuture<ProxyResponse> stage = new CompletableFuture<>();

  private volatile Channel channel;
  private volatile boolean aborted;
  private Phase phase = Phase.CONNECTING;
  private HttpResponse head;
  private CompositeByteBuf buffered;
  private boolean keepAlive;
  private boolean informational;

  /** Whether reads are off: the caller's connection is full, or a handed-over body piles up. */
  private boolean paused;

  private int pendingBytes;
  private ArrayDeque<HttpContent> pending;
  private Sink sink;

  /** Why the body of a handed-over answer cannot be completed, once known. */
  private Throwable broken;

  UpstreamAttempt(ProxyCall call, Upstreams upstreams, int attempt) {
    this.call = call;
    this.upstreams = upstreams;
    this.attempt = attempt;
    stage.whenComplete(
        (r, t) -> {
          if (stage.isCancelled()) {
            abort();
          }
        });
  }

  /** Takes a connection and sends the request. */
  CompletableFuture<ProxyResponse> start() {
    upstreams.acquire(call.origin(), call.eventLoop()).addListener(this::acquired);
    return stage;
  }

  private void acquired(Future<? super Channel> f) {
    if (!f.isSuccess()) {
      stage.completeExceptionally(f.cause());
      return;
    }
    Channel ch = (Channel) f.getNow();
    channel = ch;
    if (aborted || stage.isDone()) {
      ch.close();
      return;
    }
    ch.attr(Upstreams.CURRENT).set(this);
    SslHandler tls = Upstreams.tls(ch);
    if (tls != null && !tls.handshakeFuture().isDone()) {
      tls.handshakeFuture()
          .addListener(
              h -> {
                if (h.isSuccess()) {
                  send(ch);
                } else {
                  fail(handshake(h.cause()));
                }
              });
    } else if (tls != null && !tls.handshakeFuture().isSuccess()) {
      fail(handshake(tls.handshakeFuture().cause()));
    } else {
      send(ch);
    }
  }

  private static SSLHandshakeException handshake(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    SSLHandshakeException e =
        new SSLHandshakeException(
            "TLS handshake with the upstream failed: "
                + (root.getMessage() == null
                    ? root.getClass().getSimpleName()
                    : root.getMessage()));
    e.initCause(cause);
    return e;
  }

  private void send(Channel ch) {
    phase = Phase.WAITING;
    HttpRequest request = call.headFor(attempt);
    ch.write(request).addListener(w -> failIfNot(w));
    call.writeBody(ch, this);
  }

  void failIfNot(Future<?> write) {
    if (!write.isSuccess()) {
      fail(write.cause());
    }
  }

  void onMessage(Object msg) {
    try {
      if (msg instanceof HttpResponse) {
        onHead((HttpResponse) msg);
      }
      if (msg instanceof HttpContent) {
        onContent((HttpContent) msg);
        return;
      }
    } catch (RuntimeException e) {
      ReferenceCountUtil.release(msg);
      fail(e);
    }
  }

  private void onHead(HttpResponse response) {
    if (response.decoderResult().isFailure()) {
      fail(
          new IOException(
              "malformed answer from the upstream: " + response.decoderResult().cause()));
      return;
    }
    int status = response.status().code();
    if (status >= 100 && status < 200 && status != 101) {
      informational = true;
      return;
    }
    head = response;
    keepAlive = HttpUtil.isKeepAlive(response);
    if (call.needsBuffer(status, response)) {
      phase = Phase.BUFFERING;
      buffered = channel.alloc().compositeBuffer();
    } else {
      phase = Phase.HANDED;
      pending = new ArrayDeque<>();
      stage.complete(
          new ProxyResponse(
              call.method(), call.uri(), call.keyed(), response, null, false, this, call.table()));
    }
  }

  private void onContent(HttpContent content) {
    boolean last = content instanceof LastHttpContent;
    if (content.decoderResult().isFailure()) {
      content.release();
      fail(truncated(content.decoderResult().cause()));
      return;
    }
    if (informational) {
      content.release();
      informational = !last;
      return;
    }
    switch (phase) {
      case BUFFERING:
        bufferPart(content, last);
        break;
      case HANDED:
        pending.add(content);
        pendingBytes += content.content().readableBytes();
        if (last) {
          ended();
        } else if (pendingBytes > PENDING_LIMIT) {
          pause();
        }
        break;
      case STREAMING:
        if (last) {
          ended();
        }
        sink.onContent(content, last);
        break;
      default:
        content.release();
    }
  }

  private void bufferPart(HttpContent content, boolean last) {
    int limit = call.maxBufferedBody();
    ByteBuf part = content.content();
    int room = limit - buffered.readableBytes();
    boolean cut = part.readableBytes() > room;
    if (part.isReadable() && room > 0) {
      buffered.addComponent(
          true, part.retainedSlice(part.readerIndex(), Math.min(room, part.readableBytes())));
    }
    content.release();
    if (cut) {
      // Too long to keep: what fits is enough to judge and describe it; the rest is dropped
      // with its connection rather than read.
      phase = Phase.DONE;
      complete(true);
      close();
      return;
    }
    if (last) {
      phase = Phase.DONE;
      complete(false);
      finishConnection();
    }
  }

  private void complete(boolean cut) {
    ProxyResponse r =
        new ProxyResponse(
            call.method(), call.uri(), call.keyed(), head, buffered, cut, null, call.table());
    if (!stage.complete(r)) {
      buffered.release();
    }
  }

  /** How much of a handed-over body may wait for its sink before reads stop: {@value} bytes. */
  static final int PENDING_LIMIT = 64 * 1024;

  /** Stops reading the upstream: the caller's side cannot take more now. On the event loop. */
  void pause() {
    Channel ch = channel;
    if (ch != null && !paused && phase != Phase.DONE) {
      paused = true;
      ch.config().setAutoRead(false);
    }
  }

  /** Reads on: the caller's connection can take more. From any thread. */
  void resume() {
    Channel ch = channel;
    if (ch == null) {
      return;
    }
    if (!ch.eventLoop().inEventLoop()) {
      ch.eventLoop().execute(this::resume);
      return;
    }
    if (paused && phase == Phase.STREAMING) {
      paused = false;
      ch.config().setAutoRead(true);
    }
  }

  /** Starts the body of an accepted answer towards {@code sink}; from any thread. */
  void stream(Sink target) {
    Channel ch = channel;
    if (ch.eventLoop().inEventLoop()) {
      startStream(target);
    } else {
      ch.eventLoop().execute(() -> startStream(target));
    }
  }

  private void startStream(Sink target) {
    if (aborted) {
      target.onAbort(new IOException("the upstream connection was closed"));
      return;
    }
    sink = target;
    boolean ended = phase == Phase.DONE;
    phase = ended ? Phase.DONE : Phase.STREAMING;
    HttpContent c;
    boolean sawLast = false;
    if (pending.isEmpty()) {
      target.flushHead();
    }
    while ((c = pending.poll()) != null) {
      boolean last = c instanceof LastHttpContent;
      sawLast |= last;
      target.onContent(c, last);
    }
    if (!sawLast && broken != null) {
      target.onAbort(broken);
    } else if (!sawLast && paused && target.writable()) {
      resume();
    }
  }

  /** The whole answer arrived: the connection may serve the next exchange. */
  private void ended() {
    phase = Phase.DONE;
    finishConnection();
  }

  private void finishConnection() {
    Channel ch = channel;
    if (ch == null) {
      return;
    }
    if (keepAlive && call.upstreamKeepAlive() && ch.isActive()) {
      if (paused) {
        paused = false;
        ch.config().setAutoRead(true);
      }
      upstreams.release(call.origin(), ch);
    } else {
      close();
    }
  }

  void onClosed() {
    switch (phase) {
      case CONNECTING:
      case WAITING:
        fail(
            new IOException(
                "unexpected end of stream: the upstream closed the connection before an answer"));
        break;
      case BUFFERING:
        fail(truncated(null));
        break;
      case HANDED:
        phase = Phase.DONE;
        broken = truncated(null);
        break;
      case STREAMING:
        phase = Phase.DONE;
        sink.onAbort(truncated(null));
        break;
      default:
        break;
    }
  }

  private static EOFException truncated(Throwable cause) {
    EOFException e =
        new EOFException(
            "truncated answer: the upstream closed the connection before the end of the body");
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  void onIdle() {
    if (phase == Phase.STREAMING && !paused) {
      fail(new IOException("the upstream stalled in the middle of the body"));
    }
  }

  /** A failure of the channel: fails the stage, or the stream in progress. */
  void onFailure(Throwable cause) {
    fail(cause);
  }

  private void fail(Throwable cause) {
    Phase was = phase;
    phase = Phase.DONE;
    if (buffered != null && !stage.isDone()) {
      buffered.release();
      buffered = null;
    }
    if (!stage.isDone()) {
      stage.completeExceptionally(cause);
    } else if (was == Phase.STREAMING && sink != null) {
      sink.onAbort(cause);
    } else if (was == Phase.HANDED) {
      broken = cause;
    }
    close();
  }

  private void close() {
    Channel ch = channel;
    if (ch != null) {
      ch.attr(Upstreams.CURRENT).set(null);
      ch.close();
    }
  }

  /** Drops the exchange: its connection is closed, never reused. From any thread. */
  void abort() {
    aborted = true;
    Channel ch = channel;
    if (ch != null) {
      ch.eventLoop()
          .execute(
              () -> {
                if (pending != null) {
                  HttpContent c;
                  while ((c = pending.poll()) != null) {
                    c.release();
                  }
                }
                if (phase != Phase.DONE || ch.attr(Upstreams.CURRENT).get() == this) {
                  phase = Phase.DONE;
                  close();
                }
              });
    }
  }

  /** The value of the answer's {@code Content-Length}, or -1. */
  long contentLength() {
    return head == null ? -1 : HttpUtil.getContentLength(head, -1L);
  }

  boolean hasTransferEncoding() {
    return head != null && head.headers().contains(HttpHeaderNames.TRANSFER_ENCODING);
  }

  HttpObject head() {
    return head;
  }
}
