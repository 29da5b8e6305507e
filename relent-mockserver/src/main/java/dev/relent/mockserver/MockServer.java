package dev.relent.mockserver;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A fault-injecting HTTP/1.1 server for tests, answering a {@link Scenario}.
 *
 * <pre>{@code
 * try (MockServer server = MockServer.start(Scenario.parse(Path.of("scenario.json")))) {
 *   URI flaky = server.baseUri().resolve("/flaky");
 *   // ... call it; then look at what the server saw:
 *   assertThat(server.journal()).hasSize(3);
 *   assertThat(server.stats().requests("GET /flaky")).isEqualTo(3);
 * }
 * }</pre>
 *
 * <p>Listens on 127.0.0.1 and an ephemeral port unless told otherwise, with keep-alive and
 * pipelining. Besides the scenario's routes it answers {@code GET /__relent/journal}, {@code GET
 * /__relent/stats}, {@code POST /__relent/reset} and {@code GET /__relent/health} (JSON; see {@code
 * docs/mockserver.md}).
 *
 * <p>Thread-safe: {@link #journal()}, {@link #stats()} and {@link #reset()} may be called from any
 * thread while requests are served. {@link #close()} stops listening, closes every connection and
 * waits for the server's threads to end.
 */
public final class MockServer implements AutoCloseable {

  /** The ports a server may listen on, 0 for an ephemeral one. */
  static final IntRange PORT = new IntRange("port", 0, 65_535);

  private static final IntRange THREADS = IntRange.atLeast("threads", 1);

  private final Scenario scenario;
  private final Engine engine;
  private final EventLoopGroup group;
  private final Channel channel;
  private final String host;
  private final int port;

  private MockServer(
      Scenario scenario, Engine engine, EventLoopGroup group, Channel channel, String host) {
    this.scenario = scenario;
    this.engine = engine;
    this.group = group;
    this.channel = channel;
    this.host = host;
    this.port = ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /**
   * Starts a server for {@code scenario} on 127.0.0.1 and an ephemeral port (or the file's {@code
   * server} settings), with the system clock.
   *
   * @param scenario what to answer
   * @return the running server
   * @throws NullPointerException if {@code scenario} is null
   * @throws UncheckedIOException if the server cannot listen
   */
  public static MockServer start(Scenario scenario) {
    return builder(scenario).start();
  }

  /**
   * Returns a builder for a server answering {@code scenario}.
   *
   * @param scenario what to answer
   * @return a new builder
   * @throws NullPointerException if {@code scenario} is null
   */
  public static Builder builder(Scenario scenario) {
    return new Builder(Objects.requireNonNull(scenario, "scenario cannot be null"));
  }

  /**
   * Returns the port the server listens on.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * Returns the address the server listens on, such as {@code 127.0.0.1}.
   *
   * @return the host
   */
  public String host() {
    return host;
  }

  /**
   * Returns the server's base URI, {@code http://HOST:PORT}, without a trailing slash.
   *
   * @return the base URI
   */
  public URI baseUri() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return URI.create("http://" + h + ":" + port);
  }

  /**
   * Returns {@code baseUri() + path}.
   *
   * @param path a path starting with {@code /}, with an optional query
   * @return the URI
   * @throws IllegalArgumentException if {@code path} does not start with {@code /}
   */
  public URI uri(String path) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with /: " + JsonText.quote(path));
    }
    return URI.create(baseUri() + path);
  }

  /**
   * Returns the scenario this server answers.
   *
   * @return the scenario
   */
  public Scenario scenario() {
    return scenario;
  }

  /**
   * Returns the journal since start or the last {@link #reset()}: at most the journal capacity,
   * oldest first, credentials redacted.
   *
   * @return an immutable snapshot
   */
  public List<JournalEntry> journal() {
    return List.copyOf(engine.journal.entries());
  }

  /**
   * Returns the journal as the JSON that {@code GET /__relent/journal} answers.
   *
   * @return the JSON text
   */
  public String journalJson() {
    return new String(
        Admin.journalJson(
            engine.journal.entries(), engine.journal.capacity(), engine.journal.total()),
        java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * Returns the counters since start or the last {@link #reset()}.
   *
   * @return a snapshot
   */
  public MockServerStats stats() {
    return engine.stats();
  }

  /**
   * Starts the scenario over: step counters, rate-limit buckets, quotas, resources, idempotency
   * keys, journal and counters. Requests being answered finish as planned.
   */
  public void reset() {
    engine.reset();
  }

  /** Stops listening, closes every connection and ends the server's threads. Idempotent. */
  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Checks an address to listen on, set on a server or in a scenario file. */
  static String checkHost(String host) {
    Objects.requireNonNull(host, "host cannot be null");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    return host;
  }

  /** Blocks until the server is closed (for a command-line launcher). */
  void awaitClose() {
    channel.closeFuture().syncUninterruptibly();
  }

  /**
   * Configures and starts a {@link MockServer}. Defaults: host 127.0.0.1, an ephemeral port (the
   * scenario file's {@code server} section may set both), {@link MockClock#system()}, the
   * scenario's journal capacity (10 000), one event-loop thread per processor. Mutable and not
   * thread-safe.
   */
  public static final class Builder {
    private final Scenario scenario;
    private String host;
    private Integer port;
    private MockClock clock = MockClock.system();
    private Integer journalCapacity;
    private int threads = Runtime.getRuntime().availableProcessors();

    private Builder(Scenario scenario) {
      this.scenario = scenario;
    }

    /**
     * Sets the address to listen on (default 127.0.0.1). Anything but a loopback address exposes
     * the server to the network: only for deliberate use.
     *
     * @param host an IP address or host name
     * @return this builder
     * @throws NullPointerException if {@code host} is null
     * @throws IllegalArgumentException if {@code host} is blank
     */
    public Builder withHost(String host) {
      this.host = checkHost(host);
      return this;
    }

    /**
     * Sets the port (default 0: an ephemeral port, see {@link MockServer#port()}).
     *
     * @param port 0..65535
     * @return this builder
     * @throws IllegalArgumentException if {@code port} is outside 0..65535
     */
    public Builder withPort(int port) {
      this.port = PORT.check(port);
      return this;
    }

    /**
     * Sets the clock for dates, rate limits, quotas and idempotency expiry (default {@link
     * MockClock#system()}).
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder withClock(MockClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock cannot be null");
      return this;
    }

    /**
     * Sets how many journal entries are kept, overriding the scenario's.
     *
     * @param capacity 1 to 10 000 000 entries
     * @return this builder
     * @throws IllegalArgumentException if {@code capacity} is outside 1..10 000 000
     */
    public Builder withJournalCapacity(int capacity) {
      this.journalCapacity = Journal.CAPACITY.check(capacity);
      return this;
    }

    /**
     * Sets the number of event-loop threads (default: one per available processor).
     *
     * @param threads 1 or more
     * @return this builder
     * @throws IllegalArgumentException if {@code threads} is less than 1
     */
    public Builder withThreads(int threads) {
      this.threads = THREADS.check(threads);
      return this;
    }

    /**
     * Starts the server.
     *
     * @return the running server
     * @throws UncheckedIOException if it cannot listen (the message names the address)
     */
    public MockServer start() {
      String h = host != null ? host : scenario.host() != null ? scenario.host() : "127.0.0.1";
      int p = port != null ? port : scenario.port() != null ? scenario.port() : 0;
      int capacity = journalCapacity != null ? journalCapacity : scenario.journalCapacity();
      Engine engine = new Engine(scenario, clock, capacity);
      Admin admin = new Admin(engine);
      EventLoopGroup group =
          new MultiThreadIoEventLoopGroup(
              threads, new DefaultThreadFactory("relent-mock", true), NioIoHandler.newFactory());
      try {
        Channel channel =
            new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(
                    new ChannelInitializer<SocketChannel>() {
                      @Override
                      protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                            .addLast(
                                new HttpServerCodec(),
                                new HttpServerExpectContinueHandler(),
                                new Connection(engine, admin));
                      }
                    })
                .bind(h, p)
                .syncUninterruptibly()
                .channel();
        return new MockServer(scenario, engine, group, channel, h);
      } catch (Exception e) {
        // syncUninterruptibly rethrows the bind's checked exception (BindException) undeclared.
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        throw new UncheckedIOException(
            "relent mock cannot listen on " + h + ":" + p + ": " + e.getMessage(),
            e instanceof IOException ? (IOException) e : new IOException(e));
      }
    }
  }
}
