package dev.relent.cli.batch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.relent.cli.common.JsonTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Coverage-guided fuzzing of the journal reader ({@link JournalReader}, {@link JournalFormat})
 * through {@link BatchJournal#open(Path, Path, String)}, {@link BatchJournal#keyOf(String)} and
 * {@link BatchJournal#finished(String)}, on a journal of two runs written by {@link BatchJournal}
 * itself and then damaged as the fuzzer says. A plain test run replays the committed inputs under
 * {@code src/test/resources/dev/relent/cli/batch/BatchJournalFuzzTestInputs/}; {@code
 * JAZZER_FUZZ=1} fuzzes (docs/fuzzing.md).
 *
 * <ul>
 *   <li><b>Torn</b> (what a kill leaves): the journal cut at any byte, perhaps followed by a
 *       partial line. It opens with exactly the records whole before the cut: an unfinished id
 *       keeps exactly the key journaled for it if its key record was whole, and has none otherwise
 *       (so it was never sent: the key is on disk before the first send); an id is finished exactly
 *       when its {@code done} record was whole, and then needs no key (it is never sent again).
 *   <li><b>Corrupted</b>: any bytes written over any stretch, inside a record or across records. It
 *       opens, or refuses with a message naming the file and the line; never another exception.
 *       When it opens, what it holds is what the first k original records say, for some k at least
 *       the number of records wholly before the damage: every record before the damage counts, and
 *       no record is read with altered content, nor one removed, repeated or moved (each line's
 *       checksum is chained to the one before). The one exception is damage that replaces the first
 *       line and everything after it up to inside the last line: what is left is the fuzzer's own
 *       file, which may be a valid journal of the format without checksums.
 * </ul>
 *
 * <p>Either way, when it opens, a record appended after the damage is read back on the next open:
 * the chain goes on from the last record kept.
 */
class BatchJournalFuzzTest {
  private static final List<String> IDS =
      List.of("pay-0", "pay-1", "pay-2", "pay-3", "pay-4", "pay-9");
  private static final Path DIR;
  // A fixed input path, only recorded: the original's bytes, and so each committed input's
  // offsets, are the same on every machine.
  private static final Path INPUT = Path.of("/data/payments.jsonl");
  private static final byte[] ORIGINAL;

  /** For each line of the original: where it ends (after its newline) and what it records. */
  private static final List<Line> LINES = new ArrayList<>();

  private record Line(int end, String type, String id, String key) {}

  /** What a journal says of each id: its key if unfinished (null if none), and if finished. */
  private record State(Map<String, String> keys, Set<String> finished) {}

  static {
    try {
      DIR = Files.createTempDirectory("relent-journal-fuzz");
      Path file = DIR.resolve("original.jsonl");
      try (BatchJournal j = BatchJournal.open(file, INPUT, "2026-12-01T00:00Z")) {
        j.runStarted("2026-12-01T00:00Z", 5, 0);
        j.key("pay-0", "key-0", "fp-0");
        j.outcome("pay-0", true, Map.of("status", 201L));
        j.key("pay-1", "key-1", "fp-1");
        j.outcome("pay-1", false, Map.of("error", "timeout"));
        j.key("pay-2", "key-2", "fp-2");
        j.runEnded("2026-12-01T00:01Z", 5, "quota");
      }
      try (BatchJournal j = BatchJournal.open(file, INPUT, "2026-12-01T01:00Z")) {
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
    boolean own = false;
    if (torn) {
      byte[] partial = data.consumeRemainingAsBytes();
      for (int i = 0; i < partial.length; i++) {
        partial[i] = partial[i] == '\n' ? (byte) ' ' : partial[i];
      }
      bytes = concat(Arrays.copyOf(ORIGINAL, from), partial);
    } else {
      int length = data.consumeInt(0, ORIGINAL.length - from);
      byte[] written = data.consumeRemainingAsBytes();
      bytes =
          concat(
              concat(Arrays.copyOf(ORIGINAL, from), written),
              Arrays.copyOfRange(ORIGINAL, from + length, ORIGINAL.length));
      int lastStart = LINES.get(LINES.size() - 2).end();
      own = from < LINES.get(0).end() && from + length > lastStart;
    }
    // Every original byte before this one is unchanged, and nothing was inserted before it.
    int intact = 0;
    while (intact < LINES.size() && LINES.get(intact).end() <= from) {
      intact++;
    }
    Path file = DIR.resolve("damaged.jsonl");
    Files.write(file, bytes);
    try {
      BatchJournal journal;
      try {
        journal = BatchJournal.open(file, INPUT, "2026-12-02T00:00Z");
      } catch (BatchJournal.Unusable e) {
        if (torn) {
          fail("a torn journal must open: " + e.getMessage());
        }
        assertThat(e.getMessage())
            .as("a clear refusal")
            .matches("(?s)\\Q" + file + "\\E:[1-9][0-9]*: .+");
        return;
      }
      State seen;
      try (journal) {
        seen = stateOf(journal);
        journal.key("pay-9", "key-9", "fp-9");
      }
      if (own) {
        return; // the fuzzer's own journal: nothing of the original to hold it to
      }
      int k = intact;
      while (k <= LINES.size() && !prefix(k).equals(seen)) {
        k++;
      }
      if (torn) {
        assertThat(seen).as("exactly the records whole before the cut").isEqualTo(prefix(intact));
      } else if (k > LINES.size()) {
        fail(
            "read %s, which no prefix of at least %d original records says (first: %s)",
            seen, intact, prefix(intact));
      }
      State after;
      try (BatchJournal again = BatchJournal.open(file, INPUT, "2026-12-02T01:00Z")) {
        after = stateOf(again);
      } catch (BatchJournal.Unusable e) {
        throw new AssertionError("a journal that opened and was appended to must open", e);
      }
      Map<String, String> keys = new LinkedHashMap<>(seen.keys());
      keys.put("pay-9", "key-9");
      assertThat(after).as("after an append").isEqualTo(new State(keys, seen.finished()));
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static State stateOf(BatchJournal journal) {
    Map<String, String> keys = new LinkedHashMap<>();
    Set<String> finished = new TreeSet<>();
    for (String id : IDS) {
      BatchJournal.Key key = journal.keyOf(id);
      keys.put(id, key == null ? null : key.key());
      if (journal.finished(id)) {
        finished.add(id);
      }
    }
    return new State(keys, finished);
  }

  /**
   * What the first {@code k} original records say: the first key of each id not finished, and the
   * finished ids, which keep no key (a finished request is never sent again).
   */
  private static State prefix(int k) {
    Map<String, String> keys = new LinkedHashMap<>();
    Set<String> finished = new TreeSet<>();
    for (String id : IDS) {
      keys.put(id, null);
    }
    for (Line line : LINES.subList(0, k)) {
      if (line.id() == null) {
        continue;
      }
      if (line.type().equals("key") && !finished.contains(line.id())) {
        keys.putIfAbsent(line.id(), line.key()); // a null value counts as absent
      } else if (line.type().equals("done")) {
        finished.add(line.id());
        keys.put(line.id(), null);
      }
    }
    return new State(keys, finished);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
