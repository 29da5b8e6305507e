package dev.relent.proxy;

import dev.relent.RetryPolicy;
import dev.relent.http.Redactor;
import dev.relent.http.adapter.HttpAdapter;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.http.adapter.HttpCallLoop;
import dev.relent.micrometer.RelentMetrics;
import dev.relent.time.Scheduler;
import dev.relent.time.TimeSource;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * A local HTTP proxy that runs every request through relent-http's attempt loop, so that callers in
 * any language (Python, Node, Go, {@code curl}) get the decision table, {@code Retry-After}, the
 * pacer, the retry budget and breaker, idempotency keys and the meters without a code change.
 *
 * <pre>{@code
 * try (RelentProxy proxy =
 *     RelentProxy.builder()
 *         .withReverse("127.0.0.1:8080", URI.create("https://api.example.com"))
 *         .withPolicy(RetryPolicy.builder().withMaxRetries(4).build())
 *         .start()) {
 *   // callers use http://127.0.0.1:8080 as their base URL
 * }
 * }</pre>
 *
 * <p><b>Modes.</b> A <i>reverse</i> listener sends every request to its one upstream ({@code http}
 * or {@code https}, TLS with the JDK's trust store and a host-name check). A <i>forward</i>
 * listener takes absolute {@code http://} URIs ({@code HTTP_PROXY}) for the hosts {@link
 * Builder#withAllowedHosts allowed} only, and refuses any other with 403: never an open proxy.
 * {@code CONNECT} to an allowed host is tunnelled untouched (a TLS stream cannot be retried).
 *
 * <p><b>Per request.</b> One logical call of the loop: writes ({@code POST}, {@code PATCH}) are
 * re-sent only with an {@code Idempotency-Key}, the caller's or one the proxy adds for {@link
 * Builder#withKeyedRoutes keyed routes}. The answer carries {@code Relent-Attempts}; a give-up is a
 * 502, 503 or 504 with {@code Relent-Give-Up} and a problem body ({@code
 * application/problem+json}), never a hang. {@code X-Relent-Deadline: 5s} shortens the policy's
 * deadline for one request. Request bodies up to {@link Builder#withMaxRequestBody} are kept for a
 * resend; a longer one streams once and is not re-sent ({@code Relent-Request-Body}). Answers
 * stream, one read at a time, never held whole.
 *
 * <p><b>Operations.</b> {@code GET /__relent/health} and {@code GET /__relent/metrics} (Prometheus
 * text, relent-micrometer's meters) on every listener; one redacted log line per attempt; {@link
 * #close()} drains: it stops accepting, lets calls in flight end (at most the drain timeout) and
 * answers new requests on open connections 503.
 *
 * <p>Defaults: loopback listeners only; request body kept up to 1 MiB; the adapter defaults of
 * {@link HttpAdapterBuilder} (5 retries, 30 s deadline, 10 s per attempt, no keys for unkeyed
 * writes); client timeout 10 s; idle timeout 60 s; connect timeout 5 s; drain timeout 30 s.
 * docs/proxy.md has the whole story. Thread-safe.
 */
public final class RelentProxy extends HttpAdapter<ProxyResponse> implements AutoCloseable {
  /** A request body longer than this is sent once, not kept for a resend, unless set: 1 MiB. */
  public static final int DEFAULT_MAX_REQUEST_BODY = 1024 * 1024;

  /** One listening address and what it serves. */
  record Listener(
      InetSocketAddress address, URI upstream, Upstreams.Origin origin, String basePath) {
    String label() {
      return address.getAddress().getHostAddress() + ":" + address.getPort();
    }
  }

  private final Settings settings;
  private final EventLoopGroup group;
  private final Upstreams upstreams;
  private final ProxyLog log;
  private final PrometheusMeterRegistry meters;
  private final List<Channel> servers = new ArrayList<>();
  private final List<Listener> bound = new ArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private boolean closed;

  private RelentProxy(
      HttpCallLoop<ProxyResponse> loop,
      Settings settings,
      RelentMetrics metrics,
      EventLoopGroup group) {
    super(loop);
    this.settings = settings;
    this.group = group;
    this.upstreams = new Upstreams(settings.connectTimeout, settings.idleTimeout, settings.tls);
    this.log = new ProxyLog(settings.logSink, settings.time.clock());
    this.meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    metrics.withGuardsOf(loop.executor()).bindTo(meters);
  }

  /**
   * Returns a builder with every setting at its default and no listener.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  private void bind() throws IOException {
    for (Listener l : settings.listeners) {
      ServerBootstrap b =
          new ServerBootstrap()
              .group(group)
              .channel(NioServerSocketChannel.class)
              .option(ChannelOption.SO_BACKLOG, 1024)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      Listener actual = boundOf(l, ch.localAddress());
                      RequestClock clock =
                          new RequestClock(
                              settings.clientTimeout.toNanos(),
                              () ->
                                  log.event(
                                      actual.label(),
                                      "refused-408",
                                      "client-timeout: the request's line and headers did not"
                                          + " arrive within "
                                          + clientTimeoutText(),
                                      null));
                      ChannelPipeline p = ch.pipeline();
                      p.addLast("clock", clock);
                      p.addLast("codec", new HttpServerCodec(8192, 32 * 1024, 64 * 1024));
                      p.addLast("continue", new HttpServerExpectContinueHandler());
                      p.addLast(
                          "idle",
                          new IdleStateHandler(
                              settings.clientTimeout.toNanos(),
                              0,
                              settings.idleTimeout.toNanos(),
                              TimeUnit.NANOSECONDS));
                      p.addLast("proxy", new ClientConnection(RelentProxy.this, actual, clock));
                    }
                  });
      Channel ch;
      try {
        ch = b.bind(l.address()).sync().channel();
      } catch (Exception e) {
        String why =
            e instanceof BindException
                ? "the address is in use (or not this machine's); stop what listens there or"
                    + " choose another port"
                : String.valueOf(e.getMessage());
        throw new IOException("cannot listen on " + l.label() + ": " + why, e);
      }
      servers.add(ch);
      bound.add(
          new Listener(
              (InetSocketAddress) ch.localAddress(), l.upstream(), l.origin(), l.basePath()));
    }
  }

  private Listener boundOf(Listener configured, InetSocketAddress local) {
    return new Listener(
        new InetSocketAddress(configured.address().getAddress(), local.getPort()),
        configured.upstream(),
        configured.origin(),
        configured.basePath());
  }

  /**
   * Returns the addresses the proxy listens on, in the order the listeners were added, with the
   * port chosen when 0 was asked for.
   *
   * @return the addresses
   */
  public List<InetSocketAddress> addresses() {
    List<InetSocketAddress> out = new ArrayList<>();
    for (Listener l : bound) {
      out.add(l.address());
    }
    return out;
  }

  /**
   * Returns the base URI of the first listener, {@code http://127.0.0.1:PORT}.
   *
   * @return the URI callers use
   */
  public URI baseUri() {
    Listener l = bound.get(0);
    return URI.create("http://" + l.label());
  }

  /**
   * Returns the meters as Prometheus text, as {@code /__relent/metrics} serves them.
   *
   * @return the text
   */
  public String scrape() {
    return meters.scrape();
  }

  /**
   * Returns whether the proxy is draining: it accepts no new connection and answers new requests
   * 503.
   *
   * @return true once {@link #close()} began
   */
  public boolean draining() {
    return draining;
  }

  /**
   * Returns how many requests are being answered now.
   *
   * @return 0 or more
   */
  public int inFlight() {
    return inFlight.get();
  }

  /**
   * Stops accepting, lets the requests in flight end (at most the drain timeout), then closes every
   * connection. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    draining = true;
    for (Channel ch : servers) {
      ch.close().syncUninterruptibly();
    }
    if (inFlight.get() == 0) {
      drained.complete(null);
    }
    try {
      // Real time, whatever the time source: callers' answers are awaited, not retry waits.
      drained.get(settings.drainTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // cut below
    }
    if (inFlight.get() > 0) {
      log.event(
          "-",
          "drain-timeout",
          inFlight.get() + " requests still in flight after the drain timeout were cut",
          null);
    }
    upstreams.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    meters.close();
  }

  // ---- for the connections

  HttpCallLoop<ProxyResponse> callLoop() {
    return loop();
  }

  Upstreams upstreams() {
    return upstreams;
  }

  ProxyLog log() {
    return log;
  }

  Redactor redactor() {
    return outcomes().redactor();
  }

  Instant now() {
    return Instant.ofEpochMilli(settings.time.clock().millis());
  }

  boolean attemptLines() {
    return settings.attemptLines && settings.logSink != null;
  }

  int maxRequestBody() {
    return settings.maxRequestBody;
  }

  int connectTimeoutMillis() {
    return (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout.toMillis());
  }

  String clientTimeoutText() {
    return ProxyLog.millis(settings.clientTimeout);
  }

  void callStarted() {
    inFlight.incrementAndGet();
  }

  void callEnded() {
    if (inFlight.decrementAndGet() == 0 && draining) {
      drained.complete(null);
    }
  }

  boolean allows(String host, int port) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return settings.allowed.contains(h) || settings.allowed.contains(h + ":" + port);
  }

  boolean keysRoute(String method, String path) {
    for (KeyedRoute r : settings.keyedRoutes) {
      if (r.matches(method, path)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The deadline of one request: the caller's {@code X-Relent-Deadline} when it is shorter than the
   * policy's, else 0 (the policy's own governs).
   */
  long deadlineNanos(String header) {
    if (header == null) {
      return 0;
    }
    Duration d = Durations.parse(header.strip(), HopByHop.DEADLINE);
    return d.compareTo(settings.policyDeadline) < 0 ? d.toNanos() : 0;
  }

  /** A route that gets an {@code Idempotency-Key} from the proxy when its writes come without. */
  record KeyedRoute(String method, Pattern path, String text) {
    static KeyedRoute parse(String route) {
      String t = route.strip();
      String method = null;
      int space = t.indexOf(' ');
      if (space > 0) {
        method = t.substring(0, space).toUpperCase(Locale.ROOT);
        t = t.substring(space + 1).strip();
      }
      if (!t.startsWith("/")) {
        throw new IllegalArgumentException(
            "a keyed route is [METHOD] /path, with {name} for one segment, e.g. POST"
                + " /v1/payments or /v1/orders/{id}: "
                + route);
      }
      StringBuilder regex = new StringBuilder();
      Matcher m = Pattern.compile("\\{[^/{}]+\\}").matcher(t);
      int at = 0;
      while (m.find()) {
        regex.append(Pattern.quote(t.substring(at, m.start()))).append("[^/]+");
        at = m.end();
      }
      regex.append(Pattern.quote(t.substring(at)));
      return new KeyedRoute(method, Pattern.compile(regex.toString()), route.strip());
    }

    boolean matches(String m, String p) {
      boolean methodOk = method == null ? m.equals("POST") || m.equals("PATCH") : method.equals(m);
      return methodOk && path.matcher(p).matches();
    }
  }

  /** What the builder hands the proxy: immutable. */
  private static final class Settings {
    List<Listener> listeners;
    Set<String> allowed;
    List<KeyedRoute> keyedRoutes;
    int maxRequestBody;
    Duration clientTimeout;
    Duration idleTimeout;
    Duration connectTimeout;
    Duration drainTimeout;
    Duration policyDeadline;
    Consumer<String> logSink;
    TimeSource time;
    int threads;
    boolean attemptLines;
    io.netty.handler.ssl.SslContext tls;
  }

  /**
   * Builds a {@link RelentProxy}: its listeners and forward-mode hosts, its body limit, keyed
   * routes and timeouts, and, from {@link HttpAdapterBuilder}, every setting of the attempt loop
   * (policy, decision table, executor guards, scopes, time). Mutable and not thread-safe.
   */
  public static final class Builder extends HttpAdapterBuilder<ProxyResponse, Builder> {
    private final List<Listener> listeners = new ArrayList<>();
    private final Set<String> allowed = new LinkedHashSet<>();
    private final List<KeyedRoute> keyedRoutes = new ArrayList<>();
    private int maxRequestBody = DEFAULT_MAX_REQUEST_BODY;
    private Duration clientTimeout = Duration.ofSeconds(10);
    private Duration idleTimeout = Duration.ofSeconds(60);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration drainTimeout = Duration.ofSeconds(30);
    private Duration policyDeadline = RetryPolicy.ofDefaults().config().deadline();
    private Consumer<String> logSink = LoggerFactory.getLogger("dev.relent.proxy")::info;
    private TimeSource time = TimeSource.system();
    private boolean anyInterface;
    private String meterName = "proxy";
    private int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    private boolean attemptLines = true;
    private io.netty.handler.ssl.SslContext tls;

    Builder() {
      withoutLogging(); // the proxy writes its own line per attempt
    }

    /**
     * Adds a reverse listener: every request to {@code listen} goes to {@code upstream}, its path
     * appended to the upstream's.
     *
     * @param listen {@code HOST:PORT}, e.g. {@code 127.0.0.1:8080}; port 0 picks a free one
     * @param upstream {@code http://} or {@code https://} host, port and optional base path; no
     *     user information, query or fragment
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if either is malformed, saying what is accepted
     */
    public Builder withReverse(String listen, URI upstream) {
      Objects.requireNonNull(upstream, "upstream cannot be null");
      String scheme =
          upstream.getScheme() == null ? "" : upstream.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new IllegalArgumentException(
            "upstream must be an http:// or https:// URI, e.g. https://api.example.com: "
                + upstream);
      }
      if (upstream.getHost() == null) {
        throw new IllegalArgumentException("upstream names no host: " + upstream);
      }
      if (upstream.getRawUserInfo() != null) {
        throw new IllegalArgumentException(
            "upstream must not carry credentials (they would reach logs); send them as a header: "
                + Redactor.ofDefaults().uri(upstream));
      }
      if (upstream.getRawQuery() != null || upstream.getRawFragment() != null) {
        throw new IllegalArgumentException("upstream takes no query or fragment: " + upstream);
      }
      boolean tls = scheme.equals("https");
      int port = upstream.getPort() < 0 ? (tls ? 443 : 80) : upstream.getPort();
      String base = upstream.getRawPath() == null ? "" : upstream.getRawPath();
      if (base.endsWith("/")) {
        base = base.substring(0, base.length() - 1);
      }
      listeners.add(
          new Listener(
              address(listen),
              upstream,
              new Upstreams.Origin(tls, upstream.getHost(), port),
              base));
      return this;
    }

    /**
     * Adds a forward listener: it takes absolute {@code http://} URIs ({@code HTTP_PROXY}) to the
     * {@linkplain #withAllowedHosts allowed hosts}, and {@code CONNECT} to them. A reverse listener
     * does the same for such requests.
     *
     * @param listen {@code HOST:PORT}
     * @return this builder
     * @throws IllegalArgumentException if {@code listen} is malformed
     */
    public Builder withForward(String listen) {
      listeners.add(new Listener(address(listen), null, null, ""));
      return this;
    }

    /**
     * Allows forward mode and {@code CONNECT} to reach these hosts: {@code host} (any port) or
     * {@code host:port}. Default none: a forward request is refused with 403.
     *
     * @param hosts the hosts
     * @return this builder
     * @throws IllegalArgumentException if a host is empty or has a scheme or path
     */
    public Builder withAllowedHosts(String... hosts) {
      for (String h : hosts) {
        String t =
            Objects.requireNonNull(h, "host cannot be null").strip().toLowerCase(Locale.ROOT);
        if (t.isEmpty() || t.contains("/") || t.contains("@")) {
          throw new IllegalArgumentException(
              "an allowed host is HOST or HOST:PORT, e.g. api.internal or 10.0.0.5:8080: '"
                  + h
                  + "'");
        }
        allowed.add(t);
      }
      return this;
    }

    /**
     * Sets the longest request body kept in memory for a resend; a longer one is sent once as it
     * arrives, and a failure after it began is not retried. Default 1 MiB.
     *
     * @param bytes 0 or more
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder withMaxRequestBody(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxRequestBody must be >= 0: " + bytes + " bytes");
      }
      this.maxRequestBody = bytes;
      return this;
    }

    /**
     * Gives writes to these routes an {@code Idempotency-Key} when they come without one, so that
     * they are retried like idempotent requests; only for upstreams that deduplicate by key. A
     * route is {@code [METHOD] /path}, {@code {name}} matching one segment; without a method it
     * covers POST and PATCH. Default none.
     *
     * @param routes e.g. {@code "POST /v1/payments"}, {@code "/v1/orders/{id}"}
     * @return this builder
     * @throws IllegalArgumentException if a route is malformed
     */
    public Builder withKeyedRoutes(String... routes) {
      for (String r : routes) {
        keyedRoutes.add(KeyedRoute.parse(Objects.requireNonNull(r, "route cannot be null")));
      }
      return this;
    }

    /**
     * Sets how long a caller may take to send a request's head (from its first byte), and how long
     * its body may pause; past it the caller gets 408. Default 10 s.
     *
     * @param timeout positive
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder withClientTimeout(Duration timeout) {
      this.clientTimeout = positive(timeout, "clientTimeout");
      return this;
    }

    /**
     * Sets how long an idle kept-alive connection stays open, on either side, and how long an
     * upstream body may stall before the answer is cut. Default 60 s.
     *
     * @param timeout positive
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder withIdleTimeout(Duration timeout) {
      this.idleTimeout = positive(timeout, "idleTimeout");
      return this;
    }

    /**
     * Sets the connect timeout to upstreams (each attempt is bounded by its own time limit as
     * well). Default 5 s.
     *
     * @param timeout positive
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder withConnectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /**
     * Sets how long {@link RelentProxy#close()} lets requests in flight end. Default 30 s.
     *
     * @param timeout 0 or more
     * @return this builder
     * @throws IllegalArgumentException if negative
     */
    public Builder withDrainTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "drainTimeout cannot be null");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must be >= 0: " + timeout);
      }
      this.drainTimeout = timeout;
      return this;
    }

    /**
     * Sets where the log lines go (one per attempt, give-up and refused request). Default the SLF4J
     * logger {@code dev.relent.proxy} at INFO.
     *
     * @param sink takes each line; null for none
     * @return this builder
     */
    public Builder withLogSink(Consumer<String> sink) {
      this.logSink = sink;
      return this;
    }

    /**
     * Sets whether each attempt gets a log line; give-ups and refused requests always do. Default
     * true.
     *
     * @param enabled whether to write a line per attempt
     * @return this builder
     */
    public Builder withAttemptLines(boolean enabled) {
      this.attemptLines = enabled;
      return this;
    }

    /**
     * Allows listeners on addresses other than loopback. Default false: a proxy reachable from
     * other machines would lend them the account's credentials and budget.
     *
     * @param enabled whether any interface may be used
     * @return this builder
     */
    public Builder withAnyInterface(boolean enabled) {
      this.anyInterface = enabled;
      return this;
    }

    /**
     * Sets the {@code name} tag of the meters. Default {@code proxy}.
     *
     * @param name the name
     * @return this builder
     * @throws NullPointerException if null
     */
    public Builder withMeterName(String name) {
      this.meterName = Objects.requireNonNull(name, "name cannot be null");
      return this;
    }

    /**
     * Sets the number of event-loop threads for callers and upstreams. Default the processors.
     *
     * @param threads 1 or more
     * @return this builder
     * @throws IllegalArgumentException if less than 1
     */
    public Builder withThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1: " + threads);
      }
      this.threads = threads;
      return this;
    }

    /**
     * Sets the TLS of upstream connections, for tests that trust a certificate of their own.
     * Default: the JDK's trust store with the host-name check of HTTPS.
     */
    Builder withUpstreamTls(io.netty.handler.ssl.SslContext context) {
      this.tls = context;
      return this;
    }

    @Override
    public Builder withPolicy(RetryPolicy policy) {
      super.withPolicy(policy);
      this.policyDeadline = policy.config().deadline();
      return this;
    }

    @Override
    public Builder withTime(TimeSource time) {
      super.withTime(time);
      this.time = time;
      return this;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name + " cannot be null");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0: " + d);
      }
      return d;
    }

    private static InetSocketAddress address(String listen) {
      Objects.requireNonNull(listen, "listen cannot be null");
      int colon = listen.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "a listen address is HOST:PORT, e.g. 127.0.0.1:8080: '" + listen + "'");
      }
      String host = listen.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(listen.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "the port of a listen address must be a number, e.g. 127.0.0.1:8080: '" + listen + "'");
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("the port must be 0 to 65535: " + port);
      }
      try {
        return new InetSocketAddress(InetAddress.getByName(host), port);
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("cannot resolve the listen host '" + host + "'", e);
      }
    }

    /**
     * Builds the proxy and starts listening.
     *
     * @return the running proxy
     * @throws IllegalStateException if no listener was added, or one is not on loopback without
     *     {@link #withAnyInterface}
     * @throws IOException if an address cannot be bound (in use, not this machine's)
     */
    public RelentProxy start() throws IOException {
      if (listeners.isEmpty()) {
        throw new IllegalStateException(
            "no listener: add withReverse(listen, upstream) or withForward(listen)");
      }
      for (Listener l : listeners) {
        if (!anyInterface && !l.address().getAddress().isLoopbackAddress()) {
          throw new IllegalStateException(
              "listener "
                  + l.label()
                  + " is not on loopback: other machines could send through this proxy with its"
                  + " credentials and budget; listen on 127.0.0.1, or allow it with"
                  + " withAnyInterface(true)");
        }
      }
      RelentMetrics metrics = RelentMetrics.of(meterName);
      withExecutor(x -> x.onEvent(metrics.listener()));
      EventLoopGroup group =
          new MultiThreadIoEventLoopGroup(
              threads, new DefaultThreadFactory("relent-proxy", true), NioIoHandler.newFactory());
      if (time.scheduler() == Scheduler.system()) {
        // The executor's timers (attempt timeouts, waits between attempts) on the proxy's own
        // event loops: one per attempt, cancelled as often as not, which the system scheduler's
        // single queue would hold until they were due.
        super.withTime(
            TimeSource.of(
                time.ticker(),
                time.clock(),
                time.sleeper(),
                (task, delayNanos) ->
                    group.next().schedule(task, Math.max(0L, delayNanos), TimeUnit.NANOSECONDS),
                time.random()));
      }
      Settings s = new Settings();
      s.listeners = List.copyOf(listeners);
      s.allowed = Set.copyOf(allowed);
      s.keyedRoutes = List.copyOf(keyedRoutes);
      s.maxRequestBody = maxRequestBody;
      s.clientTimeout = clientTimeout;
      s.idleTimeout = idleTimeout;
      s.connectTimeout = connectTimeout;
      s.drainTimeout = drainTimeout;
      s.policyDeadline = policyDeadline;
      s.logSink = logSink;
      s.time = time;
      s.threads = threads;
      s.attemptLines = attemptLines;
      s.tls = tls;
      RelentProxy proxy = new RelentProxy(buildLoop(ProxyAccess.INSTANCE), s, metrics, group);
      try {
        proxy.bind();
      } catch (IOException | RuntimeException e) {
        proxy.close();
        throw e;
      }
      return proxy;
    }
  }
}
