package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.cli.ChildJvm;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code relent batch} keeps nothing per request once it has ended: 20 000 requests, journaled, run
 * in a JVM of its own with a 32 MiB heap (13.6 kB a request would need 272 MB), and the resume
 * reads the journal of 20 000 records in the same heap; the HTML report's collectors ({@code
 * --html}) run along. Not a timed test: it checks that the run completes and that every id appears
 * once in the results.
 */
class BatchMemoryTest {
  static final int REQUESTS = 20_000;

  @TempDir Path dir;

  private record Result(int exitCode, String out, String err) {}

  private Result relent(String... args) throws IOException, InterruptedException {
    List<String> command = ChildJvm.relent("32m", args);
    Path out = dir.resolve("stdout");
    Path err = dir.resolve("stderr");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    p.getOutputStream().close();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void twentyThousandRequestsAndTheirResumeRunInASmallHeap() throws Exception {
    try (MockServer server =
        MockServer.start(
            Scenario.parse(
                "{\"routes\": [{\"method\": \"GET\", \"path\": \"/items/*\", \"steps\":"
                    + " [{\"status\": 200, \"body\": \"ok\"}]}]}"))) {
      Path in = dir.resolve("in.jsonl");
      try (BufferedWriter w = Files.newBufferedWriter(in, StandardCharsets.UTF_8)) {
        for (int i = 1; i <= REQUESTS; i++) {
          w.write("{\"id\": \"r-" + i + "\", \"url\": \"" + server.uri("/items/" + i) + "\"}\n");
        }
      }
      Path journal = dir.resolve("journal");
      Path results = dir.resolve("results.jsonl");
      String[] args = {
        "batch",
        in.toString(),
        "--rate",
        "1000000/s",
        "--concurrency",
        "16",
        "--progress",
        "off",
        "--journal",
        journal.toString(),
        "--out",
        results.toString(),
        "--html",
        dir.resolve("report.html").toString()
      };

      Result first = relent(args);
      assertThat(first.exitCode()).as(first.err()).isZero();
      assertThat(first.out()).contains(REQUESTS + " requests in").contains(REQUESTS + " succeeded");
      assertThat(idsOf(results)).hasSize(REQUESTS);
      // the report's collectors are bounded too: every request counted, in the same heap
      assertThat(Files.readString(dir.resolve("report.html")))
          .contains(REQUESTS + " requests in ")
          .contains("<tr><td>2xx/3xx</td><td>" + REQUESTS + "</td></tr>");

      Result resumed = relent(args);
      assertThat(resumed.exitCode()).as(resumed.err()).isZero();
      assertThat(resumed.err())
          .contains(REQUESTS + " of " + REQUESTS + " finished earlier (skipped)");
      assertThat(resumed.out()).contains("finished earlier   " + REQUESTS);
      assertThat(idsOf(results)).hasSize(REQUESTS);
      assertThat(server.stats().requests("GET /items/*")).isEqualTo(REQUESTS);
    }
  }

  private static Set<String> idsOf(Path results) throws IOException {
    Set<String> ids = new HashSet<>();
    try (Stream<String> lines = Files.lines(results)) {
      lines.forEach(
          line -> {
            String id = line.substring(7, line.indexOf('"', 7));
            assertThat(ids.add(id)).as("each id once: " + id).isTrue();
          });
    }
    return ids;
  }
}
