/*
 * A rate limiter that tells its clients everything, for bench/limiters.sh: one limit for every
 * request (an account-wide limit), on 127.0.0.1, JDK only. Run it with the source launcher:
 *
 *   java bench/HeaderLimiter.java --port P --mode fixed|moving --limit N --window-ms W
 *
 * fixed:  a fixed window of W ms that opens at the first request after the previous one closed;
 *         N requests are served in it, the rest answered 429 until it closes. Reset is its end.
 * moving: a sliding log: a request is served when fewer than N were served in the last W ms.
 *         Reset is when the oldest of those leaves the window.
 *
 * Every answer, 200 and 429 alike, carries X-RateLimit-Limit (N), X-RateLimit-Remaining (N minus
 * the requests counted in the window, this one included), X-RateLimit-Reset (the reset as epoch
 * seconds, rounded up) and Retry-After (seconds to the reset, rounded up, at least 1): some real
 * APIs send Retry-After on a 2xx too. A refused request is not counted in the window.
 *
 * Each counted request is a line on stdout, "<epoch ms> <status> <path>", in the order decided.
 * GET /__counts answers "200 <served>\n429 <refused>\n" and is counted in neither; the counts also
 * go to stderr when the process ends (SIGTERM included). Bad flags: a message, exit 2.
 *
 * Thread-safety: handlers run on a small pool; every read and write of the window and the counts
 * happens under one lock, so each decision sees the decisions made before it.
 */
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public final class HeaderLimiter {
  private final boolean moving;
  private final int limit;
  private final long windowMs;
  private final Object lock = new Object();
  // fixed: the open window's start, or -1 when none is open; moving: the served requests' times.
  private long windowStart = -1;
  private int inWindow;
  private final ArrayDeque<Long> served = new ArrayDeque<>();
  private long served200;
  private long refused429;

  private HeaderLimiter(boolean moving, int limit, long windowMs) {
    this.moving = moving;
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** One answer: whether it is served, what is left and when the window resets (epoch ms). */
  private record Decision(boolean allowed, int remaining, long resetMs, long nowMs) {}

  private Decision decide(String path) {
    synchronized (lock) {
      long now = System.currentTimeMillis();
      boolean allowed;
      long reset;
      int count;
      if (moving) {
        while (!served.isEmpty() && served.peekFirst() <= now - windowMs) {
          served.pollFirst();
        }
        allowed = served.size() < limit;
        if (allowed) {
          served.addLast(now);
        }
        count = served.size();
        reset = served.isEmpty() ? now : served.peekFirst() + windowMs;
      } else {
        if (windowStart < 0 || now >= windowStart + windowMs) {
          windowStart = now;
          inWindow = 0;
        }
        allowed = inWindow < limit;
        if (allowed) {
          inWindow++;
        }
        count = inWindow;
        reset = windowStart + windowMs;
      }
      if (allowed) {
        served200++;
      } else {
        refused429++;
      }
      System.out.println(now + " " + (allowed ? 200 : 429) + " " + path);
      return new Decision(allowed, Math.max(0, limit - count), reset, now);
    }
  }

  private String counts() {
    synchronized (lock) {
      return "200 " + served200 + "\n429 " + refused429 + "\n";
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      if (path.equals("/__counts")) {
        send(exchange, 200, counts());
        return;
      }
      Decision d = decide(path);
      Map<String, String> headers = new HashMap<>();
      headers.put("X-RateLimit-Limit", Integer.toString(limit));
      headers.put("X-RateLimit-Remaining", Integer.toString(d.remaining()));
      headers.put("X-RateLimit-Reset", Long.toString(Math.floorDiv(d.resetMs() + 999, 1000)));
      long retryAfter = Math.max(1, Math.floorDiv(d.resetMs() - d.nowMs() + 999, 1000));
      headers.put("Retry-After", Long.toString(retryAfter));
      headers.forEach(exchange.getResponseHeaders()::set);
      send(exchange, d.allowed() ? 200 : 429, d.allowed() ? "ok\n" : "rate limited\n");
    }
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String name = args[i];
      if (!(name.equals("--port") || name.equals("--mode") || name.equals("--limit")
          || name.equals("--window-ms"))) {
        usage("unknown flag " + name);
      }
      if (i + 1 >= args.length) {
        usage(name + " needs a value");
      }
      flags.put(name, args[i + 1]);
    }
    int port = (int) number(flags, "--port", 1, 65535);
    String mode = flags.get("--mode");
    if (mode == null || !(mode.equals("fixed") || mode.equals("moving"))) {
      usage("--mode must be fixed or moving: " + mode);
    }
    int limit = (int) number(flags, "--limit", 1, Integer.MAX_VALUE);
    long windowMs = number(flags, "--window-ms", 1, Long.MAX_VALUE / 4);

    HeaderLimiter limiter = new HeaderLimiter(mode.equals("moving"), limit, windowMs);
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    } catch (IOException e) {
      System.err.println("HeaderLimiter: cannot listen on 127.0.0.1:" + port + ": " + e);
      System.exit(1);
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    server.setExecutor(pool);
    server.createContext("/", limiter::handle);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.print(limiter.counts())));
    server.start();
    System.err.printf(
        "HeaderLimiter: %s window, %d per %d ms, on 127.0.0.1:%d%n", mode, limit, windowMs, port);
  }

  private static long number(Map<String, String> flags, String name, long min, long max) {
    String value = flags.get(name);
    if (value == null) {
      usage(name + " is required");
    }
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      usage(name + " must be a whole number: " + value);
      return 0;
    }
    if (n < min || n > max) {
      usage(name + " must be " + min + " to " + max + ": " + n);
    }
    return n;
  }

  private static void usage(String why) {
    System.err.println("HeaderLimiter: " + why);
    System.err.println(
        "usage: java bench/HeaderLimiter.java --port P --mode fixed|moving --limit N --window-ms W");
    System.exit(2);
  }
}
