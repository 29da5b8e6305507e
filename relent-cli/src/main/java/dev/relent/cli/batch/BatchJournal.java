package dev.relent.cli.batch;

import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Json;
import dev.relent.cli.common.JsonTree;
import dev.relent.cli.common.LineReader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The journal of {@code relent batch --journal FILE}: what makes a batch crash-safe.
 *
 * <p>Format (version {@value JournalFormat#VERSION}, documented in docs/cli.md): JSON Lines,
 * append-only, one record per state change, each written whole and forced to the disk ({@link
 * FileChannel#force}) before the run goes on. Records that workers append at the same time are
 * forced together, with one {@code force} ({@link GroupCommit}):
 *
 * <pre>{@code
 * {"rec":"journal","version":2,"created_at":"…","input":"/abs/requests.jsonl","crc32c":"…"}
 * {"rec":"run","run":1,"at":"…","requests":27,"finished_before":0,"crc32c":"…"}
 * {"rec":"key","id":"pay-1","key":"5b0c…","fingerprint":"9f2e…","crc32c":"…"}   before the send
 * {"rec":"unkeyed","id":"pay-2","fingerprint":"4a1d…","crc32c":"…"}   before a keyless write's send
 * {"rec":"done","id":"pay-1","result":{…},"crc32c":"…"}                          a final outcome
 * {"rec":"open","id":"acct-9","result":{…},"crc32c":"…"}                 stopped before a final one
 * {"rec":"end","run":1,"at":"…","exit_code":5,"stopped":"quota","quota_stops":[…],"crc32c":"…"}
 * }</pre>
 *
 * <p>An {@code end} record names, in {@code quota_stops}, each scope whose quota the run found
 * exhausted (or held back, as an earlier run found it), with its reset: {@code {"scope":"endpoint
 * GET h/a/{id}","until":"…Z","cause":"HTTP 429 with Retry-After: 86400","run":1,"not_sent":19}}; a
 * resumed run holds that scope's requests back until the reset ({@link #stoppedScopes}). The member
 * is left out when there is none.
 *
 * <p>Checksums: the last member of every line's object is {@code "crc32c":"xxxxxxxx"}, chained to
 * the line before, so a line changed, removed, repeated or moved is told ({@link JournalFormat},
 * which also parses a line into its record). {@link GroupCommit} computes the chain under its queue
 * lock, in the order the lines reach the file ({@link JournalFormat.Chain}).
 *
 * <p>Reading it back: the first {@code key} of an id is its key for good; an id with a {@code done}
 * record is finished and skipped; an id whose {@code unkeyed} record has no {@code done} or {@code
 * open} after it is a write without a key that an earlier run may have sent when it was killed
 * ({@link #sentUnkeyed}), which is not sent again; every other id is sent again (writes with their
 * journaled key). The journal is read one record at a time and what is kept is compact: for each
 * finished id a 128-bit digest and one {@code long} ({@link IdTable}, {@link Finished}), and the
 * keys of ids not finished (those that were in flight); the results of finished ids are read again,
 * in a second pass, only to be copied to {@code --out} ({@link #copyFinished}). A last line without
 * its newline is what a kill during a write leaves: it is cut off and the record counts as not
 * written (its state change had not been acknowledged). A last line whose checksum fails is taken
 * for the same: a write that a crash left half on the disk; it is cut off too. A failing line with
 * records after it is damage, and the journal is refused with the line number and what to do, as is
 * any other line that is not a record. A journal of version {@value JournalFormat#LEGACY_VERSION},
 * written before lines had checksums, is read and appended to as before, without them.
 *
 * <p>An exclusive file lock keeps two runs from sharing one journal; the operating system drops it
 * when a process dies. Appends are thread-safe (the committer thread serialises them); {@link
 * #finished}, {@link #check} and {@link #copyFinished} read the index one thread at a time.
 */
final class BatchJournal implements Closeable {
  /** A journal that cannot be used: not a journal, another version, locked, changed input. */
  static final class Unusable extends Exception {
    private static final long serialVersionUID = 1L;

    Unusable(String message) {
      super(message);
    }
  }

  /** A key journaled for an id: the key and the fingerprint of the request it was made for. */
  record Key(String key, String fingerprint) {}

  /**
   * A scope an earlier run found out of quota.
   *
   * @param scope its name, e.g. {@code endpoint GET api.example.com/v1/items/{id}}
   * @param until when its quota resets, ISO-8601, or null if the server did not say
   * @param cause what said so
   * @param run the run that was told
   */
  record StoppedScope(String scope, String until, String cause, int run) {}

  private final Path file;
  private final FileChannel channel;
  private final GroupCommit commits;
  private final FileLock lock;
  private final Map<String, Key> keys;
  private final Map<String, String> unkeyed;
  private final IdTable done;
  private final long readEnd;
  private final int runs;
  private final boolean created;
  private final Map<String, Integer> failedBefore;
  private final Map<String, StoppedScope> stoppedScopes;
  private final boolean checked;

  private BatchJournal(
      Path file,
      FileChannel channel,
      FileLock lock,
      Map<String, Key> keys,
      Map<String, String> unkeyed,
      IdTable done,
      long readEnd,
      int runs,
      boolean created,
      Map<String, Integer> failedBefore,
      Map<String, StoppedScope> stoppedScopes,
      JournalFormat.Chain chain) {
    this.file = file;
    this.channel = channel;
    this.checked = chain != null;
    this.commits =
        new GroupCommit(
            channel, "relent-journal", chain != null ? chain : JournalFormat::legacyLine);
    this.lock = lock;
    this.keys = keys;
    this.unkeyed = unkeyed;
    this.done = done;
    this.readEnd = readEnd;
    this.runs = runs;
    this.created = created;
    this.failedBefore = failedBefore;
    this.stoppedScopes = stoppedScopes;
  }

  /**
   * Opens a journal, creating it (with its first record) if it does not exist, and reads what it
   * holds.
   *
   * @param file the journal file
   * @param input the input file, recorded in a new journal
   * @param createdAt an ISO-8601 time for the first record
   * @throws IOException if it cannot be read, written or forced
   * @throws Unusable if it is not a journal of this version, or another run holds it
   */
  static BatchJournal open(Path file, Path input, String createdAt) throws IOException, Unusable {
    boolean created = !Files.exists(file);
    FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      ch.close();
      throw new Unusable(file + ": in use by another relent batch; one journal per run");
    }
    try {
      Map<String, Key> keys = new HashMap<>();
      Map<String, String> unkeyed = new HashMap<>();
      IdTable done = new IdTable();
      Map<String, Integer> failedBefore = new TreeMap<>();
      Map<String, StoppedScope> stoppedScopes = new LinkedHashMap<>();
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
            throw new Unusable(file + ":1: not a relent batch journal (the first line is empty)");
          }
          continue;
        }
        if (damage != null) {
          // Records after the failing line: it was not a write cut short, but damage.
          throw new Unusable(damage.message(file));
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
            throw new Unusable(
                file + ":1: not a relent batch journal (the first record is not \"journal\")");
          }
          Object v = rec.get("version");
          if (!checked
              && (rec.containsKey("crc32c")
                  || v instanceof Long && (Long) v == JournalFormat.VERSION)) {
            throw new Unusable(new JournalFormat.Damage(1, 0, sum).message(file));
          }
          if (!(v instanceof Long)
              || (Long) v != (checked ? JournalFormat.VERSION : JournalFormat.LEGACY_VERSION)) {
            throw new Unusable(
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
            throw new Unusable(
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
                    (String) id, new Key((String) rec.get("key"), (String) rec.get("fingerprint")));
              }
            } else {
              throw new Unusable(file + ":" + number + ": a key record needs id, key, fingerprint");
            }
            break;
          case "unkeyed":
            if (!(id instanceof String) || !(rec.get("fingerprint") instanceof String)) {
              throw new Unusable(file + ":" + number + ": an unkeyed record needs id, fingerprint");
            }
            if (done.get((String) id, -1) < 0) {
              unkeyed.put((String) id, (String) rec.get("fingerprint"));
            }
            break;
          case "done":
            if (!(id instanceof String) || !(rec.get("result") instanceof Map)) {
              throw new Unusable(file + ":" + number + ": a done record needs id and result");
            }
            if (done.get((String) id, -1) < 0) {
              // Only what a resume needs: the key's fingerprint, the outcome's exit code.
              unkeyed.remove(id);
              Key key = keys.remove(id);
              Object outcome = ((Map<?, ?>) rec.get("result")).get("outcome");
              done.put((String) id, Finished.pack(key, ExitCodes.of(String.valueOf(outcome))));
              if (!"success".equals(outcome)) {
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
            throw new Unusable(
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
      BatchJournal journal =
          new BatchJournal(
              file,
              ch,
              lock,
              new ConcurrentHashMap<>(keys),
              new ConcurrentHashMap<>(unkeyed),
              done,
              end,
              runs,
              created,
              Collections.unmodifiableMap(failedBefore),
              Collections.unmodifiableMap(stoppedScopes),
              checked ? new JournalFormat.Chain(chain) : null);
      if (created) {
        Map<String, Object> first = new LinkedHashMap<>();
        first.put("rec", "journal");
        first.put("version", (long) JournalFormat.VERSION);
        first.put("created_at", createdAt);
        first.put("input", input.toAbsolutePath().toString());
        journal.append(first);
        syncDirectory(file);
      }
      return journal;
    } catch (IOException | Unusable | RuntimeException e) {
      try {
        lock.release();
      } finally {
        ch.close();
      }
      throw e;
    }
  }

  /**
   * The scopes an {@code end} record names out of quota, each replacing what an earlier run said of
   * it; an entry that is not one is passed over (a resume then asks the server again).
   */
  private static void readStoppedScopes(Map<String, Object> end, Map<String, StoppedScope> into) {
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
            new StoppedScope(
                scope,
                m.get("until") instanceof String ? (String) m.get("until") : null,
                String.valueOf(m.get("cause")),
                run));
      }
    }
  }

  /** Makes the new file's directory entry durable too (best effort; not every system allows it). */
  private static void syncDirectory(Path file) {
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null) {
      return;
    }
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException | RuntimeException e) {
      // Directories cannot be opened on some platforms; the data itself is forced regardless.
    }
  }

  /**
   * Appends one record and forces it to the disk before returning. Concurrent appends are written
   * together and forced with one {@code force} (group commit); each caller still returns only once
   * its own record is durable.
   *
   * @throws IOException if it cannot be written or forced
   */
  void append(Map<String, Object> record) throws IOException {
    commits.commit(JsonTree.write(record).getBytes(StandardCharsets.UTF_8));
    if ("done".equals(record.get("rec"))) {
      // A finished request needs its key no more: memory stays bounded by the requests in flight.
      keys.remove(String.valueOf(record.get("id")));
    }
  }

  /**
   * Journals the key of a request before its first send.
   *
   * @throws IOException if it cannot be written or forced
   */
  void key(String id, String key, String fingerprint) throws IOException {
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("rec", "key");
    rec.put("id", id);
    rec.put("key", key);
    rec.put("fingerprint", fingerprint);
    append(rec);
    keys.putIfAbsent(id, new Key(key, fingerprint));
  }

  /**
   * Journals, before its first send, that a write goes without an idempotency key: a run killed
   * while it was on the wire leaves this record alone, and the next run does not send it again.
   *
   * @throws IOException if it cannot be written or forced
   */
  void unkeyed(String id, String fingerprint) throws IOException {
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("rec", "unkeyed");
    rec.put("id", id);
    rec.put("fingerprint", fingerprint);
    append(rec);
  }

  /**
   * Whether an earlier run journaled this write as sent without a key and then recorded nothing of
   * how it ended (it was killed before an answer): it may have taken effect. False when the request
   * changed since (another fingerprint).
   */
  boolean sentUnkeyed(String id, String fingerprint) {
    return fingerprint.equals(unkeyed.get(id));
  }

  /**
   * Journals the start of this run: its number, when, the requests of the input and how many of
   * them finished in earlier runs.
   *
   * @throws IOException if it cannot be written or forced
   */
  void runStarted(String at, int requests, int finishedBefore) throws IOException {
    Map<String, Object> rec = ofThisRun("run", at);
    rec.put("requests", (long) requests);
    rec.put("finished_before", (long) finishedBefore);
    append(rec);
  }

  /**
   * Journals how a request ended: {@code done} for a final outcome (a resumed run skips the id),
   * {@code open} otherwise.
   *
   * @throws IOException if it cannot be written or forced
   */
  void outcome(String id, boolean isFinal, Map<String, Object> result) throws IOException {
    append(outcomeRecord(id, isFinal, result));
  }

  /**
   * Journals how a request ended without waiting for the force: for the requests a stopped run
   * never sent, whose records need not be durable one by one. {@link #flush} waits for them.
   *
   * @throws IOException if an earlier record could not be written
   */
  void outcomeQueued(String id, boolean isFinal, Map<String, Object> result) throws IOException {
    Map<String, Object> rec = outcomeRecord(id, isFinal, result);
    commits.enqueue(JsonTree.write(rec).getBytes(StandardCharsets.UTF_8));
    if (isFinal) {
      keys.remove(id);
    }
  }

  /**
   * Waits until every record queued so far is on the disk.
   *
   * @throws IOException if one could not be written or forced
   */
  void flush() throws IOException {
    commits.flush();
  }

  private static Map<String, Object> outcomeRecord(
      String id, boolean isFinal, Map<String, Object> result) {
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("rec", isFinal ? "done" : "open");
    rec.put("id", id);
    rec.put("result", result);
    return rec;
  }

  /**
   * Journals the end of this run: when, its exit code and why it stopped, if it did.
   *
   * @param stopped the reason, e.g. {@code quota}, or null
   * @throws IOException if it cannot be written or forced
   */
  void runEnded(String at, int exitCode, String stopped) throws IOException {
    runEnded(at, exitCode, stopped, List.of());
  }

  /**
   * Journals the end of this run, as {@link #runEnded(String, int, String)} does, with the scopes
   * whose quota it found exhausted.
   *
   * @param quotaStops one map per scope: {@code scope}, {@code until} (or null), {@code cause},
   *     {@code not_sent}; none leaves the member out
   * @throws IOException if it cannot be written or forced
   */
  void runEnded(String at, int exitCode, String stopped, List<Map<String, Object>> quotaStops)
      throws IOException {
    Map<String, Object> rec = ofThisRun("end", at);
    rec.put("exit_code", (long) exitCode);
    rec.put("stopped", stopped);
    if (!quotaStops.isEmpty()) {
      rec.put("quota_stops", List.copyOf(quotaStops));
    }
    append(rec);
  }

  private Map<String, Object> ofThisRun(String type, String at) {
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("rec", type);
    rec.put("run", (long) runs + 1);
    rec.put("at", at);
    return rec;
  }

  /** The key journaled for an id that has not finished, or null. */
  Key keyOf(String id) {
    return keys.get(id);
  }

  /**
   * Whether a final result was journaled for an id before this run. Reads the compact index: one
   * thread at a time (the batch asks under its take lock).
   */
  boolean finished(String id) {
    return done.get(id, -1) >= 0;
  }

  /**
   * What the journal knows of a request of the input, for a resume: whether it finished before (and
   * with which exit code), and whether its method, URL or body changed since its key was journaled.
   * A finished request is marked as part of the input, for {@link #copyFinished}. Called by one
   * thread, before the run starts.
   *
   * @param id the request's id
   * @param fingerprint the request's fingerprint now
   */
  Finished check(String id, String fingerprint) {
    Key key = keys.get(id);
    long packed = done.get(id, -1);
    if (packed < 0) {
      return new Finished(false, -1, key != null && !key.fingerprint().equals(fingerprint));
    }
    done.put(id, packed | Finished.IN_INPUT);
    return new Finished(
        true, Finished.exitCode(packed), !Finished.sameFingerprint(packed, fingerprint));
  }

  /**
   * Writes the results of the requests finished before this run that {@link #check} found in the
   * input, one line each, in the journal's order: a second pass over the journal, one record at a
   * time.
   *
   * @return how many were written
   * @throws IOException if the journal cannot be read or the results written
   */
  int copyFinished(java.io.Writer out) throws IOException {
    int n = 0;
    LineReader lines = new LineReader(channel, readEnd);
    while (lines.next()) {
      if (!lines.startsWith(DONE)) {
        continue;
      }
      Map<String, Object> rec;
      try {
        // Checked when the journal was opened; nothing has changed it since (it is locked).
        rec =
            JournalFormat.record(file, lines.number(), checked ? lines.recordText() : lines.text());
      } catch (Unusable e) {
        throw new IOException(e.getMessage(), e);
      }
      String id = String.valueOf(rec.get("id"));
      long packed = done.get(id, -1);
      if (packed >= 0 && (packed & Finished.IN_INPUT) != 0 && (packed & Finished.COPIED) == 0) {
        done.put(id, packed | Finished.COPIED);
        out.write(JsonTree.write(rec.get("result")));
        out.write('\n');
        n++;
      }
    }
    return n;
  }

  private static final byte[] DONE = "{\"rec\":\"done\"".getBytes(StandardCharsets.US_ASCII);

  /**
   * What a journal knows of one request: finished before, with which exit code, and whether it
   * changed since its key was journaled. Packed in the id table as one {@code long}: 48 bits of the
   * key's fingerprint, whether it had a key, two flags, the exit code.
   */
  record Finished(boolean finished, int exitCode, boolean changed) {
    static final long KEYED = 1L << 4;
    static final long IN_INPUT = 1L << 5;
    static final long COPIED = 1L << 6;

    static long pack(Key key, int exitCode) {
      long packed = exitCode & 0xF;
      if (key != null) {
        packed |= KEYED | (fingerprintBits(key.fingerprint()) << 8);
      }
      return packed;
    }

    static int exitCode(long packed) {
      return (int) (packed & 0xF);
    }

    static boolean sameFingerprint(long packed, String fingerprint) {
      return (packed & KEYED) == 0 || (packed >>> 8) == fingerprintBits(fingerprint);
    }

    /** 48 bits of a fingerprint (a SHA-256 in hex, or any string a journal holds). */
    private static long fingerprintBits(String fingerprint) {
      long h = 1125899906842597L;
      for (int i = 0; i < fingerprint.length(); i++) {
        h = 31 * h + fingerprint.charAt(i);
      }
      return (h ^ (h >>> 29)) & 0xFFFF_FFFF_FFFFL;
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

  /** How many forces this journal made since it was opened: fewer than records under load. */
  long forces() {
    return commits.groups();
  }

  /** Requests finished in earlier runs without success, by outcome. */
  Map<String, Integer> failedBefore() {
    return failedBefore;
  }

  /** The scopes earlier runs found out of quota, each as the latest run that did said. */
  List<StoppedScope> stoppedScopes() {
    return List.copyOf(stoppedScopes.values());
  }

  /** How many runs this journal saw before this one. */
  int runs() {
    return runs;
  }

  /** Whether this run created the journal. */
  boolean created() {
    return created;
  }

  Path file() {
    return file;
  }

  @Override
  public void close() throws IOException {
    commits.close();
    try {
      if (lock.isValid()) {
        lock.release();
      }
    } finally {
      channel.close();
    }
  }
}
