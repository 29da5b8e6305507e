package dev.relent.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.RetryPolicy;
import dev.relent.mockserver.InjectedFault;
import dev.relent.mockserver.Scenario;
import dev.relent.mockserver.Step;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What callers and upstreams get wrong: each gets a clear status and a log line, and the proxy goes
 * on serving the next caller.
 */
class BadInputTest {
  private static Scenario scenario() {
    return Scenario.builder()
        .route("/ok")
        .steps(Step.ok("fine"))
        .route("/reset")
        .steps(Step.fault(InjectedFault.RESET), Step.ok("after reset"))
        .route("/always-reset")
        .steps(Step.fault(InjectedFault.RESET))
        .route("/close")
        .steps(Step.fault(InjectedFault.CLOSE))
        .route("/truncate")
        .steps(
            Step.ok("y".repeat(1000)).withFault(InjectedFault.TRUNCATE).withFaultBytes(10),
            Step.ok("whole"))
        .route("/stall")
        .steps(Step.ok("z".repeat(1000)).withFault(InjectedFault.STALL).withFaultBytes(10))
        .route("/slow")
        .steps(Step.ok("late").withDelay(Duration.ofSeconds(5)))
        .route("POST", "/upload")
        .steps(Step.status(503), Step.ok("stored"))
        .build();
  }

  private static ProxyFixture fixture() throws IOException {
    return new ProxyFixture(scenario(), b -> b.withClientTimeout(Duration.ofMillis(300)));
  }

  private static void stillServes(ProxyFixture f) throws Exception {
    assertThat(f.get("/ok").body()).isEqualTo("fine");
  }

  @Test
  void aMalformedRequestLineIs400() throws Exception {
    try (ProxyFixture f = fixture()) {
      String answer = Raw.exchange(f.address(), "GARBAGE\r\n\r\n");
      assertThat(answer).startsWith("HTTP/1.1 400").contains("application/problem+json");
      assertThat(f.log).anyMatch(l -> l.contains("event=refused-400"));
      stillServes(f);
    }
  }

  @Test
  void sixtyFourKibOfHeadersIs431() throws Exception {
    try (ProxyFixture f = fixture()) {
      StringBuilder req = new StringBuilder("GET /ok HTTP/1.1\r\nHost: x\r\n");
      for (int i = 0; i < 64; i++) {
        req.append("X-Filler-").append(i).append(": ").append("a".repeat(1000)).append("\r\n");
      }
      String answer = Raw.exchange(f.address(), req.append("\r\n").toString());
      assertThat(answer).startsWith("HTTP/1.1 431").contains("headers-too-large");
      assertThat(f.journal()).isEmpty();
      stillServes(f);
    }
  }

  @Test
  void aSlowClientIsAnswered408() throws Exception {
    try (ProxyFixture f = fixture();
        Raw raw = new Raw(f.address())) {
      raw.send("GET /ok HTTP/1.1\r\nHost: x\r\n");
      // ... and the blank line never comes.
      assertThat(raw.readAll()).startsWith("HTTP/1.1 408").contains("client-timeout");
      assertThat(f.log).anyMatch(l -> l.contains("event=refused-408"));
      stillServes(f);
    }
  }

  @Test
  void aBodyCutShortIs408AndNothingReachesTheUpstream() throws Exception {
    try (ProxyFixture f = fixture();
        Raw raw = new Raw(f.address())) {
      raw.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789");
      assertThat(raw.readAll()).startsWith("HTTP/1.1 408").contains("10 bytes came");
      assertThat(f.journal()).isEmpty();
      stillServes(f);
    }
  }

  @Test
  void aCallerThatHangsUpMidBodyIsLogged() throws Exception {
    try (ProxyFixture f = fixture()) {
      try (Raw raw = new Raw(f.address())) {
        raw.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789");
      }
      // The hang-up reaches the proxy's event loop on its own time: poll for it, real I/O.
      for (int i = 0; i < 500 && f.log.stream().noneMatch(l -> l.contains("body-cut-short")); i++) {
        Thread.sleep(10);
      }
      assertThat(f.log).anyMatch(l -> l.contains("event=body-cut-short"));
      assertThat(f.proxy.inFlight()).isZero();
    }
  }

  @Test
  void anUpstreamResetIsRetriedForAGetAndGivesUp502WhenItLasts() throws Exception {
    try (ProxyFixture f = fixture()) {
      HttpResponse<String> once = f.get("/reset");
      assertThat(once.statusCode()).isEqualTo(200);
      assertThat(once.headers().firstValue("Relent-Attempts")).hasValue("2");
      HttpResponse<String> always = f.get("/always-reset");
      assertThat(always.statusCode()).isEqualTo(502);
      assertThat(always.headers().firstValue("Relent-Give-Up")).hasValue("retries-exhausted");
      assertThat(always.body()).contains("connection reset");
    }
  }

  @Test
  void anUpstreamThatClosesOrTruncatesIsRetried() throws Exception {
    try (ProxyFixture f = fixture()) {
      HttpResponse<String> closed = f.get("/close");
      assertThat(closed.statusCode()).isEqualTo(502);
      assertThat(closed.body()).contains("closed before");
      // A truncated 200 reaches the caller cut (the head was passed on), never as a whole 200.
      assertThatThrownBy(() -> f.get("/truncate")).isInstanceOf(IOException.class);
      stillServes(f);
    }
  }

  @Test
  void anUpstreamThatStallsBeforeAnsweringIs504() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(
            scenario(),
            b ->
                b.withPolicy(
                        RetryPolicy.builder()
                            .withMaxRetries(1)
                            .withAttemptTimeout(Duration.ofMillis(200))
                            .withDeadline(Duration.ofSeconds(2))
                            .build())
                    .withTime(TimeSource.system()))) {
      HttpResponse<String> r = f.get("/slow");
      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("2");
      assertThat(r.body()).contains("read timeout");
      stillServes(f);
    }
  }

  @Test
  void anUpstreamThatStallsMidBodyIsCut() throws Exception {
    try (ProxyFixture f =
        new ProxyFixture(scenario(), b -> b.withIdleTimeout(Duration.ofMillis(300)))) {
      assertThatThrownBy(() -> f.get("/stall")).isInstanceOf(IOException.class);
      stillServes(f);
    }
  }

  @Test
  void aTlsErrorIs502AndNotRetried() throws Exception {
    try (ProxyFixture plain = fixture();
        RelentProxy tls =
            RelentProxy.builder()
                .withReverse("127.0.0.1:0", URI.create("https://127.0.0.1:" + plain.server.port()))
                .withLogSink(plain.log::add)
                .start()) {
      HttpResponse<String> r =
          plain.client.send(
              HttpRequest.newBuilder(URI.create(tls.baseUri() + "/ok")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.headers().firstValue("Relent-Give-Up")).hasValue("io-tls");
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("1");
    }
  }

  @Test
  void anUpstreamThatRefusesConnectionsIs502() throws Exception {
    try (ProxyFixture f = fixture();
        RelentProxy refused =
            RelentProxy.builder()
                .withReverse("127.0.0.1:0", URI.create("http://127.0.0.1:1"))
                .withPolicy(ProxyFixture.policy())
                .withTime(f.waits.source())
                .withLogSink(f.log::add)
                .start()) {
      HttpResponse<String> r =
          f.client.send(
              HttpRequest.newBuilder(URI.create(refused.baseUri() + "/x")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.headers().firstValue("Relent-Attempts")).hasValue("4");
      assertThat(r.body()).contains("connection refused");
    }
  }

  @Test
  void aBodyLongerThanTheLimitIsSentOnceAndSaysSo() throws Exception {
    try (ProxyFixture f = new ProxyFixture(scenario(), b -> b.withMaxRequestBody(1024))) {
      HttpResponse<String> r =
          f.send(
              HttpRequest.newBuilder(f.uri("/upload"))
                  .header("Idempotency-Key", "upload-1")
                  .POST(HttpRequest.BodyPublishers.ofString("b".repeat(4096))));
      // Keyed, but the body was not kept: the 503 is passed on, not retried.
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Relent-Request-Body").orElseThrow())
          .startsWith("streamed-once");
      assertThat(f.journal()).hasSize(1);
      assertThat(f.journal().get(0).bodyBytes()).isEqualTo(4096);
      assertThat(f.log).anyMatch(l -> l.contains("body=streamed-once"));
      HttpResponse<String> again =
          f.send(
              HttpRequest.newBuilder(f.uri("/upload"))
                  .header("Idempotency-Key", "upload-2")
                  .POST(HttpRequest.BodyPublishers.ofString("b".repeat(4096))));
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(f.journal().get(1).bodyBytes()).isEqualTo(4096);
    }
  }

  @Test
  void aListenerOffLoopbackIsRefusedUnlessAllowed() {
    assertThatThrownBy(
            () ->
                RelentProxy.builder()
                    .withReverse("0.0.0.0:0", URI.create("http://127.0.0.1:1"))
                    .start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is not on loopback");
  }

  @Test
  void aPortInUseSaysSo() throws Exception {
    try (ProxyFixture f = fixture()) {
      assertThatThrownBy(
              () ->
                  RelentProxy.builder()
                      .withReverse(
                          "127.0.0.1:" + f.address().getPort(), URI.create("http://127.0.0.1:1"))
                      .start())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("cannot listen on 127.0.0.1:" + f.address().getPort())
          .hasMessageContaining("in use");
    }
  }

  @Test
  void badSettingsSayWhatIsAccepted() {
    assertThatThrownBy(() -> RelentProxy.builder().withReverse("8080", URI.create("http://a")))
        .hasMessageContaining("HOST:PORT");
    assertThatThrownBy(
            () -> RelentProxy.builder().withReverse("127.0.0.1:1", URI.create("ftp://a")))
        .hasMessageContaining("http:// or https://");
    assertThatThrownBy(
            () ->
                RelentProxy.builder()
                    .withReverse("127.0.0.1:1", URI.create("https://user:pw@api.example.com")))
        .hasMessageContaining("credentials")
        .hasMessageNotContaining("pw");
    assertThatThrownBy(() -> RelentProxy.builder().withKeyedRoutes("payments"))
        .hasMessageContaining("[METHOD] /path");
  }
}
