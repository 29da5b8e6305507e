package dev.relent.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Coverage-guided fuzzing of the journal reader through {@link BatchJournal#open(Path, Path,
 * String)}, {@link BatchJournal#keyOf(String)} and {@link BatchJournal#finished(String)}, on a
 * journal of two runs written by {@link BatchJournal} itself and then damaged as the fuzzer says. A
 * plain test run replays the committed inputs under {@code
 * src/test/resources/dev/relent/cli/BatchJournalFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes
 * (docs/fuzzing.md).
 *
 * <ul>
 *   <li><b>Torn</b> (what a kill leaves): the journal cut at any byte, perhaps followed by a
 *       partial line. It opens; an unfinished id keeps exactly the key journaled for it if its key
 *       record was whole, and has none otherwise (so it was never sent: the key is on disk before
 *       the first send); an id is finished exactly when its {@code done} record was whole, and then
 *       needs no key (it is never sent again). Never another key for a line, never a journaled key
 *       lost.
 *   <li><b>Corrupted</b>: any bytes written over any stretch. It opens, or refuses with a message
 *       naming the file and the line; never another exception. When it opens, every record before
 *       the damage still counts: the same keys, the same finished ids.
 * </ul>
 *
 * <p>The journal has no checksum, so damage inside a record that leaves it valid JSON (a changed
 * character of a key) cannot be told from a real record; that is outside what is checked here.
 */
class BatchJournalFuzzTest {
  private static final List<String> IDS = List.of("pay-0", "pay-1", "pay-2", "pay-3", "pay-4");
  private static final Path DIR;
  private static final byte[] ORIGINAL;

  /** For each line of the original: where it ends (after its newline) and what it records. */
  private static final List<Line> LINES = new ArrayList<>();

  private record Line(int end, String type, String id, String key) {}

  static {
    try {
      DIR = Files.createTempDirectory("relent-journal-fuzz");
      Path file = DIR.resolve("original.jsonl");
      try (BatchJournal j = BatchJournal.open(file, DIR.resolve("in.jsonl"), "2026-12-01T00:00Z")) {
        j.runStarted("2026-12-01T00:00Z", 5, 0);
        j.key("pay-0", "key-0", "fp-0");
        j.outcome("pay-0", true, Map.of("status", 201L));
        j.key("pay-1", "key-1", "fp-1");
        j.outcome("pay-1", false, Map.of("error", "timeout"));
        j.key("pay-2", "key-2", "fp-2");
        j.runEnded("2026-12-01T00:01Z", 5, "quota");
      }
      try (BatchJournal j = BatchJournal.open(file, DIR.resolve("in.jsonl"), "2026-12-01T01:00Z")) {
        j.runStarted("2026-12-01T01:00Z", 5, 1);
        j.outcome("pay-1", true, Map.of("status", 200L));
        j.key("pay-3", "key-3", "fp-3");
        j.outcome("pay-2", true, Map.of("status", 201L));
        j.outcome("pay-3", false, Map.of("status", 503L));
        j.runEnded("2026-12-01T01:01Z", 4, null);
      }
      ORIGINAL = Files.readAllBytes(file);
      file.toFile().deleteOnExit();
      DIR.toFile().deleteOnExit();
      int start = 0;
      for (int i = 0; i < ORIGINAL.length; i++) {
        if (ORIGINAL[i] == '\n') {
          String text = new String(ORIGINAL, start, i - start, UTF_8);
          @SuppressWarnings("unchecked")
          Map<String, Object> rec = (Map<String, Object>) JsonTree.parse(text);
          LINES.add(
              new Line(
                  i + 1, (String) rec.get("rec"), (String) rec.get("id"), (String) rec.get("key")));
          start = i + 1;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (BatchJournal.Unusable | JsonTree.NotJson e) {
      throw new IllegalStateException(e);
    }
  }

  @FuzzTest
  void aDamagedJournalNeverLeadsToADuplicateSend(FuzzedDataProvider data) throws IOException {
    boolean torn = data.consumeBoolean();
    int from = data.consumeInt(0, ORIGINAL.length);
    byte[] bytes;
    int intactUpTo; // every original byte before this one is unchanged, and nothing before it
    if (torn) {
      byte[] partial = data.consumeRemainingAsBytes();
      for (int i = 0; i < partial.length; i++) {
        partial[i] = partial[i] == '\n' ? (byte) ' ' : partial[i];
      }
      bytes = concat(Arrays.copyOf(ORIGINAL, from), partial);
      intactUpTo = from;
    } else {
      int length = data.consumeInt(0, ORIGINAL.length - from);
      byte[] written = data.consumeRemainingAsBytes();
      bytes =
          concat(
              concat(Arrays.copyOf(ORIGINAL, from), written),
              Arrays.copyOfRange(ORIGINAL, from + length, ORIGINAL.length));
      intactUpTo = from;
    }
    Path file = DIR.resolve("damaged.jsonl");
    Files.write(file, bytes);
    BatchJournal journal;
    try {
      journal = BatchJournal.open(file, DIR.resolve("in.jsonl"), "2026-12-02T00:00Z");
    } catch (BatchJournal.Unusable e) {
      if (torn) {
        fail("a torn journal must open: " + e.getMessage());
      }
      assertThat(e.getMessage())
          .as("a clear refusal")
          .matches("(?s)\\Q" + file + "\\E:[1-9][0-9]*: .+");
      return;
    }
    try (journal) {
      Map<String, String> keys = new LinkedHashMap<>();
      Map<String, Boolean> done = new LinkedHashMap<>();
      for (Line line : LINES) {
        if (line.end() <= intactUpTo && line.id() != null) {
          if (line.type().equals("key")) {
            keys.putIfAbsent(line.id(), line.key());
          } else if (line.type().equals("done")) {
            done.put(line.id(), true);
          }
        }
      }
      for (String id : IDS) {
        BatchJournal.Key key = journal.keyOf(id);
        boolean finished = done.containsKey(id);
        if (finished) {
          // A finished request is never sent again: the index keeps no key for it.
          assertThat(key).as("key of finished %s", id).isNull();
        } else if (keys.containsKey(id)) {
          assertThat(key).as("key of %s", id).isNotNull();
          assertThat(key.key()).as("key of %s", id).isEqualTo(keys.get(id));
        } else if (torn) {
          assertThat(key).as("%s: its key record was cut, so it was never sent", id).isNull();
        }
        if (finished) {
          assertThat(journal.finished(id)).as("%s finished", id).isTrue();
        } else if (torn) {
          assertThat(journal.finished(id)).as("%s not finished", id).isFalse();
        }
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
