package dev.relent.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real nginx on loopback, with its own configuration in a temporary directory: a rate limiter
 * ({@code limit_req}, burst 0, one zone for the whole server: an account-wide limit) in front of a
 * backend that answers 200, at two paths: {@code /strict/} answers a 429 alone, {@code /hinted/}
 * adds {@code Retry-After: 1}. Installed by {@code scripts/ensure-nginx.sh}; a machine without it
 * fails the test with a message saying so, never skips it.
 */
public final class Nginx implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/sbin/nginx");

  private static final Pattern REQUEST = Pattern.compile("\"[A-Z]+ (\\S+) HTTP/[0-9.]+\" (\\d{3})");

  private final Path dir;
  private final int port;
  private final Process process;

  private Nginx(Path dir, int port, Process process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
  }

  /**
   * Starts nginx limiting each path to {@code perSecond} requests a second with no burst.
   *
   * @throws IllegalStateException if nginx is not installed or does not start, saying what to do
   */
  public static Nginx start(Path dir, int perSecond) throws IOException, InterruptedException {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(
          BINARY
              + " is missing: this test runs relent batch against a real rate limiter. Install it"
              + " with scripts/ensure-nginx.sh (Debian's nginx package); .ci/run does.");
    }
    int port = freePort();
    int backend = freePort();
    Files.createDirectories(dir.resolve("logs"));
    String conf =
        String.join(
            "\n",
            "worker_processes 1;",
            "daemon off;",
            "pid " + dir.resolve("nginx.pid") + ";",
            "error_log " + dir.resolve("logs/error.log") + " warn;",
            "events { worker_connections 256; }",
            "http {",
            "  access_log " + dir.resolve("logs/access.log") + ";",
            "  client_body_temp_path " + dir.resolve("body") + ";",
            "  proxy_temp_path " + dir.resolve("proxy") + ";",
            "  fastcgi_temp_path " + dir.resolve("fastcgi") + ";",
            "  uwsgi_temp_path " + dir.resolve("uwsgi") + ";",
            "  scgi_temp_path " + dir.resolve("scgi") + ";",
            // One key for every request of a path: the limit is the account's, not per client.
            "  limit_req_zone $server_port zone=strict:1m rate=" + perSecond + "r/s;",
            "  limit_req_zone $server_port zone=hinted:1m rate=" + perSecond + "r/s;",
            "  limit_req_status 429;",
            "  server {",
            "    listen 127.0.0.1:" + backend + ";",
            "    access_log off;",
            "    location / { return 200 \"ok\\n\"; }",
            "  }",
            "  server {",
            "    listen 127.0.0.1:" + port + ";",
            "    location /strict/ { limit_req zone=strict; proxy_pass http://127.0.0.1:"
                + backend
                + "; }",
            "    location /hinted/ { limit_req zone=hinted; add_header Retry-After 1 always;"
                + " proxy_pass http://127.0.0.1:"
                + backend
                + "; }",
            "  }",
            "}",
            "");
    Path file = dir.resolve("nginx.conf");
    Files.writeString(file, conf, StandardCharsets.UTF_8);
    Process p =
        new ProcessBuilder(BINARY.toString(), "-p", dir.toString(), "-c", file.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("logs/stdout.log").toFile())
            .start();
    Nginx nginx = new Nginx(dir, port, p);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!nginx.accepts()) {
      if (!p.isAlive() || System.nanoTime() - until > 0) {
        String log = Files.readString(dir.resolve("logs/stdout.log"), StandardCharsets.UTF_8);
        nginx.close();
        throw new IllegalStateException("nginx did not start: " + log);
      }
      Thread.sleep(20);
    }
    return nginx;
  }

  private boolean accepts() {
    try {
      new Socket(InetAddress.getLoopbackAddress(), port).close();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** The status of every request nginx served at a limited path, in order. */
  public List<Integer> statuses() throws IOException {
    List<Integer> out = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("logs/access.log"))) {
      // combined format: 127.0.0.1 - - [date] "GET /strict/1 HTTP/1.1" 429 ...
      Matcher m = REQUEST.matcher(line);
      if (m.find() && (m.group(1).startsWith("/strict/") || m.group(1).startsWith("/hinted/"))) {
        out.add(Integer.parseInt(m.group(2)));
      }
    }
    return out;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
