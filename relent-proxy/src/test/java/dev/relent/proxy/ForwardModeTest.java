package dev.relent.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Forward mode ({@code HTTP_PROXY}): absolute {@code http://} URIs to allowed hosts go through the
 * attempt loop; any other host is refused with 403; {@code CONNECT} is tunnelled untouched.
 */
class ForwardModeTest {
  private MockServer server;
  private RelentProxy proxy;
  private final VirtualWaits waits = new VirtualWaits();
  private final List<String> log = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server =
        MockServer.start(
            Scenario.builder().route("/f").steps(Step.status(503), Step.ok("forwarded")).build());
    proxy =
        RelentProxy.builder()
            .withForward("127.0.0.1:0")
            .withAllowedHosts("127.0.0.1")
            .withPolicy(ProxyFixture.policy())
            .withTime(waits.source())
            .withLogSink(
                l -> {
                  synchronized (log) {
                    log.add(l);
                  }
                })
            .start();
  }

  @AfterEach
  void stop() {
    proxy.close();
    server.close();
    waits.close();
  }

  private HttpClient viaProxy() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(proxy.addresses().get(0)))
        .build();
  }

  @Test
  void anAllowedHostIsReachedThroughTheAttemptLoop() throws Exception {
    HttpResponse<String> r =
        viaProxy()
            .send(
                HttpRequest.newBuilder(server.uri("/f")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("forwarded");
    assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("2");
    assertThat(server.journal()).hasSize(2);
    assertThat(server.journal().get(0).target()).isEqualTo("/f");
  }

  @Test
  void aHostNotAllowedIsRefusedWith403AndALogLine() throws Exception {
    HttpResponse<String> r =
        viaProxy()
            .send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/f"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.headers().firstValue("Relent-Give-Up")).hasValue("host-not-allowed");
    assertThat(r.body()).contains("--allow-host localhost");
    assertThat(server.journal()).isEmpty();
    assertThat(log).anyMatch(l -> l.contains("event=refused-403"));
  }

  @Test
  void aPathWithoutUpstreamIsRefusedWith400SayingWhatToDo() throws Exception {
    String answer = Raw.exchange(proxy.addresses().get(0), "GET /f HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(answer).startsWith("HTTP/1.1 400").contains("this listener has no upstream");
  }

  @Test
  void connectIsTunnelledUntouchedToAnAllowedHostOnly() throws Exception {
    InetSocketAddress at = proxy.addresses().get(0);
    try (Raw raw = new Raw(at)) {
      raw.send("CONNECT 127.0.0.1:" + server.port() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      assertThat(raw.readUntil("\r\n\r\n")).startsWith("HTTP/1.1 200");
      // Inside the tunnel: plain bytes to the server, no attempt loop (the 503 comes back as is).
      raw.send("GET /f HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      String inside = raw.readAll();
      assertThat(inside).startsWith("HTTP/1.1 503").doesNotContain("Relent-Attempts");
    }
    String refused =
        Raw.exchange(at, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n");
    assertThat(refused).startsWith("HTTP/1.1 403");
  }

  @Test
  void anHttpsTargetInForwardModeIsRefusedWithTheWayOut() throws Exception {
    String answer =
        Raw.exchange(
            proxy.addresses().get(0),
            "GET https://127.0.0.1:" + server.port() + "/f HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assertThat(answer).startsWith("HTTP/1.1 400").contains("reverse mode");
  }
}
