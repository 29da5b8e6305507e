package dev.relent.http.jdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.RelentException;
import dev.relent.RetryPolicy;
import dev.relent.http.AttemptRecord;
import dev.relent.http.RelentHttpResponse;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import dev.relent.testing.ServerClock;
import dev.relent.time.FakeTime;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Pins the JDK client's own re-send, which Relent cannot see, and the one JVM-wide setting that
 * stops it. JDK 17 to 25 re-send a GET or HEAD once, inside one {@code HttpClient.send}, when its
 * connection ends before any response byte (a pooled connection the server reset or closed); {@code
 * jdk.httpclient.redirects.retrylimit=1} caps every send at one exchange. The JDK reads the
 * property once per JVM, so the capped case runs in a child JVM ({@link #main}); if a JDK changes
 * either behaviour, this test says so.
 */
class JdkResendTest {
  private static final String LIMIT = "jdk.httpclient.redirects.retrylimit";

  /** A ping leaves a kept-alive connection in the pool; the GET after it is reset twice. */
  private static final String SCENARIO =
      "{\"routes\":[{\"path\":\"/ping\",\"steps\":[{\"status\":200}]},"
          + "{\"path\":\"/items\",\"steps\":[{\"fault\":\"reset\"},{\"fault\":\"reset\"},"
          + "{\"status\":200,\"body\":\"ok\"}]},"
          + "{\"path\":\"/dead\",\"steps\":[{\"fault\":\"reset\"}],\"cycle\":true}]}";

  @Test
  void byDefaultTheJdkResendsAResetGetOnceInsideOneRelentAttempt() throws Exception {
    assertThat(System.getProperty(LIMIT)).as(LIMIT).isNull();
    Map<String, String> seen = exchange();
    // Attempt 1: the pooled connection is reset, the JDK re-sends on a new one, which is reset
    // too; attempt 2 gets the 200. Three requests at the server, two attempts in Relent.
    assertThat(seen)
        .containsEntry("items-requests", "3")
        .containsEntry("items-attempts", "2")
        .containsEntry("items-outcomes", "connection reset (IOException), HTTP 200");
    // One attempt of a GET that is always reset is two requests on the wire, sync or async.
    assertThat(seen)
        .containsEntry("dead-requests", "4")
        .containsEntry("dead-attempts", "1")
        .containsEntry("dead-cause", "HTTP/1.1 header parser received no bytes")
        .containsEntry("dead-async-cause", "HTTP/1.1 header parser received no bytes");
  }

  @Test
  void withRetryLimitOneEveryRequestOnTheWireIsARelentAttempt() throws Exception {
    Map<String, String> seen = inChildJvm("-D" + LIMIT + "=1");
    assertThat(seen)
        .containsEntry("items-requests", "3")
        .containsEntry("items-attempts", "3")
        .containsEntry(
            "items-outcomes",
            "connection reset (IOException), connection reset (IOException), HTTP 200");
    // The JDK's "Too many retries" is not what the caller sees: the reset it stands for is.
    assertThat(seen)
        .containsEntry("dead-requests", "2")
        .containsEntry("dead-attempts", "1")
        .containsEntry("dead-cause", "HTTP/1.1 header parser received no bytes")
        .containsEntry("dead-async-cause", "HTTP/1.1 header parser received no bytes");
  }

  /**
   * Runs the scenario: a ping, then a GET whose pooled connection is reset, then a GET that is
   * always reset with no retries. Returns what the server saw and what Relent recorded.
   */
  static Map<String, String> exchange() throws Exception {
    FakeTime time = new FakeTime();
    Map<String, String> seen = new LinkedHashMap<>();
    HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    try (MockServer server =
        MockServer.builder(Scenario.parse(SCENARIO)).withClock(ServerClock.of(time)).start()) {
      RelentHttpClient http =
          RelentHttpClient.builder(jdk).withPolicy(policy(3)).withTime(time).build();
      http.send(get(server.uri("/ping")), BodyHandlers.ofString());
      RelentHttpResponse<String> items =
          http.send(get(server.uri("/items")), BodyHandlers.ofString());
      seen.put("items-requests", String.valueOf(requests(server, "/items")));
      seen.put("items-attempts", String.valueOf(items.attempts()));
      seen.put(
          "items-outcomes",
          items.attemptRecords().stream()
              .map(AttemptRecord::outcome)
              .collect(Collectors.joining(", ")));

      RelentHttpClient once =
          RelentHttpClient.builder(jdk).withPolicy(policy(0)).withTime(time).build();
      Throwable dead =
          catchThrowable(() -> once.send(get(server.uri("/dead")), BodyHandlers.ofString()));
      seen.put("dead-attempts", String.valueOf(((RelentException) dead).attempts()));
      // The give-up's cause is the HttpFaultException; its cause is what the JDK client threw.
      seen.put("dead-cause", dead.getCause().getCause().getMessage());
      Throwable deadAsync =
          catchThrowable(
              () -> once.sendAsync(get(server.uri("/dead")), BodyHandlers.ofString()).join());
      seen.put("dead-async-cause", deadAsync.getCause().getCause().getCause().getMessage());
      seen.put("dead-requests", String.valueOf(requests(server, "/dead")));
    }
    return seen;
  }

  /**
   * The child JVM's entry point: prints {@link #exchange()} as {@code key=value} lines.
   *
   * @param args ignored
   * @throws Exception if the scenario fails
   */
  public static void main(String[] args) throws Exception {
    exchange().forEach((k, v) -> System.out.println("seen " + k + "=" + v));
  }

  private static Map<String, String> inChildJvm(String property) throws Exception {
    String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add(property);
    command.add("-cp");
    // Surefire puts the modules under test on the module path: the child takes all as a class path.
    command.add(
        Stream.of(System.getProperty("jdk.module.path"), System.getProperty("java.class.path"))
            .filter(p -> p != null && !p.isEmpty())
            .collect(Collectors.joining(File.pathSeparator)));
    command.add(JdkResendTest.class.getName());
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    try (InputStream in = child.getInputStream()) {
      in.transferTo(output);
    }
    // A bound, not a timing assertion: the child ends by itself once the scenario has run.
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child JVM ended").isTrue();
    String text = output.toString(StandardCharsets.UTF_8);
    assertThat(child.exitValue()).as(text).isZero();
    Map<String, String> seen = new LinkedHashMap<>();
    for (String line : text.split("\\R")) {
      if (line.startsWith("seen ")) {
        int eq = line.indexOf('=');
        seen.put(line.substring(5, eq), line.substring(eq + 1));
      }
    }
    return seen;
  }

  private static long requests(MockServer server, String path) {
    return server.journal().stream().filter(e -> e.target().equals(path)).count();
  }

  private static RetryPolicy policy(int maxRetries) {
    return RetryPolicy.builder()
        .withMaxRetries(maxRetries)
        .withAttemptTimeout(Duration.ofSeconds(5))
        .withBackoff(
            Backoff.builder().withBase(Duration.ofMillis(500)).withJitter(Jitter.NONE).build())
        .build();
  }

  private static HttpRequest get(URI uri) {
    return HttpRequest.newBuilder(uri).GET().build();
  }
}
