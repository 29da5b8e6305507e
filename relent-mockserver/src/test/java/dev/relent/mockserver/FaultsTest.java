package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Faults as a raw socket sees them: what arrives, in what order, and how the connection ends. */
class FaultsTest {

  private MockServer server;

  @BeforeEach
  void start() {
    server =
        MockServer.start(
            Scenario.builder()
                .route("/stall")
                .steps(Step.fault(InjectedFault.STALL).withBody("0123456789"))
                .route("/stall-for")
                .steps(
                    Step.fault(InjectedFault.STALL)
                        .withBody("0123456789")
                        .withFaultBytes(3)
                        .withStallFor(Duration.ofMillis(50)))
                .route("/truncate")
                .steps(
                    Step.fault(InjectedFault.TRUNCATE),
                    Step.fault(InjectedFault.TRUNCATE).withBody("abcdef").withFaultBytes(2))
                .route("/early")
                .steps(Step.fault(InjectedFault.RESET_BEFORE_READ))
                .route("/close")
                .steps(Step.fault(InjectedFault.CLOSE))
                .route("/delay")
                .steps(Step.ok("late").withDelay(Duration.ofMillis(60)))
                .route("/ordered")
                .steps(Step.ok("first").withDelay(Duration.ofMillis(80)), Step.ok("second"))
                .build());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void stallSendsHeadersAndHalfTheBodyThenNothing() throws Exception {
    try (RawHttp raw = new RawHttp(server, 5_000)) {
      raw.send(RawHttp.get("/stall"));
      RawHttp.Response head = raw.head();
      assertThat(head.status).isEqualTo(200);
      assertThat(head.header("Content-Length")).isEqualTo("10");
      assertThat(new String(raw.bodyBytes(5), StandardCharsets.UTF_8)).isEqualTo("01234");
      // The stall has no end: whatever the machine's load, no further byte can come.
      raw.socket.setSoTimeout(300);
      assertThatThrownBy(raw::read).isInstanceOf(SocketTimeoutException.class);
      assertThat(server.stats().active()).isEqualTo(1);
    }
    assertThat(server.journal()).extracting(JournalEntry::fault).containsExactly("stall");
  }

  @Test
  void stallForResumesAfterTheStall() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      long start = System.nanoTime();
      raw.send(RawHttp.get("/stall-for"));
      RawHttp.Response head = raw.head();
      assertThat(new String(raw.bodyBytes(3), StandardCharsets.UTF_8)).isEqualTo("012");
      assertThat(new String(raw.bodyBytes(7), StandardCharsets.UTF_8)).isEqualTo("3456789");
      assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(50_000_000L);
      assertThat(head.header("Content-Length")).isEqualTo("10");
      // The connection stays usable: the stall was only a pause.
      raw.send(RawHttp.get("/delay"));
      assertThat(raw.response().bodyText()).isEqualTo("late");
    }
  }

  @Test
  void truncateSendsLessThanContentLengthThenEndsTheConnection() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send(RawHttp.get("/truncate"));
      RawHttp.Response r = raw.response();
      assertThat(r.header("Content-Length")).isEqualTo("1024");
      assertThat(r.body).hasSize(512).containsOnly((byte) 'x');
      assertThat(r.complete).isFalse();
      assertThat(raw.read()).isEqualTo(-1);
    }
    try (RawHttp raw = new RawHttp(server)) {
      raw.send(RawHttp.get("/truncate"));
      RawHttp.Response r = raw.response();
      assertThat(r.header("Content-Length")).isEqualTo("6");
      assertThat(r.bodyText()).isEqualTo("ab");
    }
  }

  @Test
  void resetBeforeReadResetsWithoutWaitingForTheBody() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      // Announces a body that never comes: only a reset that does not read it can answer.
      raw.send("POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
      assertThatThrownBy(raw::read)
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
    }
    assertThat(server.journal())
        .extracting(JournalEntry::fault, JournalEntry::bodyBytes, JournalEntry::status)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("reset-before-read", 0L, 0));
  }

  @Test
  void closeEndsTheConnectionWithoutAResponse() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send(RawHttp.get("/close"));
      assertThat(raw.read()).isEqualTo(-1);
    }
  }

  @Test
  void delayHoldsTheAnswerBack() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      long start = System.nanoTime();
      raw.send(RawHttp.get("/delay"));
      RawHttp.Response r = raw.response();
      assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(60_000_000L);
      assertThat(r.bodyText()).isEqualTo("late");
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrderEvenWhenTheFirstIsDelayed() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send(RawHttp.get("/ordered") + RawHttp.get("/ordered") + RawHttp.get("/close"));
      assertThat(raw.response().bodyText()).isEqualTo("first");
      assertThat(raw.response().bodyText()).isEqualTo("second");
      assertThat(raw.read()).isEqualTo(-1);
    }
    assertThat(server.journal())
        .extracting(JournalEntry::endpoint)
        .containsExactly("/ordered", "/ordered", "/close");
  }
}
