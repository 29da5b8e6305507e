package dev.relent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal file: what it keeps, what a torn write leaves, what it refuses. */
class BatchJournalTest {
  static final String AT = "2026-01-01T00:00:00Z";

  @TempDir Path dir;

  private static Map<String, Object> done(String id) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("id", id);
    result.put("outcome", "success");
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("rec", "done");
    rec.put("id", id);
    rec.put("result", result);
    return rec;
  }

  @Test
  void keysAndFinishedRequestsSurviveAReopen() throws Exception {
    Path file = dir.resolve("j");
    Path input = dir.resolve("in.jsonl");
    try (BatchJournal j = BatchJournal.open(file, input, AT)) {
      assertThat(j.created()).isTrue();
      j.key("p-1", "key-1", "fp-1");
      j.key("p-1", "key-2", "fp-2");
      assertThat(j.keyOf("p-1")).isEqualTo(new BatchJournal.Key("key-1", "fp-1"));
      j.key("p-2", "key-3", "fp-3");
      j.append(done("p-1"));
      // a finished request's key is not kept: memory is bounded by the requests in flight
      assertThat(j.keyOf("p-1")).isNull();
    }
    assertThat(Files.readAllLines(file, StandardCharsets.UTF_8))
        .containsExactly(
            "{\"rec\":\"journal\",\"version\":1,\"created_at\":\""
                + AT
                + "\",\"input\":"
                + JsonTree.write(input.toAbsolutePath().toString())
                + "}",
            "{\"rec\":\"key\",\"id\":\"p-1\",\"key\":\"key-1\",\"fingerprint\":\"fp-1\"}",
            "{\"rec\":\"key\",\"id\":\"p-1\",\"key\":\"key-2\",\"fingerprint\":\"fp-2\"}",
            "{\"rec\":\"key\",\"id\":\"p-2\",\"key\":\"key-3\",\"fingerprint\":\"fp-3\"}",
            "{\"rec\":\"done\",\"id\":\"p-1\",\"result\":{\"id\":\"p-1\",\"outcome\":\"success\"}}");
    try (BatchJournal j = BatchJournal.open(file, input, AT)) {
      assertThat(j.created()).isFalse();
      assertThat(j.finished("p-1")).isTrue();
      assertThat(j.finished("p-2")).isFalse();
      assertThat(j.keyOf("p-2")).isEqualTo(new BatchJournal.Key("key-3", "fp-3"));
      // the first key of an id is its key for good: its fingerprint is the one checked
      assertThat(j.check("p-1", "fp-1")).isEqualTo(new BatchJournal.Finished(true, 0, false));
      assertThat(j.check("p-1", "fp-2").changed()).isTrue();
      assertThat(j.check("p-2", "fp-3")).isEqualTo(new BatchJournal.Finished(false, -1, false));
      assertThat(j.check("p-2", "other").changed()).isTrue();
      StringWriter results = new StringWriter();
      assertThat(j.copyFinished(results)).isEqualTo(1);
      assertThat(results.toString()).isEqualTo("{\"id\":\"p-1\",\"outcome\":\"success\"}\n");
    }
  }

  @Test
  void aRecordTornByAKillIsCutOffAndCountsAsNotWritten() throws Exception {
    Path file = dir.resolve("j");
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      j.key("p-1", "key-1", "fp-1");
    }
    String whole = Files.readString(file);
    Files.writeString(file, whole + "{\"rec\":\"done\",\"id\":\"p-1\",\"resu");
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      assertThat(j.finished("p-1")).isFalse();
      assertThat(j.keyOf("p-1").key()).isEqualTo("key-1");
      j.append(done("p-1"));
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(3);
    assertThat(lines.get(2)).startsWith("{\"rec\":\"done\"");
  }

  @Test
  void whatIsNotAJournalOfThisVersionIsRefusedWithTheLine() throws Exception {
    Object[][] cases = {
      {
        "{\"rec\":\"key\",\"id\":\"a\",\"key\":\"k\",\"fingerprint\":\"f\"}\n",
        ":1: not a relent batch journal (the first record is not \"journal\")"
      },
      {
        "{\"rec\":\"journal\",\"version\":2}\n",
        ":1: journal version 2; this relent reads version 1"
      },
      {"{\"rec\":\"journal\",\"version\":1}\nnot json\n", ":2: not a journal record: invalid JSON"},
      {
        "{\"rec\":\"journal\",\"version\":1}\n{\"rec\":\"later\"}\n",
        ":2: unknown record \"later\" for version 1"
      },
      {
        "{\"rec\":\"journal\",\"version\":1}\n{\"rec\":\"key\",\"id\":\"a\"}\n",
        ":2: a key record needs id, key, fingerprint"
      },
    };
    int i = 0;
    for (Object[] c : cases) {
      Path file = dir.resolve("bad" + i++);
      Files.writeString(file, (String) c[0]);
      assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
          .isInstanceOf(BatchJournal.Unusable.class)
          .hasMessageStartingWith(file + (String) c[1]);
    }
  }

  @Test
  @SuppressWarnings("try")
  void oneRunAtATime() throws Exception {
    Path file = dir.resolve("j");
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
          .isInstanceOf(BatchJournal.Unusable.class)
          .hasMessage(file + ": in use by another relent batch; one journal per run");
    }
  }
}
