package dev.relent.cli.batch;

import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Json;
import dev.relent.cli.common.Outcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads an open, locked batch journal and verifies it ({@link JournalFormat}), into a {@link
 * Snapshot} of what it says.
 *
 * <p>Reading it back: the first {@code key} of an id is its key for good; an id with a {@code done}
 * record is finished and skipped; an id whose {@code unkeyed} record has no {@code done} or {@code
 * open} after it is a write without a key that an earlier run may have sent when it was killed,
 * which is not sent again; every other id is sent again (writes with their journaled key). The
 * journal is read one record at a time and what is kept is compact: for each finished id a 128-bit
 * digest and one {@code long} ({@link IdTable}, {@link BatchJournal.Finished}), and the keys of ids
 * not finished (those that were in flight); the results of finished ids are read again, in a second
 * pass ({@link DoneRecords}), only to be copied to {@code --out}. A last line without its newline
 * is what a kill during a write leaves: it is cut off (truncated and forced) and the record counts
 * as not written (its state change had not been acknowledged). A last line whose checksum fails is
 * taken for the same: a write that a crash left half on the disk; it is cut off too. A failing line
 * with records after it is damage, and the journal is refused with the line number and what to do,
 * as is any other line that is not a record. A journal of version {@value
 * JournalFormat#LEGACY_VERSION}, written before lines had checksums, is read as before.
 *
 * <p>Static and without state: {@link #read} reads on the calling thread, which holds the file's
 * lock; a {@link DoneRecords} is used by one thread. A {@link Snapshot} is immutable but for the id
 * table it hands over.
 */
final class JournalReader {
  private JournalReader() {}

  /**
   * What a journal said when it was opened. Immutable but for {@code done}, which the journal that
   * read it takes over (it marks ids in it).
   *
   * @param keys the key of each id not finished, from its first key record
   * @param unkeyed the fingerprint of each write journaled as sent without a key, not finished
   * @param done each finished id, packed as {@link BatchJournal.Finished#pack}
   * @param end the offset just after the last whole record, where appends go
   * @param runs how many runs it records
   * @param created whether the journal is new (no file, or nothing in it): its first record is to
   *     be written
   * @param failedBefore requests finished without success, by outcome
   * @param stoppedScopes the scopes found out of quota, by name, each as the latest run said
   * @param checked whether its lines carry checksums (version {@value JournalFormat#VERSION})
   * @param lastChecksum the checksum of its last line, 0 if none, for the chain to go on from
   */
  record Snapshot(
      Map<String, BatchJournal.Key> keys,
      Map<String, String> unkeyed,
      IdTable done,
      long end,
      int runs,
      boolean created,
      Map<String, Integer> failedBefore,
      Map<String, BatchJournal.StoppedScope> stoppedScopes,
      boolean checked,
      int lastChecksum) {}

  /**
   * Reads a journal, cutting off a record a crash left torn or half-written.
   *
   * @param file the journal's path, for messages
   * @param ch its channel, open for reading and writing, locked by the caller
   * @param created whether the file did not exist before {@code ch} opened it
   * @throws IOException if it cannot be read, truncated or forced
   * @throws BatchJournal.Unusable {@code file:line: problem} if it is not a journal this relent
   *     reads, or is damaged
   */
  static Snapshot read(Path file, FileChannel ch, boolean created)
      throws IOException, BatchJournal.Unusable {
    Map<String, BatchJournal.Key> keys = new HashMap<>();
    Map<String, String> unkeyed = new HashMap<>();
    IdTable done = new IdTable();
    Map<String, Integer> failedBefore = new TreeMap<>();
    Map<String, BatchJournal.StoppedScope> stoppedScopes = new LinkedHashMap<>();
    int runs = 0;
    long end = endOfLastRecord(ch);
    if (end < ch.size()) {
      // A record torn by a kill: its state change was never acknowledged.
      ch.truncate(end);
      ch.force(true);
    }
    LineReader lines = new LineReader(ch, end);
    // For a checked journal: the last line's checksum, and the first line that failed its own.
    boolean checked = true;
    int chain = 0;
    JournalFormat.Damage damage = null;
    while (lines.next()) {
      int number = lines.number();
      if (lines.length() == 0) {
        if (number == 1) {
          throw new BatchJournal.Unusable(
              file + ":1: not a relent batch journal (the first line is empty)");
        }
        continue;
      }
      if (damage != null) {
        // Records after the failing line: it was not a write cut short, but damage.
        throw new BatchJournal.Unusable(damage.message(file));
      }
      Map<String, Object> rec;
      if (number == 1) {
        long sum = JournalFormat.checksum(lines.bytes(), lines.length(), 0);
        if (sum >= 0) {
          rec = JournalFormat.record(file, 1, lines.recordText());
          chain = (int) sum;
        } else {
          rec = JournalFormat.record(file, 1, lines.text());
          checked = false;
        }
        String type = String.valueOf(rec.get("rec"));
        if (!type.equals("journal")) {
          throw new BatchJournal.Unusable(
              file + ":1: not a relent batch journal (the first record is not \"journal\")");
        }
        Object v = rec.get("version");
        if (!checked
            && (rec.containsKey("crc32c")
                || v instanceof Long && (Long) v == JournalFormat.VERSION)) {
          throw new BatchJournal.Unusable(new JournalFormat.Damage(1, 0, sum).message(file));
        }
        if (!(v instanceof Long)
            || (Long) v != (checked ? JournalFormat.VERSION : JournalFormat.LEGACY_VERSION)) {
          throw new BatchJournal.Unusable(
              file
                  + ":1: journal version "
                  + v
                  + "; this relent reads versions "
                  + JournalFormat.LEGACY_VERSION
                  + " and "
                  + JournalFormat.VERSION);
        }
        continue;
      }
      if (checked) {
        long sum = JournalFormat.checksum(lines.bytes(), lines.length(), chain);
        if (sum < 0) {
          damage = new JournalFormat.Damage(number, lines.start(), sum);
          continue;
        }
        chain = (int) sum;
        rec = JournalFormat.record(file, number, lines.recordText());
      } else {
        rec = JournalFormat.record(file, number, lines.text());
        if (rec.containsKey("crc32c")) {
          // Only a checked journal's lines carry one: its first line was changed to version 1.
          throw new BatchJournal.Unusable(
              file
                  + ":"
                  + number
                  + ": a record with a checksum in a journal of version "
                  + JournalFormat.LEGACY_VERSION
                  + ", which has none: the first line was changed. "
                  + JournalFormat.UNTRUSTED);
        }
      }
      String type = String.valueOf(rec.get("rec"));
      Object id = rec.get("id");
      switch (type) {
        case "run":
          runs++;
          break;
        case "key":
          if (id instanceof String
              && rec.get("key") instanceof String
              && rec.get("fingerprint") instanceof String) {
            if (done.get((String) id, -1) < 0) {
              keys.putIfAbsent(
                  (String) id,
                  new BatchJournal.Key((String) rec.get("key"), (String) rec.get("fingerprint")));
            }
          } else {
            throw new BatchJournal.Unusable(
                file + ":" + number + ": a key record needs id, key, fingerprint");
          }
          break;
        case "unkeyed":
          if (!(id instanceof String) || !(rec.get("fingerprint") instanceof String)) {
            throw new BatchJournal.Unusable(
                file + ":" + number + ": an unkeyed record needs id, fingerprint");
          }
          if (done.get((String) id, -1) < 0) {
            unkeyed.put((String) id, (String) rec.get("fingerprint"));
          }
          break;
        case "done":
          if (!(id instanceof String) || !(rec.get("result") instanceof Map)) {
            throw new BatchJournal.Unusable(
                file + ":" + number + ": a done record needs id and result");
          }
          if (done.get((String) id, -1) < 0) {
            // Only what a resume needs: the key's fingerprint, the outcome's exit code.
            unkeyed.remove(id);
            BatchJournal.Key key = keys.remove(id);
            Object outcome = ((Map<?, ?>) rec.get("result")).get("outcome");
            done.put(
                (String) id,
                BatchJournal.Finished.pack(key, ExitCodes.of(String.valueOf(outcome))));
            if (!Outcome.SUCCESS.slug().equals(outcome)) {
              // one count per outcome, not per request: bounded by the outcomes there are
              failedBefore.merge(String.valueOf(outcome), 1, Integer::sum);
            }
          }
          break;
        case "end":
          readStoppedScopes(rec, stoppedScopes);
          break;
        case "open":
          // The run that sent a keyless write recorded how it ended: not a kill in flight.
          unkeyed.remove(id);
          break;
        default:
          throw new BatchJournal.Unusable(
              file
                  + ":"
                  + number
                  + ": unknown record "
                  + Json.quote(type)
                  + " for version "
                  + (checked ? JournalFormat.VERSION : JournalFormat.LEGACY_VERSION));
      }
    }
    if (damage != null) {
      // The last record failed its check and nothing follows: a write a crash left half on the
      // disk, never acknowledged, so never acted on. Cut off like a torn record.
      end = damage.start();
      ch.truncate(end);
      ch.force(true);
    }
    if (end == 0) {
      // a new file, or an empty one someone made: treat it as new
      created = true;
      checked = true;
      chain = 0;
    }
    return new Snapshot(
        Collections.unmodifiableMap(keys),
        Collections.unmodifiableMap(unkeyed),
        done,
        end,
        runs,
        created,
        Collections.unmodifiableMap(failedBefore),
        Collections.unmodifiableMap(stoppedScopes),
        checked,
        chain);
  }

  /**
   * The scopes an {@code end} record names out of quota, each replacing what an earlier run said of
   * it; an entry that is not one is passed over (a resume then asks the server again).
   */
  private static void readStoppedScopes(
      Map<String, Object> end, Map<String, BatchJournal.StoppedScope> into) {
    if (!(end.get("quota_stops") instanceof List)) {
      return;
    }
    int endRun = end.get("run") instanceof Long ? (int) (long) (Long) end.get("run") : 0;
    for (Object o : (List<?>) end.get("quota_stops")) {
      if (!(o instanceof Map)) {
        continue;
      }
      Map<?, ?> m = (Map<?, ?>) o;
      int run = m.get("run") instanceof Long ? (int) (long) (Long) m.get("run") : endRun;
      if (m.get("scope") instanceof String) {
        String scope = (String) m.get("scope");
        into.put(
            scope,
            new BatchJournal.StoppedScope(
                scope,
                m.get("until") instanceof String ? (String) m.get("until") : null,
                String.valueOf(m.get("cause")),
                run));
      }
    }
  }

  /**
   * The {@code done} records of a journal already read, in file order, one at a time: the second
   * pass, which copies the results of requests finished before to {@code --out}.
   */
  static final class DoneRecords {
    private final Path file;
    private final boolean checked;
    private final LineReader lines;

    /**
     * @param ch the journal's channel, still locked since it was read
     * @param end where the records read end ({@link Snapshot#end})
     * @param checked whether its lines carry checksums
     */
    DoneRecords(Path file, FileChannel ch, long end, boolean checked) {
      this.file = file;
      this.checked = checked;
      this.lines = new LineReader(ch, end);
    }

    /**
     * The next {@code done} record, or null after the last.
     *
     * @throws IOException if the journal cannot be read
     */
    Map<String, Object> next() throws IOException {
      while (lines.next()) {
        if (lines.startsWith(JournalFormat.DONE_START)) {
          try {
            // Checked when the journal was opened; nothing has changed it since (it is locked).
            return JournalFormat.record(
                file, lines.number(), checked ? lines.recordText() : lines.text());
          } catch (BatchJournal.Unusable e) {
            throw new IOException(e.getMessage(), e);
          }
        }
      }
      return null;
    }
  }

  /** Where the last whole record ends: after the last newline, found from the end backwards. */
  private static long endOfLastRecord(FileChannel ch) throws IOException {
    long size = ch.size();
    ByteBuffer b = ByteBuffer.allocate(64 * 1024);
    long at = size;
    while (at > 0) {
      int n = (int) Math.min(b.capacity(), at);
      b.clear().limit(n);
      long from = at - n;
      while (b.hasRemaining() && ch.read(b, from + b.position()) >= 0) {
        // read the whole block
      }
      for (int i = n - 1; i >= 0; i--) {
        if (b.get(i) == '\n') {
          return from + i + 1;
        }
      }
      at = from;
    }
    return 0;
  }

  /**
   * The lines of a journal up to an offset, read through its own channel (another descriptor of a
   * locked file would drop the lock when closed) in 64 KiB blocks: one line in memory at a time, as
   * the bytes on the disk (a checksum is over those, not over their decoding).
   */
  private static final class LineReader {
    private final FileChannel ch;
    private final long end;
    private final ByteBuffer block = ByteBuffer.allocate(64 * 1024);
    private long at; // the file offset just after the block's bytes
    private long start;
    private int number;
    private byte[] line = new byte[256];
    private int length;

    LineReader(FileChannel ch, long end) {
      this.ch = ch;
      this.end = end;
      block.limit(0);
    }

    /** The number of the current line, from 1. */
    int number() {
      return number;
    }

    /** The file offset of the current line's first byte. */
    long start() {
      return start;
    }

    /** The current line's bytes, without its newline: {@code bytes()[0, length())}. */
    byte[] bytes() {
      return line;
    }

    int length() {
      return length;
    }

    /** The current line as text. */
    String text() {
      return new String(line, 0, length, StandardCharsets.UTF_8);
    }

    /** The current line of a checked journal as the record it checks: without its checksum. */
    String recordText() {
      return JournalFormat.recordText(line, length);
    }

    boolean startsWith(byte[] prefix) {
      return length >= prefix.length
          && Arrays.equals(line, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** Moves to the next line; false at the end. */
    boolean next() throws IOException {
      if (line.length > 64 * 1024) {
        line = new byte[256];
      }
      length = 0;
      start = at - block.limit() + block.position();
      while (true) {
        if (!block.hasRemaining()) {
          if (at >= end) {
            return false; // only whole lines are read: end is just after a newline
          }
          block.clear().limit((int) Math.min(block.capacity(), end - at));
          while (block.hasRemaining()) {
            int n = ch.read(block, at + block.position());
            if (n < 0) {
              throw new IOException("the journal ended before its last record");
            }
          }
          at += block.position();
          block.flip();
        }
        while (block.hasRemaining()) {
          byte c = block.get();
          if (c == '\n') {
            number++;
            return true;
          }
          if (length == line.length) {
            line = Arrays.copyOf(line, line.length * 2);
          }
          line[length++] = c;
        }
      }
    }
  }
}
