package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.proxy.RelentProxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code relent proxy} with real clients: {@code curl} in reverse mode, Python's {@code urllib}
 * with {@code HTTP_PROXY} in forward mode, the JDK client, against the mock server and against
 * nginx's {@code limit_req}; and the flags' errors.
 */
class ProxyCommandTest {
  @TempDir Path dir;

  /** Runs {@code relent proxy} with {@code whileRunning} instead of waiting for SIGTERM. */
  private static CliRun proxy(Consumer<RelentProxy> whileRunning, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "proxy";
    System.arraycopy(args, 0, all, 1, args.length);
    return CliRun.of(
        cli -> {
          CommandLine sub = cli.getSubcommands().get("proxy");
          ProxyCommand command = sub.getCommand();
          command.whileRunning = whileRunning;
        },
        all);
  }

  /** Runs a process to its end and returns its stdout; fails on a non-zero exit. */
  private static String run(Map<String, String> env, String... command) {
    try {
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.environment().remove("NO_PROXY");
      pb.environment().remove("no_proxy");
      pb.environment().putAll(env);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("timed out: " + String.join(" ", command));
      }
      assertThat(p.exitValue()).as(out).isZero();
      return out;
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void helpSaysBothModesTheHeadersAndTheOperations() {
    CliRun r = CliRun.of("proxy", "--help");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .contains("--listen", "--upstream", "--allow-host", "--key-route", "--shared")
        .contains("CONNECT", "tunnelled untouched", "Relent-Attempts", "/__relent/metrics");
  }

  @Test
  void curlThroughReverseModeGetsTheRetriedAnswer() throws Exception {
    try (MockServer server =
        MockServer.start(
            Scenario.builder()
                .route("/items")
                .steps(Step.status(503), Step.ok("from curl"))
                .build())) {
      List<String> seen = new ArrayList<>();
      CliRun r =
          proxy(
              p ->
                  seen.add(
                      run(Map.of(), "curl", "-si", "--max-time", "20", p.baseUri() + "/items")),
              "--listen",
              "127.0.0.1:0",
              "--upstream",
              server.baseUri().toString(),
              "--base",
              "10ms");
      assertThat(r.exitCode()).as(r.err()).isZero();
      assertThat(r.out())
          .contains("relent proxy listening on http://127.0.0.1:", "-> " + server.baseUri());
      assertThat(seen.get(0))
          .startsWith("HTTP/1.1 200")
          .contains("Relent-Attempts: 2", "from curl");
      assertThat(r.err()).contains("attempt=1", "outcome=\"HTTP 503\"", "attempt=2");
      assertThat(server.journal()).hasSize(2);
    }
  }

  @Test
  void pythonUrllibWithHttpProxyGoesThroughForwardModeToAnAllowedHostOnly() throws Exception {
    try (MockServer server =
        MockServer.start(
            Scenario.builder()
                .route("/py")
                .steps(Step.status(429).withHeader("Retry-After", "0"), Step.ok("from python"))
                .build())) {
      String script =
          "import urllib.request, urllib.error, sys\n"
              + "r = urllib.request.urlopen(sys.argv[1], timeout=20)\n"
              + "print(r.status, r.headers['Relent-Attempts'], r.read().decode())\n"
              + "try:\n"
              + "    urllib.request.urlopen(sys.argv[2], timeout=20)\n"
              + "except urllib.error.HTTPError as e:\n"
              + "    print(e.code, e.headers['Relent-Give-Up'])\n";
      List<String> seen = new ArrayList<>();
      CliRun r =
          proxy(
              p ->
                  seen.add(
                      run(
                          Map.of(
                              "HTTP_PROXY",
                              p.baseUri().toString(),
                              "http_proxy",
                              p.baseUri().toString()),
                          "python3",
                          "-c",
                          script,
                          server.uri("/py").toString(),
                          "http://localhost:" + server.port() + "/py")),
              "--listen",
              "127.0.0.1:0",
              "--allow-host",
              "127.0.0.1",
              "--base",
              "10ms");
      assertThat(r.exitCode()).as(r.err()).isZero();
      assertThat(r.out()).contains("forward mode for 127.0.0.1");
      assertThat(seen.get(0)).contains("200 2 from python", "403 host-not-allowed");
      assertThat(server.journal()).hasSize(2);
    }
  }

  @Test
  void everyRequestThroughTheProxyGetsA200FromNginxsLimiter() throws Exception {
    try (Nginx nginx = Nginx.start(dir.resolve("nginx"), 10)) {
      List<String> seen = new ArrayList<>();
      CliRun r =
          proxy(
              p ->
                  seen.add(
                      run(
                          Map.of(),
                          "sh",
                          "-c",
                          "seq 1 20 | xargs -P4 -I{} curl -s -o /dev/null -w '%{http_code}\\n'"
                              + " --max-time 60 "
                              + p.baseUri()
                              + "/strict/{}")),
              "--listen",
              "127.0.0.1:0",
              "--upstream",
              nginx.uri("/").toString().replaceAll("/$", ""),
              "--route",
              "/strict/{n}",
              "--quiet");
      assertThat(r.exitCode()).as(r.err()).isZero();
      assertThat(seen.get(0).lines()).hasSize(20).allMatch("200"::equals);
      List<Integer> atNginx = nginx.statuses();
      assertThat(atNginx.stream().filter(s -> s == 200)).hasSize(20);
    }
  }

  @Test
  void theJdkClientSeesAProblemBodyWhenTheProxyGivesUp() throws Exception {
    try (MockServer server =
        MockServer.start(Scenario.builder().route("/down").steps(Step.status(503)).build())) {
      List<HttpResponse<String>> seen = new ArrayList<>();
      CliRun r =
          proxy(
              p -> {
                try {
                  seen.add(
                      HttpClient.newHttpClient()
                          .send(
                              HttpRequest.newBuilder(URI.create(p.baseUri() + "/down")).build(),
                              HttpResponse.BodyHandlers.ofString()));
                } catch (IOException | InterruptedException e) {
                  throw new AssertionError(e);
                }
              },
              "--listen",
              "127.0.0.1:0",
              "--upstream",
              server.baseUri().toString(),
              "--max-retries",
              "2",
              "--base",
              "10ms");
      assertThat(r.exitCode()).as(r.err()).isZero();
      HttpResponse<String> answer = seen.get(0);
      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.headers().firstValue("Relent-Give-Up")).hasValue("retries-exhausted");
      assertThat(answer.body()).contains("gave up after 3 attempts");
      assertThat(r.err()).contains("give-up=retries-exhausted");
    }
  }

  @Test
  void sharedThroughRedisSaysSo() {
    CliRun r =
        proxy(
            p -> {},
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            "http://127.0.0.1:1",
            "--shared",
            "redis://127.0.0.1:6379",
            "--account",
            "proxy-test");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("shared through redis://127.0.0.1:6379 as account proxy-test");
  }

  @Test
  void wrongFlagsExit2SayingWhatIsAccepted() {
    CliRun scheme = CliRun.of("proxy", "--listen", "127.0.0.1:0", "--upstream", "ftp://x");
    assertThat(scheme.exitCode()).isEqualTo(2);
    assertThat(scheme.err()).contains("http:// or https://");
    CliRun open = CliRun.of("proxy", "--listen", "0.0.0.0:0", "--upstream", "http://x");
    assertThat(open.exitCode()).isEqualTo(2);
    assertThat(open.err()).contains("not on loopback", "--any-interface");
    CliRun size = CliRun.of("proxy", "--max-request-body", "lots");
    assertThat(size.exitCode()).isEqualTo(2);
    assertThat(size.err()).contains("--max-request-body must be");
    CliRun pairs =
        CliRun.of(
            "proxy", "--listen", "127.0.0.1:0", "--upstream", "http://a", "--upstream", "http://b");
    assertThat(pairs.exitCode()).isEqualTo(2);
    assertThat(pairs.err()).contains("one --listen per --upstream");
    CliRun redis = CliRun.of("proxy", "--listen", "127.0.0.1:0", "--shared", "rediss://x:1");
    assertThat(redis.exitCode()).isEqualTo(2);
    assertThat(redis.err()).contains("redis:// only");
  }

  @Test
  void aPortInUseExits1SayingSo() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      CliRun r =
          CliRun.of(
              "proxy",
              "--listen",
              "127.0.0.1:" + taken.getLocalPort(),
              "--upstream",
              "http://127.0.0.1:1");
      assertThat(r.exitCode()).isEqualTo(1);
      assertThat(r.err()).contains("cannot listen on 127.0.0.1:" + taken.getLocalPort(), "in use");
    }
  }
}
