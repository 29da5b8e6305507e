package dev.relent.mockserver;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One client connection: reads requests, asks the {@link Engine} for answers and writes them,
 * faults included.
 *
 * <p>Design: everything here runs on the connection's event loop, so its fields need no locks.
 * Requests on one connection are answered strictly in order (HTTP/1.1): while an answer is pending
 * (delayed, stalled), further pipelined messages are queued and reading is paused; they are
 * processed when the answer completes. Delays and stalls are {@code schedule}d on the event loop,
 * never slept. A reset sets {@code SO_LINGER} to 0 and closes, so the kernel sends RST instead of
 * FIN. Not sharable: one instance per channel.
 */
final class Connection extends ChannelInboundHandlerAdapter {

  private static final int MAX_BODY = 1 << 20;
  private static final byte[] EMPTY = new byte[0];
  private static final DefaultHttpHeadersFactory HEADERS =
      DefaultHttpHeadersFactory.headersFactory().withValidation(false);

  private final Engine engine;
  private final Admin admin;
  private final MessageDigest digest = Redaction.sha256();
  private final ArrayDeque<Object> pending = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private String ip = "";
  private String remote = "";
  private ServerExchange reading;
  private ServerExchange answering;
  private boolean discarding;
  private boolean draining;

  Connection(Engine engine, Admin admin) {
    this.engine = engine;
    this.admin = admin;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    if (ctx.channel().remoteAddress() instanceof InetSocketAddress) {
      InetSocketAddress a = (InetSocketAddress) ctx.channel().remoteAddress();
      ip = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
      remote = ip + ":" + a.getPort();
    }
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (answering != null || !pending.isEmpty()) {
      pending.add(msg);
      ctx.channel().config().setAutoRead(false);
      return;
    }
    process(msg);
  }

  private void process(Object msg) {
    try {
      if (msg instanceof HttpRequest) {
        onRequest((HttpRequest) msg);
      }
      if (msg instanceof HttpContent) {
        onContent((HttpContent) msg);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onRequest(HttpRequest request) {
    if (request.decoderResult().isFailure()) {
      discarding = true;
      HttpHeaders h = HEADERS.newHeaders();
      h.set(HttpHeaderNames.CONTENT_LENGTH, 0);
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1,
                  HttpResponseStatus.BAD_REQUEST,
                  Unpooled.EMPTY_BUFFER,
                  h,
                  EmptyHttpHeaders.INSTANCE))
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    discarding = false;
    String path = pathOf(request.uri());
    boolean isAdmin = path.startsWith("/__relent/");
    ServerExchange ex =
        new ServerExchange(
            request,
            path,
            ip,
            remote,
            engine.clock.wallMillis(),
            HttpUtil.isKeepAlive(request),
            isAdmin ? -1 : engine.journal.nextSeq());
    digest.reset();
    reading = ex;
    if (isAdmin) {
      ex.admin = true;
      return;
    }
    engine.plan(ex);
    if (ex.fault == InjectedFault.RESET_BEFORE_READ && ex.step != null) {
      reading = null;
      discarding = true;
      engine.record(ex);
      ex.release();
      reset();
    }
  }

  private void onContent(HttpContent content) {
    ServerExchange ex = reading;
    if (discarding || ex == null) {
      return;
    }
    int n = content.content().readableBytes();
    if (n > 0 && !ex.admin) {
      ex.bodyBytes += n;
      ByteBuffer nio = content.content().nioBuffer();
      digest.update(nio);
      if (ex.body != null) {
        if (ex.body.size() + n > MAX_BODY) {
          ex.tooLarge = true;
        } else {
          byte[] bytes = new byte[n];
          content.content().getBytes(content.content().readerIndex(), bytes);
          ex.body.writeBytes(bytes);
        }
      }
    }
    if (content instanceof LastHttpContent) {
      reading = null;
      if (ex.bodyBytes > 0) {
        ex.bodyDigest = digest.digest();
      }
      dispatch(ex);
    }
  }

  private void dispatch(ServerExchange ex) {
    answering = ex;
    if (ex.admin) {
      admin.answer(ex);
      respond(ex);
      return;
    }
    engine.complete(ex);
    if (ex.delayNanos > 0) {
      ctx.executor().schedule(() -> respond(ex), ex.delayNanos, TimeUnit.NANOSECONDS);
    } else {
      respond(ex);
    }
  }

  private void respond(ServerExchange ex) {
    if (answering != ex || !ctx.channel().isActive()) {
      return;
    }
    InjectedFault fault = ex.fault;
    if (fault == InjectedFault.RESET || fault == InjectedFault.RESET_BEFORE_READ) {
      reset();
      return;
    }
    if (fault == InjectedFault.CLOSE) {
      ctx.close();
      return;
    }
    HttpResponseStatus status = HttpResponseStatus.valueOf(ex.status);
    HttpHeaders h = HEADERS.newHeaders();
    long now = engine.clock.wallMillis();
    boolean hasDate = false;
    boolean hasContentType = false;
    if (ex.renderStepHeaders) {
      CompiledStep s = ex.step;
      for (int i = 0; i < s.names.length; i++) {
        h.add(s.names[i], s.values[i].render(now));
      }
      hasDate = s.hasDate;
      hasContentType = s.hasContentType;
    }
    for (int i = 0; i < ex.extra.size(); i += 2) {
      h.add(ex.extra.get(i), ex.extra.get(i + 1));
    }
    if (!hasDate) {
      h.set(HttpHeaderNames.DATE, engine.dateHeader(now));
    }
    byte[] body = ex.responseBody == null ? EMPTY : ex.responseBody;
    boolean bodiless = ex.status < 200 || ex.status == 204 || ex.status == 304;
    if (bodiless) {
      body = EMPTY;
    } else {
      if (!hasContentType && ex.contentType != null && body.length > 0) {
        h.set(HttpHeaderNames.CONTENT_TYPE, ex.contentType);
      }
      h.set(HttpHeaderNames.CONTENT_LENGTH, body.length);
    }
    if (!ex.keepAlive) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (ex.request.protocolVersion() == HttpVersion.HTTP_1_0) {
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    boolean head = ex.method.equals("HEAD");
    if (fault == null || bodiless || head) {
      // Free the request's permits before its last byte leaves: a client that has read the whole
      // answer must find the slot free, whatever order the threads run in.
      ex.release();
      ctx.writeAndFlush(
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1,
                  status,
                  head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body),
                  h,
                  EmptyHttpHeaders.INSTANCE))
          .addListener(f -> finish(ex));
      return;
    }
    int cut = Math.min(ex.cut, body.length);
    ctx.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, status, h));
    ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(body, 0, cut)));
    if (fault == InjectedFault.TRUNCATE) {
      // FIN after a short body: the client sees the connection end before Content-Length bytes.
      ctx.close();
      return;
    }
    if (ex.stallNanos >= 0) {
      byte[] rest = body;
      ctx.executor()
          .schedule(
              () -> {
                if (answering == ex && ctx.channel().isActive()) {
                  ex.release();
                  ctx.writeAndFlush(
                          new DefaultLastHttpContent(
                              Unpooled.wrappedBuffer(rest, cut, rest.length - cut)))
                      .addListener(f -> finish(ex));
                }
              },
              ex.stallNanos,
              TimeUnit.NANOSECONDS);
    }
    // Otherwise the stall lasts until a side closes; channelInactive gives the permits back.
  }

  private void finish(ServerExchange ex) {
    ex.release();
    if (answering != ex) {
      return;
    }
    answering = null;
    if (!ex.keepAlive) {
      ctx.close();
      return;
    }
    drain();
  }

  private void drain() {
    if (draining) {
      // An answer finished inside the loop below: the loop itself goes on with the queue.
      return;
    }
    draining = true;
    try {
      while (answering == null && !pending.isEmpty() && ctx.channel().isActive()) {
        process(pending.poll());
      }
    } finally {
      draining = false;
    }
    if (answering == null && pending.isEmpty() && ctx.channel().isActive()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  private void reset() {
    ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (reading != null) {
      reading.release();
      reading = null;
    }
    if (answering != null) {
      answering.release();
      answering = null;
    }
    Object msg;
    while ((msg = pending.poll()) != null) {
      ReferenceCountUtil.release(msg);
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A client that resets or times out is part of the job here, not an error to report.
    ctx.close();
  }

  /** The path of a request target: origin-form as is, absolute-form without scheme and host. */
  static String pathOf(String uri) {
    String u = uri;
    if (!u.startsWith("/")) {
      int scheme = u.indexOf("://");
      if (scheme > 0) {
        int slash = u.indexOf('/', scheme + 3);
        u = slash < 0 ? "/" : u.substring(slash);
      }
    }
    int end = u.length();
    int q = u.indexOf('?');
    if (q >= 0) {
      end = q;
    }
    int hash = u.indexOf('#');
    if (hash >= 0 && hash < end) {
      end = hash;
    }
    return end == u.length() ? u : u.substring(0, end);
  }
}
