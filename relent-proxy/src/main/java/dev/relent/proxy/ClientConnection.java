package dev.relent.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One caller's connection to a listener: reads each request's head, decides where it goes (the
 * listener's upstream for a path, an allowed host for an absolute {@code http://} URI, a tunnel for
 * {@code CONNECT}, the proxy itself for {@code /__relent/…}), refuses what it cannot serve with a
 * clear status and a log line, and hands the rest to a {@link ProxyCall}. One request at a time:
 * what arrives before a call is answered (pipelined requests) waits its turn, and past a few parts
 * reads stop until the answer is written.
 *
 * <p>Used on its channel's event loop only.
 */
final class ClientConnection extends ChannelInboundHandlerAdapter {
  private final RelentProxy proxy;
  private final RelentProxy.Listener listener;
  private final RequestClock clock;
  private ProxyCall call;

  /** A request answered by the proxy itself (or refused): its body parts are dropped. */
  private boolean skipping;

  private HttpRequest internal;

  /**
   * What arrived after a request's end and before its answer (a pipelining caller, or the next
   * request read with the same bytes): replayed, in order, once the answer is written.
   */
  private final java.util.ArrayDeque<Object> waiting = new java.util.ArrayDeque<>();

  /** How many parts of later requests may wait before reads stop. */
  private static final int MAX_WAITING = 16;

  ClientConnection(RelentProxy proxy, RelentProxy.Listener listener, RequestClock clock) {
    this.proxy = proxy;
    this.listener = listener;
    this.clock = clock;
  }

  String listener() {
    return listener.label();
  }

  boolean keepsAlive() {
    return !proxy.draining();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!waiting.isEmpty() || (call != null && !call.bodyIncomplete())) {
      // One request at a time: what comes before the answer waits its turn, and past a few parts
      // reads stop until the answer is written.
      waiting.add(msg);
      if (waiting.size() > MAX_WAITING) {
        ctx.channel().config().setAutoRead(false);
      }
      return;
    }
    read(ctx, msg);
  }

  private void read(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest) {
      head(ctx, (HttpRequest) msg);
    }
    if (msg instanceof HttpContent) {
      HttpContent content = (HttpContent) msg;
      if (call != null && call.bodyIncomplete()) {
        if (content.decoderResult().isFailure()) {
          content.release();
          refuse(
              ctx,
              400,
              "bad-request",
              "the request body is malformed: " + reason(content.decoderResult()),
              null);
          return;
        }
        call.onContent(content);
      } else {
        boolean last = content instanceof LastHttpContent;
        content.release();
        if (last && internal != null) {
          HttpRequest r = internal;
          internal = null;
          answerInternal(ctx, r);
        }
        if (last) {
          skipping = false;
        }
      }
    } else if (!(msg instanceof HttpRequest)) {
      ReferenceCountUtil.release(msg);
    }
  }

  private void head(ChannelHandlerContext ctx, HttpRequest request) {
    clock.headersDone();
    DecoderResult result = request.decoderResult();
    if (result.isFailure()) {
      Throwable cause = result.cause();
      if (cause instanceof TooLongHttpHeaderException) {
        refuse(
            ctx,
            431,
            "headers-too-large",
            "the request's headers are larger than 32 KiB; send fewer or shorter headers",
            null);
      } else if (cause instanceof TooLongHttpLineException) {
        refuse(
            ctx,
            414,
            "request-line-too-long",
            "the request line is longer than 8 KiB; shorten the URI",
            null);
      } else if (cause instanceof TooLongFrameException) {
        refuse(ctx, 431, "headers-too-large", "the request's head is too large", null);
      } else {
        refuse(
            ctx,
            400,
            "bad-request",
            "the request line or a header is malformed (" + reason(result) + ")",
            null);
      }
      return;
    }
    if (call != null) {
      refuse(
          ctx,
          400,
          "pipelined",
          "a request arrived before the answer to the previous one; send one at a time",
          null);
      return;
    }
    String uri = request.uri();
    if (request.method().equals(HttpMethod.CONNECT)) {
      connect(ctx, request);
      return;
    }
    if (uri.startsWith("/__relent/")) {
      skipping = true;
      internal = request;
      return;
    }
    if (proxy.draining()) {
      refuse(
          ctx,
          503,
          "draining",
          "the proxy is shutting down; send the request again to another instance or after its restart",
          request);
      return;
    }
    Upstreams.Origin origin;
    String target;
    if (uri.startsWith("/")) {
      if (listener.upstream() == null) {
        refuse(
            ctx,
            400,
            "no-upstream",
            "this listener has no upstream: send an absolute http:// URI (HTTP_PROXY) to an allowed host, or start the proxy with --upstream",
            request);
        return;
      }
      origin = listener.origin();
      target = listener.basePath() + uri;
    } else {
      URI parsed;
      try {
        parsed = new URI(uri);
      } catch (URISyntaxException e) {
        refuse(ctx, 400, "bad-request", "the request target is not a valid URI", request);
        return;
      }
      String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
      if (scheme.equals("https")) {
        refuse(
            ctx,
            400,
            "https-forward",
            "an https:// target cannot be proxied in forward mode: clients tunnel it with CONNECT (not retried); for retries use reverse mode, --upstream https://…",
            request);
        return;
      }
      if (!scheme.equals("http") || parsed.getHost() == null) {
        refuse(
            ctx,
            400,
            "bad-request",
            "the request target must be a path or an absolute http:// URI",
            request);
        return;
      }
      if (parsed.getRawUserInfo() != null) {
        refuse(
            ctx,
            400,
            "bad-request",
            "credentials in the URI are not forwarded; send them as a header",
            request);
        return;
      }
      int port = parsed.getPort() < 0 ? 80 : parsed.getPort();
      if (!proxy.allows(parsed.getHost(), port)) {
        refuse(
            ctx,
            403,
            "host-not-allowed",
            "host "
                + ProxyLog.clean(parsed.getHost())
                + ":"
                + port
                + " is not allowed; start the proxy with --allow-host "
                + ProxyLog.clean(parsed.getHost())
                + " to forward to it",
            request);
        return;
      }
      origin = new Upstreams.Origin(false, parsed.getHost(), port);
      String path =
          parsed.getRawPath() == null || parsed.getRawPath().isEmpty() ? "/" : parsed.getRawPath();
      target = parsed.getRawQuery() == null ? path : path + "?" + parsed.getRawQuery();
    }
    long deadline;
    try {
      deadline = proxy.deadlineNanos(request.headers().get(HopByHop.DEADLINE));
    } catch (IllegalArgumentException e) {
      refuse(ctx, 400, "bad-deadline", e.getMessage(), request);
      return;
    }
    proxy.callStarted();
    call = new ProxyCall(proxy, this, ctx, request, origin, target, deadline);
  }

  private void connect(ChannelHandlerContext ctx, HttpRequest request) {
    String authority = request.uri();
    int colon = authority.lastIndexOf(':');
    String host = colon < 0 ? authority : authority.substring(0, colon);
    int port;
    try {
      port = colon < 0 ? 443 : Integer.parseInt(authority.substring(colon + 1));
    } catch (NumberFormatException e) {
      refuse(ctx, 400, "bad-request", "CONNECT needs host:port", null);
      return;
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (!proxy.allows(host, port)) {
      refuse(
          ctx,
          403,
          "host-not-allowed",
          "host "
              + ProxyLog.clean(host)
              + ":"
              + port
              + " is not allowed; start the proxy with --allow-host "
              + ProxyLog.clean(host)
              + " to tunnel to it",
          null);
      return;
    }
    ctx.channel().config().setAutoRead(false);
    String h = host;
    proxy
        .log()
        .event(
            listener.label(),
            "tunnel",
            "CONNECT tunnelled untouched: nothing in it is retried",
            "CONNECT " + ProxyLog.clean(host) + ":" + port);
    Tunnel.open(
        ctx,
        host,
        port,
        proxy.connectTimeoutMillis(),
        () ->
            refuse(
                ctx,
                502,
                "tunnel-failed",
                "cannot connect to " + ProxyLog.clean(h) + ":" + port,
                null));
  }

  private void answerInternal(ChannelHandlerContext ctx, HttpRequest request) {
    String path = request.uri();
    int q = path.indexOf('?');
    if (q >= 0) {
      path = path.substring(0, q);
    }
    FullHttpResponse r;
    if (path.equals("/__relent/health")) {
      boolean up = !proxy.draining();
      r =
          text(
              up ? 200 : 503,
              "application/json",
              "{\"status\":\""
                  + (up ? "up" : "draining")
                  + "\",\"inFlight\":"
                  + proxy.inFlight()
                  + "}\n");
    } else if (path.equals("/__relent/metrics")) {
      r = text(200, "text/plain; version=0.0.4; charset=utf-8", proxy.scrape());
    } else {
      r =
          text(
              404,
              "application/problem+json",
              "{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"detail\":\"the proxy answers /__relent/health and /__relent/metrics\"}\n");
    }
    boolean alive = HttpUtil.isKeepAlive(request) && keepsAlive();
    if (!alive) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    ctx.writeAndFlush(r)
        .addListener(
            f -> {
              clock.requestEnded();
              if (!alive) {
                ctx.close();
              }
            });
  }

  private static FullHttpResponse text(int status, String type, String body) {
    ByteBuf b = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
    FullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), b);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    r.headers().set(HttpHeaderNames.CONTENT_LENGTH, b.readableBytes());
    return r;
  }

  /** Answers a request the proxy will not send, with a problem body, and closes the connection. */
  private void refuse(
      ChannelHandlerContext ctx, int status, String reason, String detail, HttpRequest request) {
    String what =
        request == null
            ? null
            : request.method().name() + " " + proxy.redactor().uri(request.uri());
    proxy.log().event(listener.label(), "refused-" + status, reason + ": " + detail, what);
    skipping = true;
    StringBuilder json =
        new StringBuilder("{\"type\":\"urn:relent:refused:").append(reason).append("\",\"title\":");
    GiveUp.quote(json, HttpResponseStatus.valueOf(status).reasonPhrase());
    json.append(",\"status\":").append(status).append(",\"detail\":");
    GiveUp.quote(json, detail);
    json.append(",\"reason\":");
    GiveUp.quote(json, reason);
    json.append("}\n");
    FullHttpResponse r = text(status, "application/problem+json", json.toString());
    r.headers().set(ProxyCall.GIVE_UP, reason);
    r.headers().set(ProxyCall.ATTEMPTS, 0);
    r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    if (call != null) {
      ProxyCall c = call;
      call = null;
      c.cancel();
      proxy.callEnded();
    }
    ctx.channel().config().setAutoRead(false);
    ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
  }

  private static String reason(DecoderResult result) {
    Throwable cause = result.cause();
    return cause == null ? "unknown" : ProxyLog.clean(String.valueOf(cause.getMessage()));
  }

  /**
   * The call's answer was written (or failed); the connection serves the next request or closes.
   */
  void callEnded(ProxyCall ended, boolean keepAlive) {
    if (call != ended) {
      return;
    }
    call = null;
    proxy.callEnded();
    clock.requestEnded();
    ChannelHandlerContext ctx = ended.connectionContext();
    if (!keepAlive || !keepsAlive()) {
      releaseWaiting();
      ctx.close();
      return;
    }
    Object msg;
    while (call == null || call.bodyIncomplete()) {
      msg = waiting.poll();
      if (msg == null) {
        break;
      }
      read(ctx, msg);
    }
    if (waiting.isEmpty() && ctx.channel().isActive() && !ctx.channel().config().isAutoRead()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  private void releaseWaiting() {
    Object msg;
    while ((msg = waiting.poll()) != null) {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      IdleState state = ((IdleStateEvent) evt).state();
      if (state == IdleState.READER_IDLE && call != null && call.bodyIncomplete()) {
        refuse(
            ctx,
            408,
            "client-timeout",
            "the request body stopped arriving ("
                + call.bodyBytes()
                + " bytes came); nothing more was read in "
                + proxy.clientTimeoutText(),
            null);
      } else if (state == IdleState.ALL_IDLE && call == null) {
        ctx.close();
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseWaiting();
    if (call != null) {
      ProxyCall c = call;
      call = null;
      if (c.bodyIncomplete()) {
        proxy
            .log()
            .event(
                listener.label(),
                "body-cut-short",
                "the caller closed its connection after "
                    + c.bodyBytes()
                    + " bytes of the request body; the request was not completed upstream",
                c.method() + " " + proxy.redactor().uri(c.uri()));
      }
      c.cancel();
      proxy.callEnded();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (call != null && ctx.channel().isWritable()) {
      call.writable();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
