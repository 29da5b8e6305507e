package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class KeepAliveTest {

  private MockServer server;

  @BeforeEach
  void start() {
    server =
        MockServer.start(Scenario.builder().route("GET", "/ping").steps(Step.ok("pong")).build());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void manySequentialRequestsShareOneConnection() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      for (int i = 0; i < 2_000; i++) {
        raw.send(RawHttp.get("/ping?i=" + i));
        RawHttp.Response r = raw.response();
        assertThat(r.status).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("pong");
        assertThat(r.header("Connection")).isNull();
      }
    }
    assertThat(server.journal()).hasSize(2_000);
    assertThat(server.journal().stream().map(JournalEntry::remoteAddress).distinct()).hasSize(1);
    assertThat(server.stats().requests("GET /ping")).isEqualTo(2_000);
  }

  @Test
  void connectionCloseIsHonoured() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send("GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      RawHttp.Response r = raw.response();
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(raw.read()).isEqualTo(-1);
    }
  }

  @Test
  void http10KeepsAliveOnlyWhenAsked() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send("GET /ping HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
      assertThat(raw.response().header("Connection")).isEqualTo("keep-alive");
      raw.send("GET /ping HTTP/1.0\r\n\r\n");
      assertThat(raw.response().bodyText()).isEqualTo("pong");
      assertThat(raw.read()).isEqualTo(-1);
    }
  }

  @Test
  void headGetsTheHeadersOfGetWithoutTheBody() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send("HEAD /ping HTTP/1.1\r\nHost: x\r\n\r\n");
      RawHttp.Response head = raw.head();
      assertThat(head.status).isEqualTo(200);
      assertThat(head.header("Content-Length")).isEqualTo("4");
      raw.send(RawHttp.get("/ping"));
      assertThat(raw.response().bodyText()).isEqualTo("pong");
    }
  }

  @Test
  void aMalformedRequestGets400AndTheConnectionEnds() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send("GET /ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
      assertThat(raw.response().status).isEqualTo(400);
      assertThat(raw.read()).isEqualTo(-1);
    }
  }
}
