package dev.relent.proxy;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Bounds how long a caller may take to send a request's line and headers: from the first byte to
 * the end of the headers, at most the proxy's client timeout, however slowly the bytes arrive. A
 * caller that dribbles them (slowloris) is answered {@code 408} and its connection closed. Sits
 * before the HTTP codec, so its one answer is written as raw bytes.
 *
 * <p>Used on its channel's event loop only.
 */
final class RequestClock extends ChannelInboundHandlerAdapter {
  private static final byte[] TIMEOUT =
      ("HTTP/1.1 408 Request Timeout\r\n"
              + "Content-Type: application/problem+json\r\n"
              + "Connection: close\r\n"
              + "Relent-Give-Up: client-timeout\r\n"
              + "Relent-Attempts: 0\r\n"
              + "Content-Length: 148\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);

  private static final byte[] BODY =
      pad(
          "{\"type\":\"urn:relent:give-up:client-timeout\",\"title\":\"The request's head did not"
              + " arrive in time\",\"status\":408,\"reason\":\"client-timeout\"}",
          148);

  private final long timeoutNanos;
  private final Runnable onTimeout;
  private boolean inHead;
  private boolean busy;
  private ScheduledFuture<?> timer;

  RequestClock(long timeoutNanos, Runnable onTimeout) {
    this.timeoutNanos = timeoutNanos;
    this.onTimeout = onTimeout;
  }

  private static byte[] pad(String s, int length) {
    StringBuilder b = new StringBuilder(s);
    while (b.length() < length - 1) {
      b.append(' ');
    }
    b.append('\n');
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!inHead && !busy) {
      inHead = true;
      timer = ctx.executor().schedule(() -> expired(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
    }
    ctx.fireChannelRead(msg);
  }

  private void expired(ChannelHandlerContext ctx) {
    if (!inHead || !ctx.channel().isActive()) {
      return;
    }
    onTimeout.run();
    ctx.write(Unpooled.wrappedBuffer(TIMEOUT));
    ctx.writeAndFlush(Unpooled.wrappedBuffer(BODY)).addListener(ChannelFutureListener.CLOSE);
  }

  /** The headers arrived: the rest of the request is the connection's business. */
  void headersDone() {
    inHead = false;
    busy = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** The exchange ended: the next byte starts the next request's clock. */
  void requestEnded() {
    busy = false;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (timer != null) {
      timer.cancel(false);
    }
    ctx.fireChannelInactive();
  }
}
