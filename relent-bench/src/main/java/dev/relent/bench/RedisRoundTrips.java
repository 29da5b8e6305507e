package dev.relent.bench;

import dev.relent.time.Ticker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the Redis commands each decision of {@link RedisLimiters} costs, Relent's and Bucket4j's,
 * for each limit and for 1 and 8 threads, and prints a Markdown table. Two passes per case:
 *
 * <ol>
 *   <li><b>server</b>: {@code INFO commandstats} before and after a run of {@code seconds} without
 *       anything else attached, divided by the decisions made. Redis counts the commands a script
 *       calls as well as the ones clients send, and counts every client of the server: run it while
 *       nobody else uses that Redis ({@code connected_clients} is printed).
 *   <li><b>client</b>: the same run watched with {@code MONITOR}, counting only lines that name the
 *       limiter's own key, split into commands sent by a client (round trips) and commands run
 *       inside a script ({@code [0 lua]}). Exact, and blind to other clients; MONITOR slows Redis
 *       down, so contention (Bucket4j's compare-and-swap retries) can differ from pass 1.
 * </ol>
 *
 * <pre>
 * java -cp relent-bench/target/benchmarks.jar dev.relent.bench.RedisRoundTrips redis://127.0.0.1:6379 3
 * </pre>
 */
public final class RedisRoundTrips {
  private static final Ticker TICKER = Ticker.system();

  private RedisRoundTrips() {}

  /**
   * Runs every case and prints the table.
   *
   * @param args the Redis URI (default {@code redis://127.0.0.1:6379}) and the seconds per pass
   *     (default 3)
   * @throws Exception if Redis cannot be reached or a worker fails
   */
  public static void main(String[] args) throws Exception {
    String uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
    long runNanos = (long) (seconds * 1e9);
    StringBuilder out = new StringBuilder();
    out.append(
            "| library | limit | threads | decisions/s | refused | server: commands per decision")
        .append(" (INFO commandstats) | client commands per decision (MONITOR) | round trips per")
        .append(" decision | in scripts per decision (MONITOR) |\n")
        .append("| --- | --- | ---: | ---: | ---: | --- | --- | ---: | --- |\n");
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> admin = client.connect()) {
      RedisCommands<String, String> commands = admin.sync();
      // This tool's own connection is one of them.
      long others = Long.parseLong(field(commands.info("clients"), "connected_clients")) - 1;
      for (RedisLimiters.Limit limit : RedisLimiters.Limit.values()) {
        for (String library : RedisLimiters.LIBRARIES) {
          for (int threads : new int[] {1, 8}) {
            out.append(row(uri, commands, library, limit, threads, runNanos)).append('\n');
          }
        }
      }
      out.append("\nOther clients connected to Redis at the start: ")
          .append(others)
          .append(" (the server pass counts their commands too).\n");
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    System.out.print(out);
  }

  private static String row(
      String uri,
      RedisCommands<String, String> admin,
      String library,
      RedisLimiters.Limit limit,
      int threads,
      long runNanos)
      throws Exception {
    Run server;
    Map<String, Long> stats;
    Map<String, Long> micros;
    try (RedisLimiters.Limiter limiter = RedisLimiters.connect(library, limit, uri)) {
      limiter.decide(); // connects, loads the script, creates the key
      String before = admin.info("commandstats");
      server = run(limiter, threads, runNanos);
      String after = admin.info("commandstats");
      stats = minus(commandCalls(after, "calls"), commandCalls(before, "calls"));
      stats.remove("info");
      micros = minus(commandCalls(after, "usec"), commandCalls(before, "usec"));
    }
    Run watched;
    Monitor monitor;
    try (RedisLimiters.Limiter limiter = RedisLimiters.connect(library, limit, uri)) {
      limiter.decide();
      monitor = Monitor.start(uri, limiter.key());
      watched = run(limiter, threads, runNanos);
      admin.echo(monitor.marker);
      monitor.awaitMarker();
    }
    double clientTotal = monitor.client.values().stream().mapToLong(Long::longValue).sum();
    return String.format(
        Locale.ROOT,
        "| %s | %s | %d | %,.0f | %.1f %% | %s | %s | **%.2f** | %s |",
        library,
        limit.name().toLowerCase(Locale.ROOT),
        threads,
        server.decisions / (server.nanos / 1e9),
        100.0 * server.refused / server.decisions,
        withMicros(perDecision(stats, server.decisions), stats, micros),
        perDecision(monitor.client, watched.decisions),
        clientTotal / watched.decisions,
        perDecision(monitor.lua, watched.decisions));
  }

  /** Decisions made by {@code threads} threads on one limiter for {@code runNanos}. */
  private static Run run(RedisLimiters.Limiter limiter, int threads, long runNanos)
      throws InterruptedException {
    AtomicLong decisions = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    List<Throwable> failures = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    long[] window = new long[2];
    for (int i = 0; i < threads; i++) {
      Thread worker =
          new Thread(
              () -> {
                long made = 0;
                long no = 0;
                try {
                  start.await();
                  long end = window[0] + runNanos;
                  while (TICKER.read() - end < 0) {
                    if (limiter.decide() < 0) {
                      no++;
                    }
                    made++;
                  }
                } catch (InterruptedException | RuntimeException e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
                decisions.addAndGet(made);
                refused.addAndGet(no);
              },
              "round-trips-" + i);
      workers.add(worker);
      worker.start();
    }
    window[0] = TICKER.read();
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    window[1] = TICKER.read();
    if (!failures.isEmpty()) {
      throw new IllegalStateException("a worker failed: " + failures.get(0), failures.get(0));
    }
    return new Run(decisions.get(), refused.get(), window[1] - window[0]);
  }

  private record Run(long decisions, long refused, long nanos) {}

  /**
   * One field ({@code calls}, {@code usec}) of each {@code cmdstat_<name>} line of {@code INFO
   * commandstats}.
   */
  static Map<String, Long> commandCalls(String info, String field) {
    Map<String, Long> calls = new TreeMap<>();
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        int colon = line.indexOf(':');
        int from = line.indexOf(field + "=", colon) + field.length() + 1;
        int to = line.indexOf(',', from);
        calls.put(
            line.substring("cmdstat_".length(), colon), Long.parseLong(line.substring(from, to)));
      }
    }
    return calls;
  }

  private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
    Map<String, Long> delta = new TreeMap<>();
    after.forEach(
        (name, calls) -> {
          long d = calls - before.getOrDefault(name, 0L);
          if (d > 0) {
            delta.put(name, d);
          }
        });
    return delta;
  }

  /**
   * Adds the server's time per call of the commands clients send ({@code evalsha}, {@code eval},
   * {@code get}): a script's time includes the commands it calls.
   */
  static String withMicros(String perDecision, Map<String, Long> calls, Map<String, Long> micros) {
    List<String> parts = new ArrayList<>();
    for (String name : List.of("evalsha", "eval", "get")) {
      Long n = calls.get(name);
      if (n != null) {
        parts.add(
            String.format(
                Locale.ROOT, "%s %.1f µs", name, (double) micros.getOrDefault(name, 0L) / n));
      }
    }
    return parts.isEmpty() ? perDecision : perDecision + "; per call: " + String.join(", ", parts);
  }

  /** "evalsha 1.00, hmget 1.00", the commands by name, each divided by the decisions. */
  static String perDecision(Map<String, Long> counts, long decisions) {
    if (counts.isEmpty()) {
      return "none";
    }
    List<String> parts = new ArrayList<>();
    counts.forEach(
        (name, n) ->
            parts.add(String.format(Locale.ROOT, "%s %.2f", name, (double) n / decisions)));
    return String.join(", ", parts);
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return "?";
  }

  /**
   * A {@code MONITOR} connection counting the commands that name one key: sent by a client, or
   * called by a script ({@code [0 lua]}). Stops at a marker echoed after the run.
   */
  static final class Monitor {
    final Map<String, Long> client = new TreeMap<>();
    final Map<String, Long> lua = new TreeMap<>();
    final String marker;
    private final String quotedKey;
    private final Socket socket;
    private final BufferedReader in;
    private final Thread reader;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile IOException failure;

    private Monitor(Socket socket, BufferedReader in, String key) {
      this.socket = socket;
      this.in = in;
      this.quotedKey = "\"" + key + "\"";
      this.marker = "end-of-" + key;
      this.reader = new Thread(this::read, "monitor");
    }

    static Monitor start(String uri, String key) throws IOException, InterruptedException {
      RedisURI where = RedisURI.create(uri);
      if (uri.contains("@")) {
        throw new IllegalArgumentException(
            "the round-trip count connects without credentials; give it a Redis URI without any");
      }
      Socket socket = new Socket(where.getHost(), where.getPort());
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
      OutputStream out = socket.getOutputStream();
      out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String ok = in.readLine();
      if (!"+OK".equals(ok)) {
        socket.close();
        throw new IOException("MONITOR answered " + ok);
      }
      Monitor monitor = new Monitor(socket, in, key);
      monitor.reader.setDaemon(true);
      monitor.reader.start();
      return monitor;
    }

    private void read() {
      try {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.contains(marker)) {
            break;
          }
          if (!line.contains(quotedKey)) {
            continue;
          }
          // +1700000000.123456 [0 127.0.0.1:53211] "evalsha" "..." ...
          int close = line.indexOf("] \"");
          int open = line.lastIndexOf('[', close);
          String source = line.substring(open + 1, close);
          int nameFrom = close + 3;
          String name =
              line.substring(nameFrom, line.indexOf('"', nameFrom)).toLowerCase(Locale.ROOT);
          Map<String, Long> counts = source.endsWith(" lua") ? lua : client;
          counts.merge(name, 1L, Long::sum);
        }
      } catch (IOException e) {
        failure = e;
      } finally {
        done.countDown();
      }
    }

    void awaitMarker() throws IOException, InterruptedException {
      try {
        if (!done.await(60, TimeUnit.SECONDS)) {
          throw new IOException("MONITOR did not show the end marker within 60 s");
        }
        if (failure != null) {
          throw failure;
        }
      } finally {
        socket.close();
      }
    }
  }
}
