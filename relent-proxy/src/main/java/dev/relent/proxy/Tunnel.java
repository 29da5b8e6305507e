package dev.relent.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code CONNECT} tunnel: bytes both ways, untouched. Nothing in it can be retried, paced by
 * answer or keyed, since the proxy cannot read a TLS stream; it exists so that a caller with {@code
 * HTTPS_PROXY} set still works. Reverse mode is the way to give {@code https} upstreams the attempt
 * loop. Each side reads only when the other can take more.
 */
final class Tunnel {
  private Tunnel() {}

  /**
   * Connects to {@code host:port}; then answers the caller {@code 200}, turns its connection into a
   * byte pipe and joins the two. Called on the caller's event loop, with its reads stopped.
   */
  static void open(
      ChannelHandlerContext ctx, String host, int port, int connectTimeoutMillis, Runnable failed) {
    Channel client = ctx.channel();
    new Bootstrap()
        .group(client.eventLoop())
        .channel(NioSocketChannel.class)
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
        .handler(new Pipe(client))
        .connect(host, port)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (!f.isSuccess()) {
                    failed.run();
                    return;
                  }
                  Channel upstream = f.channel();
                  ChannelPipeline p = client.pipeline();
                  List<String> names = new ArrayList<>(p.names());
                  for (String name : names) {
                    ChannelHandler h = p.get(name);
                    if (h != null) {
                      p.remove(h);
                    }
                  }
                  p.addLast(new Pipe(upstream));
                  client
                      .writeAndFlush(
                          Unpooled.copiedBuffer(
                              "HTTP/1.1 200 Connection Established\r\n\r\n",
                              StandardCharsets.US_ASCII))
                      .addListener(
                          w -> {
                            client.config().setAutoRead(true);
                            upstream.config().setAutoRead(true);
                          });
                });
  }

  /** Writes what one side reads to the other; pauses reading while the other is full. */
  private static final class Pipe extends ChannelInboundHandlerAdapter {
    private final Channel other;

    Pipe(Channel other) {
      this.other = other;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      other.writeAndFlush(msg);
      if (!other.isWritable()) {
        ctx.channel().config().setAutoRead(false);
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable()) {
        other.config().setAutoRead(true);
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      other.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
