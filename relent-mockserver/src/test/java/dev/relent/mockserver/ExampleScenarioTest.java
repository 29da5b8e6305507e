package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scenario of the issue, as written, end to end over java.net.http. */
class ExampleScenarioTest {

  private MockServer server;
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws IOException, URISyntaxException {
    Path file = Path.of(getClass().getResource("/example-scenario.json").toURI());
    server = MockServer.start(Scenario.parse(file));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(server.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void flakyAnswers503Then503Then200AndRepeatsTheLast() throws Exception {
    assertThat(get("/flaky").statusCode()).isEqualTo(503);
    assertThat(get("/flaky").statusCode()).isEqualTo(503);
    HttpResponse<String> third = get("/flaky");
    assertThat(third.statusCode()).isEqualTo(200);
    assertThat(third.body()).isEqualTo("ok");
    assertThat(third.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
    assertThat(get("/flaky").statusCode()).isEqualTo(200);
    assertThat(server.stats().requests("GET /flaky")).isEqualTo(4);
    assertThat(server.journal())
        .extracting(JournalEntry::step, JournalEntry::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, 503),
            org.assertj.core.groups.Tuple.tuple(1, 503),
            org.assertj.core.groups.Tuple.tuple(2, 200),
            org.assertj.core.groups.Tuple.tuple(2, 200));
  }

  @Test
  void flakyIsOnlyForGet() throws Exception {
    HttpResponse<String> post =
        client.send(
            HttpRequest.newBuilder(server.uri("/flaky"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(404);
    assertThat(post.body())
        .isEqualTo("{\"error\":\"no_route\",\"method\":\"POST\",\"path\":\"/flaky\"}");
  }

  @Test
  void limitedAsksToRetryFiveSecondsLaterAsAnHttpDate() throws Exception {
    HttpResponse<String> first = get("/limited");
    ZonedDateTime now = ZonedDateTime.now(java.time.ZoneOffset.UTC);
    assertThat(first.statusCode()).isEqualTo(429);
    String retryAfter = first.headers().firstValue("Retry-After").orElseThrow();
    ZonedDateTime at = ZonedDateTime.parse(retryAfter, DateTimeFormatter.RFC_1123_DATE_TIME);
    long millis = Duration.between(now, at).toMillis();
    assertThat(millis).isBetween(4_000L, 6_000L);
    assertThat(retryAfter)
        .matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
    assertThat(get("/limited").statusCode()).isEqualTo(200);
    assertThat(get("/limited").statusCode()).isEqualTo(200);
  }

  @Test
  void slowHoldsTheResponseBackLongerThanAClientTimeout() {
    // 2 s is far below the scenario's 15 s and far above this machine's worst scheduling delay.
    HttpRequest request =
        HttpRequest.newBuilder(server.uri("/slow")).timeout(Duration.ofSeconds(2)).build();
    assertThatThrownBy(() -> client.send(request, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(HttpTimeoutException.class);
    assertThat(server.journal())
        .extracting(JournalEntry::endpoint, JournalEntry::status)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("/slow", 200));
  }

  @Test
  void resetResetsTheConnectionThenAnswers200() throws Exception {
    // A POST: java.net.http silently re-sends a GET whose connection was reset (it would get the
    // second step's 200 and hide the fault); it does not re-send a POST.
    HttpRequest post =
        HttpRequest.newBuilder(server.uri("/reset"))
            .POST(HttpRequest.BodyPublishers.ofString("x"))
            .build();
    assertThatThrownBy(() -> client.send(post, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
    assertThat(client.send(post, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    assertThat(server.journal())
        .extracting(JournalEntry::fault, JournalEntry::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("reset", 0),
            org.assertj.core.groups.Tuple.tuple(null, 200));
  }

  @Test
  void javaNetHttpHidesAResetGetByResendingIt() throws Exception {
    // Documents a client behaviour the mock server makes visible: one GET, two requests.
    assertThat(get("/reset").statusCode()).isEqualTo(200);
    assertThat(server.journal()).extracting(JournalEntry::fault).containsExactly("reset", null);
  }

  @Test
  void resetIsAnRstNotAFin() throws Exception {
    try (RawHttp raw = new RawHttp(server)) {
      raw.send(RawHttp.get("/reset"));
      assertThatThrownBy(raw::read)
          .isInstanceOf(java.net.SocketException.class)
          .hasMessageContaining("reset");
    }
  }

  @Test
  void everyAnswerCarriesADateHeader() throws Exception {
    HttpResponse<String> r = get("/flaky");
    String date = r.headers().firstValue("Date").orElseThrow();
    ZonedDateTime parsed = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME);
    assertThat(Duration.between(parsed, ZonedDateTime.now()).abs().toSeconds())
        .isLessThanOrEqualTo(2);
    assertThat(server.scenario().endpointNames())
        .isEqualTo(List.of("GET /flaky", "/limited", "/slow", "/reset"));
  }
}
