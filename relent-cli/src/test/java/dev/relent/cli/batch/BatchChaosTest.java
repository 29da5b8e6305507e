package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relent.cli.ChildJvm;
import dev.relent.cli.common.ExitCodes;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.Scenario;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Exactly once under chaos: {@value #PAYMENTS} keyed POSTs through {@code relent batch}, in a JVM
 * of its own (the real {@code main}), against the mock server's idempotent payment endpoint, where
 * 30 % of the answers are faults — created and then answered 504, reset, closed without an answer,
 * truncated or stalled past the attempt timeout, or a 503 before anything was created — and the
 * batch is killed with {@code kill -9} at {@value #KILLS} seeded random moments, and resumed each
 * time (the moments spread over the work), then run until it exits 0. The server is the witness:
 * exactly {@value #PAYMENTS} payments, one per key, each key the one journaled for its line; every
 * line's final result is a success.
 *
 * <p>Bounded in time: short attempt timeouts and stalls, 32 workers, no pacing; the test fails
 * after 5 minutes.
 */
class BatchChaosTest {
  static final int PAYMENTS = 10_000;
  static final int KILLS = 20;
  static final long SEED = 15;

  /**
   * One cycle of 20 answers, 6 of them faults (30 %). Every fault but the 503 comes after the
   * payment was created, so the client cannot tell whether it was.
   */
  static final String SCENARIO =
      "{\"journal\": {\"capacity\": 1000000}, \"resources\": [{\"name\": \"payments\","
          + " \"path\": \"/payments\", \"idPrefix\": \"pay_\", \"cycle\": true, \"steps\": ["
          + "{}, {\"status\": 504}, {}, {}, {\"fault\": \"reset\"}, {}, {},"
          + " {\"fault\": \"close\"}, {}, {}, {\"fault\": \"truncate\"}, {}, {},"
          + " {\"status\": 503, \"create\": false}, {}, {},"
          + " {\"fault\": \"stall\", \"stallFor\": \"400ms\"}, {}, {}, {}]}]}";

  /**
   * The journal and the files live in memory where the system has it ({@code /dev/shm}): what a
   * {@code kill -9} tests is the page cache, which survives the process; forcing every record to a
   * disk (about 4 ms each on a busy shared disk) is what {@code BatchJournalTest} covers, and here
   * it would only make the test slow.
   */
  static final class InMemoryWhereAvailable implements TempDirFactory {
    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext context)
        throws IOException {
      Path shm = Path.of("/dev/shm");
      return Files.isDirectory(shm) && Files.isWritable(shm)
          ? Files.createTempDirectory(shm, "relent-chaos")
          : Files.createTempDirectory("relent-chaos");
    }
  }

  @TempDir(factory = InMemoryWhereAvailable.class)
  Path dir;

  private final ObjectMapper json = new ObjectMapper();

  private Path input(MockServer server) throws IOException {
    List<String> lines = new ArrayList<>(PAYMENTS);
    String url = server.uri("/payments").toString();
    for (int i = 1; i <= PAYMENTS; i++) {
      lines.add(ChildJvm.payment(url, i, i));
    }
    Path file = dir.resolve("in.jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  private Process child(Path in, int run) throws IOException {
    List<String> command =
        ChildJvm.relent(
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
            List.of(
                "batch",
                in.toString(),
                "--rate=1000000/s",
                "--concurrency=32",
                "--max-retries=3",
                "--base=1ms",
                "--cap=5ms",
                "--timeout=250ms",
                "--deadline=10s",
                "--journal",
                dir.resolve("run.journal").toString(),
                "--out",
                dir.resolve("out.jsonl").toString(),
                "--progress=off"));
    return new ProcessBuilder(command)
        .redirectOutput(dir.resolve("child-" + run + ".out").toFile())
        .redirectError(dir.resolve("child-" + run + ".err").toFile())
        .start();
  }

  private String err(int run) throws IOException {
    return Files.readString(dir.resolve("child-" + run + ".err"));
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void everyKeyedPaymentExistsExactlyOnceAfterTwentyKillsAndResumes() throws Exception {
    Random random = new Random(SEED);
    try (MockServer server = MockServer.builder(Scenario.parse(SCENARIO)).withThreads(2).start()) {
      Path in = input(server);
      long began = System.nanoTime();
      int run = 0;
      // The moments: seeded points spread over the whole work (a number of payments created),
      // each with a seeded delay of a few milliseconds, so that every kill lands in the middle of
      // it: requests on the wire, keys and outcomes being journaled, results being written.
      long[] targets = new long[KILLS];
      for (int k = 0; k < KILLS; k++) {
        targets[k] = 1 + random.nextInt(PAYMENTS - 500);
      }
      Arrays.sort(targets);
      List<Long> createdAtKill = new ArrayList<>();
      for (int kill = 0; kill < KILLS; kill++) {
        run++;
        Process p = child(in, run);
        while (server.stats().resourcesCreated("payments") < targets[kill]) {
          assertThat(p.isAlive()).as("run %d ended early: %s", run, err(run)).isTrue();
          Thread.sleep(2);
        }
        Thread.sleep(random.nextInt(30));
        assertThat(p.isAlive()).as("run %d finished before its kill: %s", run, err(run)).isTrue();
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(137);
        createdAtKill.add(server.stats().resourcesCreated("payments"));
      }
      // Resumed until it is done: unresolved writes are sent again with their keys each time.
      Map<Integer, Integer> exitCodes = new TreeMap<>();
      int code = -1;
      for (int i = 0; i < 10 && code != ExitCodes.OK; i++) {
        run++;
        Process p = child(in, run);
        assertThat(p.waitFor(4, TimeUnit.MINUTES)).isTrue();
        code = p.exitValue();
        exitCodes.put(run, code);
        assertThat(code)
            .as("run %d: %s", run, err(run))
            .isIn(ExitCodes.OK, ExitCodes.UNRESOLVED, ExitCodes.RETRIES_EXHAUSTED);
      }
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began);
      assertThat(code).as("exit codes of the last runs: %s", exitCodes).isEqualTo(ExitCodes.OK);

      // The server: exactly one payment per key, and nothing else created.
      Map<String, Long> perKey = server.stats().resourcesCreatedPerKey("payments");
      assertThat(server.stats().resourcesCreated("payments")).isEqualTo(PAYMENTS);
      assertThat(perKey).hasSize(PAYMENTS);
      assertThat(perKey.values()).containsOnly(1L);
      assertThat(perKey).doesNotContainKey("");

      // The journal: one key per line, the very keys the server created payments under.
      Map<String, String> journaledKeys = new HashMap<>();
      Map<String, Integer> openOutcomes = new TreeMap<>();
      try (BufferedReader r =
          Files.newBufferedReader(dir.resolve("run.journal"), StandardCharsets.UTF_8)) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          JsonNode rec = json.readTree(line);
          String type = rec.get("rec").asText();
          if (type.equals("key")) {
            assertThat(journaledKeys.put(rec.get("id").asText(), rec.get("key").asText()))
                .as("one key record per id")
                .isNull();
          } else if (type.equals("open")) {
            openOutcomes.merge(rec.at("/result/outcome").asText(), 1, Integer::sum);
          } else if (type.equals("done")) {
            assertThat(rec.at("/result/outcome").asText()).isEqualTo("success");
          }
        }
      }
      assertThat(journaledKeys).hasSize(PAYMENTS);
      assertThat(perKey.keySet()).containsExactlyInAnyOrderElementsOf(journaledKeys.values());

      // The results: every line once, a success, with its journaled key.
      List<String> results = Files.readAllLines(dir.resolve("out.jsonl"), StandardCharsets.UTF_8);
      assertThat(results).hasSize(PAYMENTS);
      Map<String, String> resultKeys = new HashMap<>();
      for (String line : results) {
        JsonNode node = json.readTree(line);
        assertThat(node.get("outcome").asText()).as(line).isEqualTo("success");
        resultKeys.put(node.get("id").asText(), node.get("idempotency_key").asText());
      }
      assertThat(resultKeys).isEqualTo(journaledKeys);

      // The chaos happened: every kind of fault was served, and writes ended unresolved.
      Map<String, Long> outcomes = new TreeMap<>();
      for (JournalEntry e : server.journal()) {
        outcomes.merge(e.outcome(), 1L, Long::sum);
      }
      long requests = server.stats().requests();
      List<String> summaries = new ArrayList<>();
      for (int i = 1; i <= run; i++) {
        List<String> out = Files.readAllLines(dir.resolve("child-" + i + ".out"));
        summaries.add(i + ": " + (out.isEmpty() ? "killed" : out.get(0)));
      }
      System.out.println("chaos runs: " + String.join(" | ", summaries));
      System.out.printf(
          "chaos: %d payments, %d requests, %d runs (%d killed), %d s; created at each kill %s;"
              + " not-final outcomes journaled %s; server outcomes %s; last exit codes %s%n",
          PAYMENTS,
          requests,
          run,
          KILLS,
          seconds,
          createdAtKill,
          openOutcomes,
          outcomes,
          exitCodes);
      assertThat(createdAtKill).isSorted();
      assertThat(openOutcomes).containsKey("unresolved");
      assertThat(requests).isGreaterThan((long) PAYMENTS * 13 / 10);
    }
  }
}
