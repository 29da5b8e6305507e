package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent call} streams the final body as it arrives: a body larger than the heap passes (in
 * a child JVM with a small {@code -Xmx}), {@code --output FILE} gets it byte for byte, and a body
 * cut off after bytes were written is reported and not retried.
 */
class CallStreamingTest {
  @TempDir Path dir;

  private HttpServer server;
  private final AtomicInteger bigRequests = new AtomicInteger();

  /** Byte {@code i} of every generated body. */
  static byte at(long i) {
    return (byte) (i % 251);
  }

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/big",
        exchange -> {
          bigRequests.incrementAndGet();
          long n = Long.parseLong(exchange.getRequestURI().getQuery().substring(2));
          exchange.sendResponseHeaders(200, n);
          try (OutputStream out = exchange.getResponseBody()) {
            byte[] chunk = new byte[64 * 1024];
            for (long sent = 0; sent < n; ) {
              int len = (int) Math.min(chunk.length, n - sent);
              for (int i = 0; i < len; i++) {
                chunk[i] = at(sent + i);
              }
              out.write(chunk, 0, len);
              sent += len;
            }
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String url(long bytes) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/big?n=" + bytes;
  }

  private static byte[] sha256Of(long n) throws Exception {
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    for (long i = 0; i < n; i++) {
      d.update(at(i));
    }
    return d.digest();
  }

  @Test
  void aBodyLargerThanTheHeapPassesThroughStdout() throws Exception {
    long size = 64L * 1024 * 1024;
    List<String> command = ChildJvm.relent("32m", "call", "--timeout=60s", url(size));
    Process p = new ProcessBuilder(command).redirectError(dir.resolve("err").toFile()).start();
    p.getOutputStream().close();
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    long received = 0;
    try (InputStream in = p.getInputStream()) {
      byte[] buf = new byte[64 * 1024];
      int n;
      while ((n = in.read(buf)) >= 0) {
        d.update(buf, 0, n);
        received += n;
      }
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(dir.resolve("err"))).isEmpty();
    assertThat(p.exitValue()).isZero();
    assertThat(received).isEqualTo(size);
    assertThat(d.digest()).isEqualTo(sha256Of(size));
  }

  @Test
  void outputFileGetsTheBodyByteForByteAndStdoutNothing() throws Exception {
    long size = 3L * 1024 * 1024 + 17;
    Path file = dir.resolve("body.bin");
    Path report = dir.resolve("report.json");
    CliRun run =
        CliRun.of("call", "--output", file.toString(), "--report", report.toString(), url(size));
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.outBytes()).isEmpty();
    assertThat(Files.size(file)).isEqualTo(size);
    assertThat(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)))
        .isEqualTo(sha256Of(size));
    assertThat(Files.readString(report)).contains("\"reason\" : \"success\"");
  }

  @Test
  void noResponseLeavesTheOutputFileAsItWas() throws Exception {
    Path file = dir.resolve("body.bin");
    Files.writeString(file, "before");
    int port = server.getAddress().getPort();
    server.stop(0);
    CliRun run =
        CliRun.of(
            "call",
            "--max-retries=0",
            "--output",
            file.toString(),
            "http://127.0.0.1:" + port + "/big?n=10");
    assertThat(run.exitCode()).isEqualTo(4);
    assertThat(Files.readString(file)).isEqualTo("before");
  }

  @Test
  void aBodyCutOffAfterBytesWereWrittenIsReportedAndNotRetried() throws Exception {
    String body = "x".repeat(256 * 1024);
    try (MockServer mock =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"path\": \"/cut\", \"steps\": [{\"status\": 200, \"body\": \""
                    + body
                    + "\", \"fault\": \"truncate\", \"faultBytes\": 100000}]}]}"))) {
      Path report = dir.resolve("report.json");
      CliRun run =
          CliRun.of(
              "call",
              "--base=1ms",
              "--cap=2ms",
              "--report",
              report.toString(),
              mock.uri("/cut").toString());
      assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
      assertThat(run.err())
          .startsWith("relent: the body of HTTP 200 from GET " + mock.uri("/cut") + " was cut off")
          .contains("bytes (truncated response")
          .contains("not retried: the bytes received are in stdout already");
      assertThat(run.err().lines()).hasSize(1);
      assertThat(run.outBytes().length).isLessThanOrEqualTo(100000);
      assertThat(run.err()).contains("cut off after " + run.outBytes().length + " bytes");
      assertThat(mock.stats().requests("/cut")).isEqualTo(1);
      assertThat(Files.readString(report))
          .contains("\"exit_code\" : 3")
          .contains("\"reason\" : \"body-truncated\"");
    }
  }

  @Test
  void aRequestBodyLargerThanTheHeapEndsWithOneLineAndExitOne() throws Exception {
    Path big = dir.resolve("big.bin");
    try (OutputStream out = Files.newOutputStream(big)) {
      byte[] mib = new byte[1024 * 1024];
      for (int i = 0; i < 64; i++) {
        out.write(mib);
      }
    }
    List<String> command = ChildJvm.relent("16m", "call", "-X", "PUT", "-d", "@" + big, url(1));
    Process p = new ProcessBuilder(command).start();
    p.getOutputStream().close();
    p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isEqualTo(1);
    assertThat(err).startsWith("relent: out of memory (");
    assertThat(err.lines()).hasSize(1);
    assertThat(bigRequests).hasValue(0);
  }
}
