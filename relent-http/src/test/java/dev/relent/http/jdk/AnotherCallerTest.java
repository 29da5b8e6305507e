package dev.relent.http.jdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.RetryPolicy;
import dev.relent.guard.Pacer;
import dev.relent.time.FakeTime;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server's {@code RateLimit-Policy} travels from a real response through the JDK adapter to an
 * adaptive pacer, which tells from it that another caller spends the account: against a real local
 * server, on fake time.
 */
class AnotherCallerTest {
  private static final HttpClient JDK =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private final FakeTime time = new FakeTime();
  private ScriptedServer server;

  @AfterEach
  void close() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  private long intervalAfterOneCall(String... headers) throws Exception {
    server = new ScriptedServer().respond(200, headers);
    Pacer pacer = Pacer.builder().adaptive().withTime(time).build();
    RelentHttpClient http =
        RelentHttpClient.builder(JDK)
            .withPolicy(RetryPolicy.ofDefaults())
            .withTime(time)
            .withExecutor(x -> x.withPacer(pacer))
            .build();
    http.send(
        HttpRequest.newBuilder(server.uri("/v1/items")).GET().build(), BodyHandlers.ofString());
    // After the reading's reset: only what was learned of the account remains.
    time.advance(Duration.ofSeconds(6));
    return pacer.interval().toNanos();
  }

  @Test
  void aCountOfTheQuotaSpentAboveThisClientsOwnStartsLeavesTheOtherCallerAQuarter()
      throws Exception {
    // This client's first request, and 8 of the 10 per 5 s are spent: someone else spent 7.
    long interval =
        intervalAfterOneCall(
            "RateLimit: \"default\";r=2;t=5", "RateLimit-Policy: \"default\";q=10;w=5");
    // Three quarters of the policy's 2/s: one start every 666.7 ms.
    assertThat(interval).isEqualTo(666_666_666L);
  }

  @Test
  void aCountThatMatchesThisClientsOwnStartsLeavesNothing() throws Exception {
    long interval =
        intervalAfterOneCall(
            "RateLimit: \"default\";r=9;t=5", "RateLimit-Policy: \"default\";q=10;w=5");
    assertThat(interval).isLessThan(666_666_666L);
  }
}
