package dev.relent.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A {@code redis-server} of the test's own, on a spare loopback port, that the test can kill with
 * SIGKILL and start again on the same port: a Redis that dies mid-run and comes back empty.
 */
final class OwnRedis implements AutoCloseable {
  private final int port;
  private final Path dir;
  private Process process;

  OwnRedis() throws IOException {
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    dir = Files.createTempDirectory("relent-own-redis");
    start();
  }

  String uri() {
    return "redis://127.0.0.1:" + port;
  }

  int port() {
    return port;
  }

  /** Starts the server (again) and waits until it accepts connections. */
  void start() throws IOException {
    List<String> command =
        List.of(
            "redis-server",
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.toString());
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("redis.log").toFile())
              .start();
    } catch (IOException e) {
      throw new IOException(
          "cannot start redis-server (install Debian's redis-server, as scripts/services.sh does): "
              + e.getMessage(),
          e);
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      try {
        new Socket(InetAddress.getLoopbackAddress(), port).close();
        return;
      } catch (IOException notYet) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IOException(
              "redis-server did not start on port " + port + ": see " + dir.resolve("redis.log"));
        }
        sleepQuietly(10);
      }
    }
  }

  /** Kills the server with SIGKILL, as a crash would, and waits until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
