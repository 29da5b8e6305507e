package dev.relent.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code redis-server} of the test's own, on a spare loopback port, that the test can kill with
 * SIGKILL and start again on the same port: a Redis that dies mid-run and comes back empty.
 */
public final class OwnRedis implements AutoCloseable {
  private final int port;
  private final Path dir;
  private final List<String> options;
  private final Path config;
  private Process process;

  /**
   * Starts a server on a spare port.
   *
   * @throws IOException if redis-server cannot be started
   */
  public OwnRedis() throws IOException {
    this(List.of(), List.of());
  }

  /**
   * Starts a server on a spare port with more options, e.g. {@code --cluster-enabled yes}, and a
   * configuration file of its own when {@code config} has lines (a sentinel needs one it can
   * rewrite; give it {@code --sentinel} as an option).
   *
   * @param options given to redis-server after the port and the address
   * @param config the lines of a configuration file, or none
   * @throws IOException if redis-server cannot be started
   */
  public OwnRedis(List<String> options, List<String> config) throws IOException {
    this.options = List.copyOf(options);
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    dir = Files.createTempDirectory("relent-own-redis");
    this.config = config.isEmpty() ? null : Files.write(dir.resolve("redis.conf"), config);
    start();
  }

  /**
   * Returns the server's URI.
   *
   * @return {@code redis://127.0.0.1:PORT}
   */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /**
   * Returns the folder the server runs in.
   *
   * @return a temporary folder of its own
   */
  public Path dir() {
    return dir;
  }

  /**
   * Returns the server's port.
   *
   * @return the port, the same after a restart
   */
  public int port() {
    return port;
  }

  /**
   * Starts the server (again) and waits until it accepts connections.
   *
   * @throws IOException if it cannot be started
   */
  public void start() throws IOException {
    List<String> command = new ArrayList<>();
    command.add("redis-server");
    if (config != null) {
      command.add(config.toString()); // a configuration file must come first
    }
    command.addAll(
        List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString()));
    if (!options.contains("--sentinel")) {
      command.addAll(List.of("--save", "", "--appendonly", "no"));
    }
    command.addAll(options);
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

  /**
   * Kills the server with SIGKILL, as a crash would, and waits until it is gone.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public void kill() throws InterruptedException {
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
