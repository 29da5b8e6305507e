package dev.relent.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.ChannelPool;
import io.netty.channel.pool.SimpleChannelPool;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The proxy's connections to its upstreams: one pool of kept-alive HTTP/1.1 connections per origin
 * (scheme, host, port), made on the proxy's own event loops with Netty's client codec, TLS with the
 * JDK's trust store and host-name check for {@code https}. Channels read as data comes; an attempt
 * stops reads while its caller cannot take more ({@link UpstreamAttempt#pause}).
 *
 * <p>Thread-safe: pools are made once per origin and event loop, and shared.
 */
final class Upstreams implements AutoCloseable {
  /** The attempt a pooled channel is serving now, or none while it sits in its pool. */
  static final AttributeKey<UpstreamAttempt> CURRENT = AttributeKey.valueOf("relent.attempt");

  /** Where a channel of a pool leads. */
  record Origin(boolean tls, String host, int port) {
    String authority() {
      boolean usual = port == (tls ? 443 : 80);
      String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
      return usual ? h : h + ":" + port;
    }

    @Override
    public String toString() {
      return (tls ? "https://" : "http://") + authority();
    }
  }

  private final SslContext ssl;
  private final int connectTimeoutMillis;
  private final long idleNanos;
  private final ConcurrentMap<Key, ChannelPool> pools = new ConcurrentHashMap<>();

  /**
   * A pool serves one origin on one event loop: the caller's. A request and its upstream exchange
   * then run on one thread, with no hand-over between loops.
   */
  private record Key(Origin origin, EventLoop loop) {}

  Upstreams(Duration connectTimeout, Duration idleTimeout, SslContext tls) {
    this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
    this.idleNanos = idleTimeout.toNanos();
    this.ssl = tls != null ? tls : jdkTrust();
  }

  /** TLS with the JDK's trust store and the host-name check of HTTPS. */
  static SslContext jdkTrust() {
    try {
      return SslContextBuilder.forClient()
          .sslProvider(SslProvider.JDK)
          .endpointIdentificationAlgorithm("HTTPS")
          .build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot set up TLS with the JDK's trust store: " + e, e);
    }
  }

  /** Takes a kept-alive connection to {@code origin} on {@code loop}, or makes a new one. */
  Future<Channel> acquire(Origin origin, EventLoop loop) {
    return pools.computeIfAbsent(new Key(origin, loop), this::pool).acquire();
  }

  /** Gives a connection whose exchange ended cleanly back to its pool. */
  void release(Origin origin, Channel channel) {
    channel.attr(CURRENT).set(null);
    ChannelPool pool = pools.get(new Key(origin, channel.eventLoop()));
    if (pool == null) {
      channel.close();
    } else {
      pool.release(channel);
    }
  }

  private ChannelPool pool(Key key) {
    Origin origin = key.origin();
    Bootstrap b =
        new Bootstrap()
            .group(key.loop())
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
            .remoteAddress(origin.host(), origin.port());
    return new SimpleChannelPool(
        b,
        new AbstractChannelPoolHandler() {
          @Override
          public void channelCreated(Channel ch) {
            ChannelPipeline p = ch.pipeline();
            if (origin.tls()) {
              p.addLast("tls", ssl.newHandler(ch.alloc(), origin.host(), origin.port()));
            }
            p.addLast("codec", new HttpClientCodec(4096, 64 * 1024, 64 * 1024));
            p.addLast("idle", new IdleStateHandler(0, 0, idleNanos, TimeUnit.NANOSECONDS));
            p.addLast("attempt", new Dispatch());
          }
        },
        ChannelHealthChecker.ACTIVE,
        true,
        true);
  }

  /** The TLS handler of a channel, or null for plain http. */
  static SslHandler tls(Channel channel) {
    return channel.pipeline().get(SslHandler.class);
  }

  @Override
  public void close() {
    for (ChannelPool pool : pools.values()) {
      pool.close();
    }
    pools.clear();
  }

  /** Hands each event of a channel to the attempt it serves; an idle pooled channel is closed. */
  private static final class Dispatch extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      UpstreamAttempt a = ctx.channel().attr(CURRENT).get();
      if (a == null) {
        io.netty.util.ReferenceCountUtil.release(msg);
        ctx.close();
        return;
      }
      a.onMessage(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      UpstreamAttempt a = ctx.channel().attr(CURRENT).get();
      if (a != null) {
        a.onClosed();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      UpstreamAttempt a = ctx.channel().attr(CURRENT).get();
      if (a != null) {
        a.onFailure(cause);
      }
      ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleStateEvent) {
        UpstreamAttempt a = ctx.channel().attr(CURRENT).get();
        if (a == null) {
          ctx.close();
        } else {
          a.onIdle();
        }
      }
      ctx.fireUserEventTriggered(evt);
    }
  }
}
