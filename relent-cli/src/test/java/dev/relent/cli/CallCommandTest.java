package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.MockServerExtension;
import dev.relent.testing.ServerClock;
import dev.relent.time.FakeTime;
import dev.relent.time.RecordingSleeper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * End-to-end tests of {@code relent call} against the project's mock server, in-process: exit
 * codes, stdout, stderr and the report. Waits are kept to milliseconds ({@code --base 1ms --cap
 * 5ms}) or run on fake time; no test sleeps seconds.
 */
class CallCommandTest {
  static final String SCENARIO =
      "{\"routes\": ["
          + "{\"method\": \"GET\", \"path\": \"/ok\", \"steps\": [{\"status\": 200,"
          + " \"body\": \"h\\u00e9llo \\u2713\\n\"}]},"
          + "{\"path\": \"/flaky\", \"steps\": [{\"status\": 503}, {\"status\": 503},"
          + " {\"status\": 200, \"body\": \"ok\"}]},"
          + "{\"path\": \"/missing\", \"steps\": [{\"status\": 404, \"body\": \"nope\","
          + " \"headers\": {\"X-Request-Id\": \"r-404\"}}]},"
          + "{\"path\": \"/down\", \"steps\": [{\"status\": 503, \"body\": \"down\"}]},"
          + "{\"path\": \"/hostile\", \"steps\": [{\"status\": 503,"
          + " \"headers\": {\"Retry-After\": \"86400\"}}]},"
          + "{\"path\": \"/later\", \"steps\": [{\"status\": 503, \"headers\": {\"Retry-After\":"
          + " \"2\"}}, {\"status\": 200, \"body\": \"later\"}]},"
          + "{\"path\": \"/reset\", \"steps\": [{\"fault\": \"reset\"}, {\"status\": 200,"
          + " \"body\": \"after reset\"}]},"
          + "{\"path\": \"/echo\", \"steps\": [{\"status\": 201, \"body\": \"created\"}]},"
          + "{\"path\": \"/slow\", \"steps\": [{\"delay\": \"5s\", \"status\": 200}]},"
          + "{\"path\": \"/moved\", \"steps\": [{\"status\": 302,"
          + " \"headers\": {\"Location\": \"/ok\"}}]}"
          + "],"
          + "\"resources\": ["
          + "{\"name\": \"payments\", \"path\": \"/payments\", \"idPrefix\": \"pay_\","
          + " \"steps\": [{\"status\": 504}, {}]},"
          + "{\"name\": \"orders\", \"path\": \"/orders\", \"idPrefix\": \"ord_\","
          + " \"steps\": [{\"fault\": \"reset\"}, {}]}"
          + "]}";

  static final String FAST = "--base=1ms";
  static final String FAST_CAP = "--cap=5ms";
  static final String SECRET_TOKEN = "sk_live_PLANTED_7f3a9";
  static final String SECRET_KEY = "PLANTED_QUERY_KEY_42";

  @RegisterExtension final MockServerExtension mock = MockServerExtension.of(parse());

  @TempDir Path dir;

  private final ObjectMapper json = new ObjectMapper();

  private static Scenario parse() {
    return Scenario.parse(SCENARIO);
  }

  private static String url(MockServer server, String path) {
    return server.uri(path).toString();
  }

  private JsonNode report(Path file) throws IOException {
    return json.readTree(Files.readString(file));
  }

  private static List<String> texts(JsonNode array, String field) {
    return StreamSupport.stream(array.spliterator(), false)
        .map(n -> n.get(field).isNull() ? null : n.get(field).asText())
        .collect(Collectors.toList());
  }

  private static long requests(MockServer server, String endpoint) {
    return server.stats().requests(endpoint);
  }

  // ------------------------------------------------------------------ exit codes

  @Test
  void twoHundredExitsZeroWithTheBodyOnStdoutByteForByte(MockServer server) {
    CliRun run = CliRun.of("call", url(server, "/ok"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.outBytes()).isEqualTo("h\u00e9llo \u2713\n".getBytes(StandardCharsets.UTF_8));
    assertThat(run.err()).isEmpty();
  }

  @Test
  void aRedirectIsNotFollowedAndExitsZero(MockServer server) {
    CliRun run = CliRun.of("call", url(server, "/moved"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(requests(server, "GET /ok")).isZero();
  }

  @Test
  void fiveOhThreeTwiceThenTwoHundredExitsZeroWithThreeAttemptsInTheReport(MockServer server)
      throws IOException {
    Path file = dir.resolve("report.json");
    CliRun run =
        CliRun.of("call", FAST, FAST_CAP, "--report", file.toString(), url(server, "/flaky"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).isEqualTo("ok");
    assertThat(run.err()).isEmpty();
    JsonNode r = report(file);
    assertThat(r.get("relent_report").asInt()).isEqualTo(1);
    JsonNode attempts = r.get("attempts");
    assertThat(attempts).hasSize(3);
    assertThat(texts(attempts, "attempt")).containsExactly("1", "2", "3");
    assertThat(texts(attempts, "status")).containsExactly("503", "503", "200");
    assertThat(texts(attempts, "fault")).containsExactly(null, null, null);
    assertThat(texts(attempts, "outcome")).containsExactly("HTTP 503", "HTTP 503", "HTTP 200");
    assertThat(texts(attempts, "verdict")).containsExactly("retry", "retry", "success");
    assertThat(texts(attempts, "rule")).containsExactly("http-503", "http-503", "http-2xx");
    assertThat(texts(attempts, "decision")).containsExactly("retry", "retry", "stop");
    assertThat(attempts.get(0).get("start_ms").asDouble()).isZero();
    for (int i = 0; i < 2; i++) {
      // full jitter: uniform in [0, min(cap, base * 2^i))
      double wait = attempts.get(i).get("wait_ms").asDouble();
      assertThat(wait).isBetween(0.0, i == 0 ? 1.0 : 2.0);
      assertThat(attempts.get(i + 1).get("start_ms").asDouble())
          .isGreaterThanOrEqualTo(attempts.get(i).get("start_ms").asDouble() + wait);
    }
    assertThat(attempts.get(2).get("wait_ms").isNull()).isTrue();
    JsonNode outcome = r.get("outcome");
    assertThat(outcome.get("exit_code").asInt()).isZero();
    assertThat(outcome.get("reason").asText()).isEqualTo("success");
    assertThat(outcome.get("message").asText()).isEqualTo("HTTP 200 after 3 attempts");
    assertThat(outcome.get("status").asInt()).isEqualTo(200);
    assertThat(outcome.get("attempts").asInt()).isEqualTo(3);
    JsonNode request = r.get("request");
    assertThat(request.get("method").asText()).isEqualTo("GET");
    assertThat(request.get("url").asText()).isEqualTo(url(server, "/flaky"));
    assertThat(request.get("idempotency_key").isNull()).isTrue();
    assertThat(request.get("body_bytes").isNull()).isTrue();
    JsonNode settings = r.get("settings");
    assertThat(settings.toString())
        .isEqualTo(
            "{\"max_retries\":5,\"base_ms\":1,\"cap_ms\":5,\"jitter\":\"full\","
                + "\"timeout_ms\":10000,\"deadline_ms\":60000,\"max_wait_ms\":60000,\"seed\":null}");
    assertThat(requests(server, "/flaky")).isEqualTo(3);
  }

  @Test
  void aFourOhFourExitsThreeAtOnceWithTheBodyOnStdout(MockServer server) {
    CliRun run = CliRun.of("call", FAST, FAST_CAP, url(server, "/missing"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
    assertThat(run.out()).isEqualTo("nope");
    assertThat(run.err())
        .isEqualTo(
            "relent: HTTP 404 from GET "
                + url(server, "/missing")
                + " after 1 attempt: not retried: the request itself is wrong (rule http-404)"
                + System.lineSeparator());
    assertThat(requests(server, "/missing")).isEqualTo(1);
  }

  @Test
  void fiveOhThreeForeverExitsFourWhenTheRetriesAreUsed(MockServer server) throws IOException {
    Path file = dir.resolve("r.json");
    CliRun run =
        CliRun.of(
            "call",
            FAST,
            FAST_CAP,
            "--max-retries",
            "2",
            "--report",
            file.toString(),
            url(server, "/down"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.RETRIES_EXHAUSTED);
    assertThat(run.out()).isEqualTo("down");
    assertThat(run.err())
        .startsWith("relent: gave up after 3 attempts in ")
        .contains(
            "(last: HTTP 503 from GET "
                + url(server, "/down")
                + ", rule retry: http-503; all 2 retries used)");
    assertThat(requests(server, "/down")).isEqualTo(3);
    JsonNode r = report(file);
    assertThat(texts(r.get("attempts"), "decision")).containsExactly("retry", "retry", "stop");
    assertThat(texts(r.get("attempts"), "gave_up"))
        .containsExactly(null, null, "retries-exhausted");
    assertThat(r.get("outcome").get("exit_code").asInt()).isEqualTo(4);
    assertThat(r.get("outcome").get("reason").asText()).isEqualTo("retries-exhausted");
    assertThat(r.get("outcome").get("status").asInt()).isEqualTo(503);
  }

  @Test
  void aHostileRetryAfterExitsFiveAtOnceSayingHowLongTheServerAsked(MockServer server)
      throws IOException {
    Path file = dir.resolve("r.json");
    CliRun run = CliRun.of("call", "--report", file.toString(), url(server, "/hostile"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.DEADLINE);
    assertThat(run.err())
        .startsWith("relent: gave up after 1 attempt in ")
        .contains(
            "(last: HTTP 503 from GET "
                + url(server, "/hostile")
                + ", not retried; server asked to wait 86400 s (Retry-After: 86400), more than the ")
        .contains(" allowed; retry at ")
        .doesNotContain("rule retry");
    assertThat(requests(server, "/hostile")).isEqualTo(1);
    JsonNode outcome = report(file).get("outcome");
    assertThat(outcome.get("reason").asText()).isEqualTo("server-wait-too-long");
    assertThat(outcome.get("server_wait_ms").asLong()).isEqualTo(86_400_000L);
    assertThat(outcome.get("retry_at").isNull()).isFalse();
    // Fails fast: no wait was begun.
    assertThat(outcome.get("elapsed_ms").asDouble()).isLessThan(5_000);
  }

  @Test
  void maxWaitBelowTheServersWaitAlsoExitsFive(MockServer server) {
    CliRun run = CliRun.of("call", "--max-wait", "1s", url(server, "/later"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.DEADLINE);
    assertThat(run.err()).contains("server asked to wait 2 s (Retry-After: 2), more than the 1 s");
  }

  @Test
  void aDeadlineShorterThanTheNextWaitExitsFive(MockServer server) {
    CliRun run =
        CliRun.of(
            "call", "--base", "10s", "--jitter", "none", "--deadline", "2s", url(server, "/down"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.DEADLINE);
    assertThat(run.err()).contains("the next wait of 10 s would pass the 2 s deadline");
    assertThat(requests(server, "/down")).isEqualTo(1);
  }

  @Test
  void anUnkeyedPostUnder503ExitsThreeAndSaysItWasNotResent(MockServer server) {
    CliRun run = CliRun.of("call", FAST, FAST_CAP, "-d", "{\"amount\":100}", url(server, "/down"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
    assertThat(run.err())
        .isEqualTo(
            "relent: POST "
                + url(server, "/down")
                + " was not re-sent after HTTP 503 (rule http-503-unkeyed-write; 1 attempt): the"
                + " request may have reached the server and carries no Idempotency-Key, so sending"
                + " it again could repeat its effect; check whether it took effect before sending"
                + " it again, or send it with an Idempotency-Key"
                + System.lineSeparator());
    assertThat(run.out()).isEqualTo("down");
    assertThat(requests(server, "/down")).isEqualTo(1);
  }

  @Test
  void aKeyedPostUnder504AfterCreateSucceedsAndCreatesExactlyOnePayment(MockServer server)
      throws IOException {
    Path file = dir.resolve("r.json");
    CliRun run =
        CliRun.of(
            "call",
            FAST,
            FAST_CAP,
            "-X",
            "POST",
            "-d",
            "{\"amount\":100}",
            "--idempotency-key",
            "auto",
            "--report",
            file.toString(),
            url(server, "/payments"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("\"id\":\"pay_1\"");
    assertThat(server.stats().resourcesCreated("payments")).isEqualTo(1);
    List<JournalEntry> journal = server.journal();
    assertThat(journal).hasSize(2);
    String key = journal.get(0).header("Idempotency-Key");
    assertThat(key).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(journal.get(1).header("Idempotency-Key")).isEqualTo(key);
    JsonNode r = report(file);
    assertThat(r.get("request").get("idempotency_key").asText()).isEqualTo(key);
    assertThat(r.get("request").get("body_bytes").asInt()).isEqualTo(14);
    assertThat(texts(r.get("attempts"), "status")).containsExactly("504", "201");
    assertThat(texts(r.get("attempts"), "rule")).containsExactly("http-504", "http-2xx");
  }

  @Test
  void theCallersOwnKeyIsSentOnEveryAttempt(MockServer server) {
    CliRun run =
        CliRun.of(
            "call",
            FAST,
            FAST_CAP,
            "-d",
            "x",
            "--idempotency-key",
            "order-4711",
            url(server, "/payments"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(server.journal())
        .extracting(e -> e.header("Idempotency-Key"))
        .containsExactly("order-4711", "order-4711");
    assertThat(server.stats().resourcesCreatedPerKey("payments")).containsEntry("order-4711", 1L);
  }

  @Test
  void anUnkeyedPostUnder504AfterCreateIsNotResent(MockServer server) {
    CliRun run = CliRun.of("call", FAST, FAST_CAP, "-d", "x", url(server, "/payments"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
    assertThat(run.err())
        .contains("was not re-sent after HTTP 504 (rule http-504-unkeyed-write; 1 attempt)");
    assertThat(server.stats().resourcesCreated("payments")).isEqualTo(1);
  }

  @Test
  void aResetIsRetriedForGet(MockServer server) {
    CliRun run = CliRun.of("call", FAST, FAST_CAP, url(server, "/reset"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).isEqualTo("after reset");
  }

  @Test
  void aKeyedPostWhoseConnectionIsResetAfterCreateIsRetriedAndCreatesOneOrder(MockServer server)
      throws IOException {
    Path file = dir.resolve("r.json");
    CliRun run =
        CliRun.of(
            "call",
            FAST,
            FAST_CAP,
            "-d",
            "{}",
            "--idempotency-key",
            "auto",
            "--report",
            file.toString(),
            url(server, "/orders"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(server.stats().resourcesCreated("orders")).isEqualTo(1);
    JsonNode attempts = report(file).get("attempts");
    assertThat(texts(attempts, "fault")).containsExactly("reset", null);
    assertThat(texts(attempts, "status")).containsExactly(null, "201");
    assertThat(texts(attempts, "rule")).containsExactly("io-reset", "http-2xx");
  }

  @Test
  void anUnkeyedPostWhoseConnectionIsResetIsNotResent(MockServer server) {
    CliRun run = CliRun.of("call", FAST, FAST_CAP, "-d", "{}", url(server, "/orders"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
    assertThat(run.err())
        .contains("POST " + url(server, "/orders") + " was not re-sent after connection reset");
    assertThat(run.out()).isEmpty();
    assertThat(requests(server, "orders")).isEqualTo(1);
  }

  @Test
  void aRefusedConnectionIsRetriedAndThenExitsFour() throws Exception {
    int port;
    try (MockServer gone = MockServer.start(Scenario.parse("{\"routes\": []}"))) {
      port = gone.port();
    }
    CliRun run =
        CliRun.of("call", FAST, FAST_CAP, "--max-retries", "1", "http://127.0.0.1:" + port + "/x");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.RETRIES_EXHAUSTED);
    assertThat(run.err())
        .contains("gave up after 2 attempts")
        .contains("last: connection refused (ConnectException)");
  }

  @Test
  void aHostileRetryAfterAboveMaxWaitNamesBothWaits(MockServer server) {
    CliRun run = CliRun.of("call", "--max-wait", "30s", url(server, "/hostile"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.DEADLINE);
    assertThat(run.err())
        .contains(
            "server asked to wait 86400 s (Retry-After: 86400), more than the 30 s allowed;"
                + " retry at ");
  }

  @Test
  void anUnknownHostIsNotRetriedAndExitsThree() {
    CliRun run = CliRun.of("call", FAST, FAST_CAP, "http://relent-no-such-host.invalid/x");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
    assertThat(run.err())
        .startsWith("relent: unknown host: GET http://relent-no-such-host.invalid/x (")
        .endsWith("); not retried" + System.lineSeparator());
  }

  @Test
  void readTimeoutsAreRetriedAndReportedAsFaults(MockServer server) throws IOException {
    Path file = dir.resolve("r.json");
    CliRun run =
        CliRun.of(
            "call",
            FAST,
            FAST_CAP,
            "--timeout",
            "150ms",
            "--max-retries",
            "1",
            "--report",
            file.toString(),
            url(server, "/slow"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.RETRIES_EXHAUSTED);
    assertThat(run.err()).contains("gave up after 2 attempts").contains("last: read timeout");
    JsonNode attempts = report(file).get("attempts");
    assertThat(texts(attempts, "fault")).containsExactly("read-timeout", "read-timeout");
    assertThat(texts(attempts, "status")).containsExactly(null, null);
    assertThat(texts(attempts, "rule")).containsExactly("io-read-timeout", "io-read-timeout");
    assertThat(attempts.get(0).get("duration_ms").asDouble()).isBetween(100.0, 5_000.0);
  }

  @Test
  void aDailyQuotaExitsFiveAtOnceWithItsReset() throws IOException {
    FakeTime time = new FakeTime(); // 2026-01-01T00:00:00Z: the quota resets in 24 h
    try (MockServer server =
        MockServer.builder(
                Scenario.parse(
                    "{\"routes\": [{\"path\": \"/q\", \"steps\": [{\"status\": 200}],"
                        + " \"dailyQuota\": {\"limit\": 1, \"key\": \"global\"}}]}"))
            .withClock(ServerClock.of(time))
            .start()) {
      assertThat(CliRun.of("call", server.uri("/q").toString()).exitCode()).isZero();
      Path file = dir.resolve("r.json");
      CliRun run = CliRun.of("call", "--report", file.toString(), server.uri("/q").toString());

      assertThat(run.exitCode()).isEqualTo(ExitCodes.DEADLINE);
      assertThat(run.err())
          .startsWith("relent: quota exhausted after 1 attempt in ")
          .contains(
              "(last: HTTP 429 from GET "
                  + server.uri("/q")
                  + ", not retried; Retry-After: 86400: the quota resets in"
                  + " 86400 s; waiting a while will not help; retry at ")
          .doesNotContain("rule retry");
      JsonNode outcome = report(file).get("outcome");
      assertThat(outcome.get("reason").asText()).isEqualTo("quota-exhausted");
      assertThat(outcome.get("status").asInt()).isEqualTo(429);
      assertThat(server.stats().requests("/q")).isEqualTo(2);
    }
  }

  // ------------------------------------------------------------------ waits on fake time

  @Test
  void theServersWaitIsAMinimumAndTheReportShowsItOnFakeTime(MockServer server) throws IOException {
    FakeTime time = new FakeTime();
    RecordingSleeper sleeper = new RecordingSleeper(time);
    Path file = dir.resolve("r.json");
    CliRun run =
        CliRun.of(
            cli -> useTime(cli, time, sleeper),
            "call",
            "--seed",
            "7",
            "--report",
            file.toString(),
            url(server, "/later"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).isEqualTo("later");
    assertThat(sleeper.waits()).hasSize(1);
    Duration wait = sleeper.waits().get(0);
    // Retry-After: 2 plus at most 10 % spread, never less
    assertThat(wait).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2200));
    JsonNode r = report(file);
    JsonNode attempts = r.get("attempts");
    assertThat(attempts.get(0).get("hint").asText()).isEqualTo("Retry-After: 2");
    assertThat(attempts.get(0).get("wait_headers").asText()).isEqualTo("Retry-After: 2");
    // fake time: the attempts take no time, so the second starts exactly after the wait
    assertThat(attempts.get(0).get("wait_ms").decimalValue())
        .isEqualByComparingTo(attempts.get(1).get("start_ms").decimalValue());
    assertThat(attempts.get(1).get("start_ms").asDouble() * 1e6)
        .isCloseTo(wait.toNanos(), org.assertj.core.data.Offset.offset(1000.0));
    assertThat(r.get("settings").get("seed").asLong()).isEqualTo(7);
    assertThat(r.get("started_at").asText()).isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void theSameSeedGivesTheSameWaits(MockServer server) {
    List<List<Duration>> runs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      server.reset();
      FakeTime time = new FakeTime();
      RecordingSleeper sleeper = new RecordingSleeper(time);
      CliRun run =
          CliRun.of(
              cli -> useTime(cli, time, sleeper),
              "call",
              "--seed",
              "42",
              "--jitter",
              "decorrelated",
              url(server, "/flaky"));
      assertThat(run.exitCode()).isZero();
      runs.add(sleeper.waits());
    }
    assertThat(runs.get(0)).hasSize(2).isEqualTo(runs.get(1));
    // decorrelated: U(base, min(cap, 3 * previous)); base 500 ms
    assertThat(runs.get(0))
        .allSatisfy(w -> assertThat(w).isBetween(Duration.ofMillis(500), Duration.ofMillis(4500)));
  }

  static void useTime(CommandLine cli, FakeTime time, RecordingSleeper sleeper) {
    CallCommand call = cli.getSubcommands().get("call").getCommand();
    call.ticker = time;
    call.clock = time;
    call.sleeper = sleeper;
  }

  // ------------------------------------------------------------------ verbose and secrets

  @Test
  void verboseWritesOneRedactedLinePerAttempt(MockServer server) {
    FakeTime time = new FakeTime();
    RecordingSleeper sleeper = new RecordingSleeper(time);
    CliRun run =
        CliRun.of(
            cli -> useTime(cli, time, sleeper),
            "call",
            "-v",
            "--jitter",
            "none",
            "--base",
            "100ms",
            url(server, "/flaky") + "?page=2&api_key=" + SECRET_KEY);

    assertThat(run.exitCode()).isZero();
    String endpoint = url(server, "/flaky") + "?page=2&api_key=REDACTED";
    assertThat(run.err().split("\\R"))
        .containsExactly(
            "relent: attempt=1 start=0 ms method=GET endpoint="
                + endpoint
                + " outcome=\"HTTP 503\" decision=\"retry: http-503\" wait=100 ms took=0 ms",
            "relent: attempt=2 start=100 ms method=GET endpoint="
                + endpoint
                + " outcome=\"HTTP 503\" decision=\"retry: http-503\" wait=200 ms took=0 ms",
            "relent: attempt=3 start=300 ms method=GET endpoint="
                + endpoint
                + " outcome=\"HTTP 200\" decision=\"success: http-2xx\" took=0 ms",
            "relent: HTTP 200 after 3 attempts");
  }

  @Test
  void verboseShowsRequestIdsWaitHeadersAndTheGiveUp(MockServer server) {
    CliRun run = CliRun.of("call", "-v", url(server, "/missing"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_RETRIED);
    assertThat(run.err().split("\\R")[0])
        .startsWith("relent: attempt=1 start=0 ms method=GET endpoint=" + url(server, "/missing"))
        .contains(" outcome=\"HTTP 404\" request-id=\"X-Request-Id: r-404\"")
        .contains(" decision=\"abort: http-404\"");

    CliRun hostile = CliRun.of("call", "-v", url(server, "/hostile"));
    assertThat(hostile.err().split("\\R")[0])
        .contains(" wait-headers=\"Retry-After: 86400\"")
        .contains(" decision=\"give up: server-wait-too-long, last retry: http-503\"")
        .contains(" hint=\"Retry-After: 86400\"");
  }

  @Test
  void aPlantedSecretInAHeaderOrTheQueryNeverAppearsInStdoutStderrOrTheReport(MockServer server)
      throws IOException {
    for (String path : List.of("/flaky", "/missing", "/down", "/hostile")) {
      server.reset();
      Path file = dir.resolve("secret" + path.substring(1) + ".json");
      CliRun run =
          CliRun.of(
              "call",
              FAST,
              FAST_CAP,
              "--max-retries",
              "1",
              "-v",
              "-H",
              "Authorization: Bearer " + SECRET_TOKEN,
              "-H",
              "X-Api-Key: " + SECRET_TOKEN,
              "--report",
              file.toString(),
              url(server, path) + "?api_key=" + SECRET_KEY + "&token=" + SECRET_TOKEN);
      String report = Files.readString(file);

      assertThat(run.exitCode()).as(path).isIn(0, 3, 4, 5);
      for (String secret : List.of(SECRET_TOKEN, SECRET_KEY)) {
        assertThat(run.out()).as(path).doesNotContain(secret);
        assertThat(run.err()).as(path).doesNotContain(secret);
        assertThat(report).as(path).doesNotContain(secret);
      }
      assertThat(run.err()).as(path).contains("api_key=REDACTED&token=REDACTED");
      assertThat(report).as(path).contains("api_key=REDACTED&token=REDACTED");
      assertThat(report).as(path).contains("\"headers\" : [ \"Authorization\", \"X-Api-Key\" ]");
      // ... and the server did get them
      assertThat(server.journal().get(0).headers()).containsKey("Authorization");
    }
  }

  @Test
  void aSecretInAMistypedFlagOrABadHeaderIsNotEchoed(MockServer server) {
    CliRun typo =
        CliRun.of("call", "--heder", "Authorization: Bearer " + SECRET_TOKEN, url(server, "/ok"));
    assertThat(typo.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(typo.err()).contains("Unknown option").doesNotContain(SECRET_TOKEN);

    CliRun noColon =
        CliRun.of("call", "-H", "Authorization Bearer " + SECRET_TOKEN, url(server, "/ok"));
    assertThat(noColon.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(noColon.err()).doesNotContain(SECRET_TOKEN);

    CliRun badScheme = CliRun.of("call", "ftp://example.com/x?api_key=" + SECRET_KEY);
    assertThat(badScheme.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(badScheme.err()).doesNotContain(SECRET_KEY);
    assertThat(server.stats().requests()).isZero();
  }

  // ------------------------------------------------------------------ request building

  @Test
  void dataFromAFileIsSentAsItsBytesWithPost(MockServer server) throws IOException {
    Path body = dir.resolve("body.bin");
    byte[] bytes = {0, 1, 2, (byte) 0xff, '\n'};
    Files.write(body, bytes);
    CliRun run =
        CliRun.of(
            "call",
            "-d",
            "@" + body,
            "-H",
            "Content-Type: application/octet-stream",
            url(server, "/echo"));

    assertThat(run.exitCode()).isZero();
    JournalEntry entry = server.journal().get(0);
    assertThat(entry.method()).isEqualTo("POST");
    assertThat(entry.bodyBytes()).isEqualTo(5);
    assertThat(entry.header("Content-Type")).isEqualTo("application/octet-stream");
  }

  @Test
  void dataFromStandardInputAndAnExplicitMethod(MockServer server) {
    CliRun run =
        CliRun.of(
            cli -> {
              CallCommand call = cli.getSubcommands().get("call").getCommand();
              call.stdin = new ByteArrayInputStream("abc".getBytes(StandardCharsets.UTF_8));
            },
            "call",
            "-X",
            "PUT",
            "-d",
            "@-",
            url(server, "/echo"));

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("created");
    JournalEntry entry = server.journal().get(0);
    assertThat(entry.method()).isEqualTo("PUT");
    assertThat(entry.bodyBytes()).isEqualTo(3);
  }

  // ------------------------------------------------------------------ usage errors

  @Test
  void wrongFlagsAndValuesExitTwoSayingWhatWasWrongAndTheAcceptedForms(MockServer server) {
    String u = url(server, "/ok");
    Path missing = dir.resolve("missing-file.json");
    Object[][] cases = {
      {
        new String[] {"call", "--jitter", "sometimes", u},
        "Invalid value for option '--jitter': 'sometimes' is not a jitter kind; use full, equal,"
            + " decorrelated or none"
      },
      {
        new String[] {"call", "--base", "12", u},
        "Invalid value for option '--base': '12' is not a duration; use 250ms, 2s, 1.5s, 1m, 2h,"
            + " 1d or ISO-8601 like PT2S"
      },
      {
        new String[] {"call", "-H", "NoColonHere", u},
        "-H #1 has no colon; use 'Name: value', e.g. -H 'Accept: application/json'"
      },
      {
        new String[] {"call", "-H", "Accept: */*", "-H", ": empty name", u},
        "-H #2 has no valid header name before the colon"
      },
      {
        new String[] {"call", "-H", "Host: example.com", u},
        "-H #1 (Host): the HTTP client sets this header itself; leave it out"
      },
      {new String[] {"call", "-d", "@" + missing, u}, "-d @" + missing + ": no such file"},
      {new String[] {"call", "-d", "@" + dir, u}, "-d @" + dir + ": is a directory, not a file"},
      {
        new String[] {"call", "ftp://example.com/x"},
        "'ftp://example.com/x' is not an http(s) URL with a host; use http://host[:port]/path or"
            + " https://host[:port]/path"
      },
      {new String[] {"call", "example.com/x"}, "'example.com/x' is not an http(s) URL with a host"},
      {new String[] {"call", "http://exa mple.com/"}, "the URL is not valid (Illegal character"},
      {
        new String[] {"call", "--idempotency-key", "has space", u},
        "--idempotency-key: idempotency key must be visible ASCII: character 3 is U+0020; use"
            + " auto, or 1 to 255 visible ASCII characters"
      },
      {
        new String[] {"call", "--idempotency-key", "k1", "-H", "Idempotency-Key: k2", u},
        "--idempotency-key and -H 'Idempotency-Key: …' both give a key; give it once"
      },
      {new String[] {"call", "--max-retries", "-1", u}, "--max-retries must be 0 or more: -1"},
      {
        new String[] {"call", "--max-retries", "many", u},
        "Invalid value for option '--max-retries': 'many' is not an int"
      },
      {
        new String[] {"call", "--cap", "10ms", u},
        "--cap 10 ms is less than --base 500 ms; the cap must be at least the base"
      },
      {new String[] {"call", "--timeout", "0s", u}, "--timeout must be more than 0: 0 ms"},
      {new String[] {"call", "--deadline", "PT0S", u}, "--deadline must be more than 0: 0 ms"},
      {
        new String[] {"call", "-X", "GE T", u},
        "-X \"GE T\" is not an HTTP method; use a token such as GET, POST, PUT, PATCH, DELETE"
      },
      {
        new String[] {"call", "--report", dir.resolve("no/such/dir/r.json").toString(), u},
        "the directory " + dir.resolve("no/such/dir") + " does not exist"
      },
      {new String[] {"call", "--retries", "3", u}, "Unknown options: '--retries'"},
      {new String[] {"call", "-X", "CONNECT", u}, "cannot send CONNECT " + u + ": "},
      {new String[] {"call"}, "Missing required parameter: 'URL'"},
    };
    for (Object[] c : cases) {
      String[] args = (String[]) c[0];
      CliRun run = CliRun.of(args);
      assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
      assertThat(run.err())
          .as(String.join(" ", args))
          .startsWith("relent: ")
          .contains((String) c[1]);
      assertThat(run.out()).as(String.join(" ", args)).isEmpty();
    }
    assertThat(server.stats().requests()).isZero();
  }

  @Test
  void helpListsEveryFlagWithItsDefault() {
    CliRun run = CliRun.of("call", "--help");

    assertThat(run.exitCode()).isZero();
    for (String flag :
        List.of(
            "-X, --request=METHOD",
            "-H, --header='Name: value'",
            "-d, --data=TEXT|@FILE",
            "--max-retries=N",
            "--base=DURATION",
            "--cap=DURATION",
            "--jitter=full|equal|decorrelated|none",
            "--timeout=DURATION",
            "--deadline=DURATION",
            "--max-wait=DURATION",
            "--idempotency-key=auto|KEY",
            "--seed=N",
            "-v, --verbose",
            "--report=FILE")) {
      assertThat(run.out()).contains(flag);
    }
    assertThat(run.out())
        .contains("Default 5.")
        .contains("Default 500ms.")
        .contains("Default 60s.");
  }
}
