package dev.relent.cli.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.cli.common.JsonTree;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal file: what it keeps, what a torn write leaves, what its checksums catch. */
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
    assertThat(recordsOf(file))
        .containsExactly(
            "{\"rec\":\"journal\",\"version\":2,\"created_at\":\""
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

  private static Map<String, Object> stop(String scope, String until, Long run) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scope", scope);
    m.put("until", until);
    m.put("cause", "HTTP 429 with Retry-After: 86400");
    if (run != null) {
      m.put("run", run);
    }
    m.put("not_sent", 19L);
    return m;
  }

  @Test
  void theScopesARunFoundOutOfQuotaAreReadBackTheLatestWordOnEachWinning() throws Exception {
    Path file = dir.resolve("j");
    Path input = dir.resolve("in.jsonl");
    String items = "endpoint GET h/items/{id}";
    String users = "endpoint GET h/users/{id}";
    try (BatchJournal j = BatchJournal.open(file, input, AT)) {
      j.runStarted(AT, 40, 0);
      // an end without stops has no member for them: the record is what it always was
      j.runEnded(AT, 0, null);
      j.runStarted(AT, 40, 0);
      j.runEnded(
          AT,
          5,
          "quota",
          List.of(stop(items, "2026-01-02T00:00:00Z", null), stop(users, null, null)));
      j.runStarted(AT, 40, 20);
      j.runEnded(AT, 5, "quota", List.of(stop(items, "2026-01-03T00:00:00Z", 2L)));
    }
    assertThat(recordsOf(file).get(2))
        .isEqualTo(
            "{\"rec\":\"end\",\"run\":1,\"at\":\"" + AT + "\",\"exit_code\":0,\"stopped\":null}");
    assertThat(recordsOf(file).get(4))
        .contains(
            ",\"stopped\":\"quota\",\"quota_stops\":[{\"scope\":\"endpoint GET h/items/{id}\","
                + "\"until\":\"2026-01-02T00:00:00Z\",\"cause\":\"HTTP 429 with Retry-After: 86400\","
                + "\"not_sent\":19},");
    try (BatchJournal j = BatchJournal.open(file, input, AT)) {
      assertThat(j.stoppedScopes())
          .containsExactly(
              new BatchJournal.StoppedScope(
                  items, "2026-01-03T00:00:00Z", "HTTP 429 with Retry-After: 86400", 2),
              // without a run of its own, the run of its end record (one open: all are run 1)
              new BatchJournal.StoppedScope(users, null, "HTTP 429 with Retry-After: 86400", 1));
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
        "{\"rec\":\"journal\",\"version\":3}\n",
        ":1: journal version 3; this relent reads versions 1 and 2"
      },
      {"{\"rec\":\"journal\",\"version\":2}\n", ":1: damaged first record (no checksum: "},
      {"\n{\"rec\":\"journal\",\"version\":1}\n", ":1: not a relent batch journal (the first"},
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

  /**
   * The records of a checked journal, each line's checksum checked here on its own terms: the last
   * member is "crc32c", eight lowercase hex digits of the CRC-32C of the previous line's digits
   * ("00000000" first) and of the line up to the comma before "crc32c".
   */
  static List<String> recordsOf(Path file) throws Exception {
    List<String> records = new ArrayList<>();
    String previous = "00000000";
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      assertThat(line).matches(".*,\"crc32c\":\"[0-9a-f]{8}\"}");
      int at = line.lastIndexOf(",\"crc32c\":\"");
      String body = line.substring(0, at);
      CRC32C crc = new CRC32C();
      crc.update((previous + body).getBytes(StandardCharsets.UTF_8));
      String digits = line.substring(at + 11, at + 19);
      assertThat(digits).as(line).isEqualTo(String.format("%08x", crc.getValue()));
      previous = digits;
      records.add(body + "}");
    }
    return records;
  }

  private static final String V1 =
      "{\"rec\":\"journal\",\"version\":1,\"created_at\":\"2025-06-01T00:00:00Z\",\"input\":\"/in\"}\n"
          + "{\"rec\":\"run\",\"run\":1,\"at\":\"2025-06-01T00:00:00Z\",\"requests\":3,"
          + "\"finished_before\":0}\n"
          + "{\"rec\":\"key\",\"id\":\"p-1\",\"key\":\"key-1\",\"fingerprint\":\"fp-1\"}\n"
          + "{\"rec\":\"key\",\"id\":\"p-2\",\"key\":\"key-2\",\"fingerprint\":\"fp-2\"}\n"
          + "{\"rec\":\"done\",\"id\":\"p-1\",\"result\":{\"id\":\"p-1\",\"outcome\":\"success\"}}\n";

  @Test
  void aJournalWrittenBeforeChecksumsOpensAndResumesInItsOwnFormat() throws Exception {
    Path file = dir.resolve("j");
    Files.writeString(file, V1);
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      assertThat(j.created()).isFalse();
      assertThat(j.runs()).isEqualTo(1);
      assertThat(j.finished("p-1")).isTrue();
      assertThat(j.keyOf("p-2")).isEqualTo(new BatchJournal.Key("key-2", "fp-2"));
      j.key("p-3", "key-3", "fp-3");
      j.append(done("p-2"));
      StringWriter results = new StringWriter();
      j.check("p-1", "fp-1");
      assertThat(j.copyFinished(results)).isEqualTo(1);
    }
    // Appended without checksums: the file stays a version-1 journal that any relent reads.
    assertThat(Files.readString(file))
        .isEqualTo(
            V1
                + "{\"rec\":\"key\",\"id\":\"p-3\",\"key\":\"key-3\",\"fingerprint\":\"fp-3\"}\n"
                + JsonTree.write(done("p-2"))
                + "\n");
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      assertThat(j.finished("p-2")).isTrue();
      assertThat(j.keyOf("p-3")).isEqualTo(new BatchJournal.Key("key-3", "fp-3"));
    }
  }

  /** A journal of a run: header, run, keys of p-1 and p-2, p-1 done (five lines). */
  private Path journalOfARun() throws Exception {
    Path file = dir.resolve("j");
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      j.runStarted(AT, 2, 0);
      j.key("p-1", "key-1", "fp-1");
      j.key("p-2", "key-2", "fp-2");
      j.append(done("p-1"));
    }
    return file;
  }

  private static void replaceLine(Path file, int number, String with) throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
    if (with == null) {
      lines.remove(number - 1);
    } else {
      lines.set(number - 1, with);
    }
    Files.writeString(file, String.join("\n", lines) + "\n");
  }

  @Test
  void aRecordChangedInsideIsRefusedWithItsLineAndWhatToDo() throws Exception {
    Path file = journalOfARun();
    // Still valid JSON, still a key record: only its checksum tells.
    replaceLine(file, 3, Files.readAllLines(file).get(2).replace("key-1", "key-7"));
    String damaged = Files.readString(file);
    assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
        .isInstanceOf(BatchJournal.Unusable.class)
        .hasMessage(
            file
                + ":3: damaged record (checksum does not match: the line was changed after it was"
                + " written, or one before it was removed or moved). Lines before line 3 are"
                + " intact. To resume from them, keep a copy of this file and cut it before the"
                + " damage (head -n 2 "
                + file
                + " > "
                + file
                + ".cut; run again with --journal "
                + file
                + ".cut): requests recorded from line 3 on are sent again, a keyed write whose key"
                + " record is cut with a new key, so check those with the server first.");
    // Refused, and left as it was for whoever looks into it.
    assertThat(Files.readString(file)).isEqualTo(damaged);
  }

  @Test
  void aRemovedOrRepeatedRecordIsToldByTheNextLine() throws Exception {
    Path file = journalOfARun();
    String whole = Files.readString(file);
    replaceLine(file, 3, null);
    assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
        .isInstanceOf(BatchJournal.Unusable.class)
        .hasMessageStartingWith(file + ":3: damaged record (checksum does not match");
    Files.writeString(file, whole);
    List<String> lines = Files.readAllLines(file);
    replaceLine(file, 4, lines.get(2) + "\n" + lines.get(3));
    assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
        .isInstanceOf(BatchJournal.Unusable.class)
        .hasMessageStartingWith(file + ":4: damaged record (checksum does not match");
  }

  @Test
  void aRecordWithoutItsChecksumInTheMiddleIsRefused() throws Exception {
    Path file = journalOfARun();
    replaceLine(file, 2, "{\"rec\":\"run\",\"run\":1}");
    assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
        .isInstanceOf(BatchJournal.Unusable.class)
        .hasMessageStartingWith(file + ":2: damaged record (no checksum: ");
  }

  @Test
  void aDamagedLastRecordIsCutOffLikeATornOneAndNeverCountsAsWritten() throws Exception {
    Path file = journalOfARun();
    List<String> lines = Files.readAllLines(file);
    String intact = String.join("\n", lines.subList(0, 4)) + "\n";
    // What a crash can leave of the last write: its bytes on the disk, but not the right ones.
    replaceLine(file, 5, lines.get(4).replace("success", "suc\u0000ess"));
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      assertThat(j.finished("p-1")).isFalse();
      assertThat(j.keyOf("p-1")).isEqualTo(new BatchJournal.Key("key-1", "fp-1"));
      assertThat(Files.readString(file)).isEqualTo(intact);
      j.append(done("p-1"));
    }
    // The chain goes on from the last intact line.
    assertThat(recordsOf(file)).hasSize(5).last().isEqualTo(JsonTree.write(done("p-1")));
    try (BatchJournal j = BatchJournal.open(file, dir.resolve("in"), AT)) {
      assertThat(j.finished("p-1")).isTrue();
    }
  }

  @Test
  void aChangedFirstLineIsRefusedAndTheChecksumsCannotBeTurnedOff() throws Exception {
    Path file = journalOfARun();
    String whole = Files.readString(file);
    List<String> lines = Files.readAllLines(file);
    replaceLine(file, 1, lines.get(0).replace("2026-01-01", "2026-01-02"));
    assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
        .isInstanceOf(BatchJournal.Unusable.class)
        .hasMessage(
            file
                + ":1: damaged first record (checksum does not match: the line was changed after"
                + " it was written). Nothing in it can be checked: keep it for inspection, check"
                + " the keyed writes it records with the server, and start again with a new"
                + " journal.");
    // The first line made a version-1 one: the next line, which carries a checksum, tells.
    Files.writeString(file, whole);
    replaceLine(file, 1, "{\"rec\":\"journal\",\"version\":1}");
    assertThatThrownBy(() -> BatchJournal.open(file, dir.resolve("in"), AT))
        .isInstanceOf(BatchJournal.Unusable.class)
        .hasMessageStartingWith(
            file
                + ":2: a record with a checksum in a journal of version 1, which has none: the"
                + " first line was changed.");
  }

  @Test
  void theFirstLineIsTheOneDocsCliShows() throws Exception {
    Path file = dir.resolve("j");
    try (BatchJournal j =
        BatchJournal.open(file, Path.of("/data/payments.jsonl"), "2026-12-01T00:00Z")) {
      assertThat(j.created()).isTrue();
    }
    assertThat(Files.readAllLines(file))
        .containsExactly(
            "{\"rec\":\"journal\",\"version\":2,\"created_at\":\"2026-12-01T00:00Z\","
                + "\"input\":\"/data/payments.jsonl\",\"crc32c\":\"c21397fa\"}");
  }
}
