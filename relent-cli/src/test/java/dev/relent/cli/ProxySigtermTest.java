package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM drains {@code relent proxy} in a JVM of its own: the request in flight gets its answer,
 * then the process exits 143.
 */
class ProxySigtermTest {
  private static final Pattern LISTENING =
      Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");

  @Test
  void sigtermLetsTheRequestInFlightEndThenExits143() throws Exception {
    try (MockServer server =
        MockServer.start(
            Scenario.builder()
                .route("/slow")
                .steps(Step.ok("drained").withDelay(Duration.ofMillis(1500)))
                .build())) {
      Process p =
          new ProcessBuilder(
                  ChildJvm.relent(
                      "128m",
                      "proxy",
                      "--listen",
                      "127.0.0.1:0",
                      "--upstream",
                      server.baseUri().toString(),
                      "--quiet"))
              .redirectErrorStream(true)
              .start();
      try {
        BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        String base = null;
        while (base == null && (line = out.readLine()) != null) {
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            base = m.group(1);
          }
        }
        assertThat(base).as("the proxy printed its address").isNotNull();
        CompletableFuture<HttpResponse<String>> inFlight =
            HttpClient.newHttpClient()
                .sendAsync(
                    HttpRequest.newBuilder(URI.create(base + "/slow")).build(),
                    HttpResponse.BodyHandlers.ofString());
        for (int i = 0; i < 500 && server.journal().isEmpty(); i++) {
          Thread.sleep(10); // real I/O: the request reaching the upstream
        }
        assertThat(server.journal()).hasSize(1);
        p.destroy(); // SIGTERM
        HttpResponse<String> r = inFlight.get(20, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("drained");
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(143);
      } finally {
        p.destroyForcibly();
      }
    }
  }
}
