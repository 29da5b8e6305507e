package dev.relent.mockserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MockServerMainTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(java.util.function.Consumer<MockServer> whileRunning, String... args) {
    return MockServerMain.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        whileRunning);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void startsPrintsItsAddressAndServes(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("scenario.json");
    Files.writeString(
        file, "{\"routes\": [{\"path\": \"/hi\", \"steps\": [{\"body\": \"hello\"}]}]}");
    AtomicInteger status = new AtomicInteger();
    int code =
        run(
            server -> {
              try {
                HttpResponse<String> r =
                    HttpClient.newHttpClient()
                        .send(
                            HttpRequest.newBuilder(server.uri("/hi")).build(),
                            HttpResponse.BodyHandlers.ofString());
                status.set(r.statusCode());
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            file.toString());
    assertThat(code).isZero();
    assertThat(status.get()).isEqualTo(200);
    assertThat(out()).matches("relent mock listening on http://127\\.0\\.0\\.1:\\d+\\R");
    assertThat(err()).isEmpty();
  }

  @Test
  void aBadFileExitsWith2AndSaysWhereAndWhat(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("scenario.json");
    Files.writeString(
        file, "{\"routes\": [\n  {\"path\": \"/a\",\n   \"steps\": [{\"status\": \"abc\"}]}\n]}");
    int code = run(server -> {}, file.toString(), "--port", "0");
    assertThat(code).isEqualTo(2);
    assertThat(out()).isEmpty();
    assertThat(err())
        .isEqualTo(
            file
                + ":3: routes[0].steps[0].status: expected an integer 100..599, got \"abc\""
                + System.lineSeparator());
  }

  @Test
  void aMissingFileExitsWith2(@TempDir Path dir) {
    Path file = dir.resolve("nope.json");
    assertThat(run(server -> {}, file.toString())).isEqualTo(2);
    assertThat(err()).isEqualTo("relent mock: " + file + ": no such file" + System.lineSeparator());
  }

  @Test
  void badArgumentsExitWith2AndShowTheUsage() {
    assertThat(run(server -> {})).isEqualTo(2);
    assertThat(err())
        .isEqualTo(
            "relent mock: missing the scenario file"
                + System.lineSeparator()
                + MockServerMain.USAGE
                + System.lineSeparator());
    err.reset();
    assertThat(run(server -> {}, "s.json", "--port", "http")).isEqualTo(2);
    assertThat(err())
        .isEqualTo(
            "relent mock: --port must be an integer 0..65535, got \"http\""
                + System.lineSeparator());
    err.reset();
    assertThat(run(server -> {}, "s.json", "--verbose")).isEqualTo(2);
    assertThat(err()).startsWith("relent mock: unknown option --verbose");
  }

  @Test
  void aTakenPortExitsWith1(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("scenario.json");
    Files.writeString(file, "{\"routes\": []}");
    try (MockServer taken = MockServer.start(Scenario.parse("{\"routes\": []}"))) {
      int code = run(server -> {}, file.toString(), "--port", Integer.toString(taken.port()));
      assertThat(code).isEqualTo(1);
      assertThat(err()).startsWith("relent mock cannot listen on 127.0.0.1:" + taken.port() + ": ");
    }
  }
}
