package dev.relent.cli;

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
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The journal of {@code relent batch --journal FILE}: what makes a batch crash-safe.
 *
 * <p>Format (version {@value #VERSION}, documented in docs/cli.md): JSON Lines, append-only, one
 * record per state change, each written whole and forced to the disk ({@link FileChannel#force})
 * before the run goes on. Records that workers append at the same time are forced together, with
 * one {@code force} ({@link GroupCommit}):
 *
 * <pre>{@code
 * {"rec":"journal","version":1,"created_at":"…","input":"/abs/requests.jsonl"}
 * {"rec":"run","run":1,"at":"…","requests":27,"finished_before":0}
 * {"rec":"key","id":"pay-1","key":"5b0c…","fingerprint":"9f2e…"}   before the first send
 * {"rec":"done","id":"pay-1","result":{…}}                          a final outcome
 * {"rec":"open","id":"acct-9","result":{…}}                         stopped before a final one
 * {"rec":"end","run":1,"at":"…","exit_code":5,"stopped":"quota"}
 * }</pre>
 *
 * <p>Reading it back: the first {@code key} of an id is its key for good; an id with a {@code done}
 * record is finished and skipped; every other id is sent again (writes with their journaled key).
 * The journal is read one record at a time and what is kept is compact: for each finished id a
 * 128-bit digest and one {@code long} ({@link IdTable}, {@link Finished}), and the keys of ids not
 * finished (those that were in flight); the results of finished ids are read again, in a second
 * pass, only to be copied to {@code --out} ({@link #copyFinished}). A last line without its newline
 * is what a kill during a write leaves: it is cut off and the record counts as not written (its
 * state change had not been acknowledged). Any other line that is not a record makes the journal
 * unusable, with the line number.
 *
 * <p>An exclusive file lock keeps two runs from sharing one journal; the operating system drops it
 * when a process dies. Appends are thread-safe (the committer thread serialises them); {@link
 * #finished}, {@link #check} and {@link #copyFinished} read the index one thread at a time.
 */
final class BatchJournal implements Closeable {
  /** The format version, in the first record. */
  static final int VERSION = 1;

  /** A journal that cannot be used: not a journal, another version, locked, changed input. */
  static final class Unusable extends Exception {
    private static final long serialVersionUID = 1L;

    Unusable(String message) {
      super(message);
    }
  }

  /** A key journaled for an id: the key and the fingerprint of the request it was made for. */
  record Key(String key, String fingerprint) {}

  private final Path file;
  private final FileChannel channel;
  private final GroupCommit commits;
  private final FileLock lock;
  private final Map<String, Key> keys;
  private final IdTable done;
  private final long readEnd;
  private final int runs;
  private final boolean created;
  private final Map<String, Integer> failedBefore;

  private BatchJournal(
      Path file,
      FileChannel channel,
      FileLock lock,
      Map<String, Key> keys,
      IdTable done,
      long readEnd,
      int runs,
      boolean created,
      Map<String, Integer> failedBefore) {
    this.file = file;
    this.channel = channel;
    this.commits = new GroupCommit(channel, "relent-journal");
    this.lock = lock;
    this.keys = keys;
    this.done = done;
    this.readEnd = readEnd;
    this.runs = runs;
    this.created = created;
    this.failedBefore = failedBefore;
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
      IdTable done = new IdTable();
      Map<String, Integer> failedBefore = new TreeMap<>();
      int runs = 0;
      long end = endOfLastRecord(ch);
      if (end < ch.size()) {
        // A record torn by a kill: its state change was never acknowledged.
        ch.truncate(end);
        ch.force(true);
      }
      if (end == 0) {
        // a new file, or an empty one someone made: treat it as new
        created = true;
      }
      LineReader lines = new LineReader(ch, end);
      String line;
      while ((line = lines.next()) != null) {
        if (line.isEmpty()) {
          continue;
        }
        int number = lines.number();
        Map<String, Object> rec = record(file, number, line);
        String type = String.valueOf(rec.get("rec"));
        if (number == 1) {
          if (!type.equals("journal")) {
            throw new Unusable(
                file + ":1: not a relent batch journal (the first record is not \"journal\")");
          }
          Object v = rec.get("version");
          if (!(v instanceof Long) || (Long) v != VERSION) {
            throw new Unusable(
                file + ":1: journal version " + v + "; this relent reads version " + VERSION);
          }
          continue;
        }
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
          case "done":
            if (!(id instanceof String) || !(rec.get("result") instanceof Map)) {
              throw new Unusable(file + ":" + number + ": a done record needs id and result");
            }
            if (done.get((String) id, -1) < 0) {
              // Only what a resume needs: the key's fingerprint, the outcome's exit code.
              Key key = keys.remove(id);
              Object outcome = ((Map<?, ?>) rec.get("result")).get("outcome");
              done.put((String) id, Finished.pack(key, ExitCodes.of(String.valueOf(outcome))));
              if (!"success".equals(outcome)) {
                // one count per outcome, not per request: bounded by the outcomes there are
                failedBefore.merge(String.valueOf(outcome), 1, Integer::sum);
              }
            }
            break;
          case "open":
          case "end":
            break;
          default:
            throw new Unusable(
                file
                    + ":"
                    + number
                    + ": unknown record "
                    + Json.quote(type)
                    + " for version "
                    + VERSION);
        }
      }
      BatchJournal journal =
          new BatchJournal(
              file,
              ch,
              lock,
              new ConcurrentHashMap<>(keys),
              done,
              end,
              runs,
              created,
              Collections.unmodifiableMap(failedBefore));
      if (created) {
        Map<String, Object> first = new LinkedHashMap<>();
        first.put("rec", "journal");
        first.put("version", (long) VERSION);
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

  private static Map<String, Object> record(Path file, int number, String line) throws Unusable {
    Object parsed;
    try {
      parsed = JsonTree.parse(line);
    } catch (JsonTree.NotJson e) {
      throw new Unusable(file + ":" + number + ": not a journal record: " + e.getMessage());
    }
    if (!(parsed instanceof Map) || !(((Map<?, ?>) parsed).get("rec") instanceof String)) {
      throw new Unusable(file + ":" + number + ": not a journal record (no \"rec\")");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) parsed;
    return map;
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
    byte[] line = (JsonTree.write(record) + "\n").getBytes(StandardCharsets.UTF_8);
    commits.commit(line);
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
    commits.enqueue((JsonTree.write(rec) + "\n").getBytes(StandardCharsets.UTF_8));
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
    Map<String, Object> rec = ofThisRun("end", at);
    rec.put("exit_code", (long) exitCode);
    rec.put("stopped", stopped);
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
    String line;
    while ((line = lines.next()) != null) {
      if (!line.startsWith("{\"rec\":\"done\"")) {
        continue;
      }
      Map<String, Object> rec;
      try {
        rec = record(file, lines.number(), line);
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
   * locked file would drop the lock when closed) in 64 KiB blocks: one line in memory at a time.
   */
  private static final class LineReader {
    private final FileChannel ch;
    private final long end;
    private final ByteBuffer block = ByteBuffer.allocate(64 * 1024);
    private long at;
    private int number;
    private java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream(256);

    LineReader(FileChannel ch, long end) {
      this.ch = ch;
      this.end = end;
      block.limit(0);
    }

    /** The number of the line last returned, from 1. */
    int number() {
      return number;
    }

    /** The next line without its newline, or null at the end. */
    String next() throws IOException {
      line.reset();
      while (true) {
        if (!block.hasRemaining()) {
          if (at >= end) {
            return null; // only whole lines are read: end is just after a newline
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
            String text = line.toString(StandardCharsets.UTF_8);
            if (line.size() > 64 * 1024) {
              line = new java.io.ByteArrayOutputStream(256);
            }
            return text;
          }
          line.write(c);
        }
      }
    }
  }

  /** How many forces this journal made since it was opened: fewer than records under load. */
  long forces() {
    return commits.groups();
  }

  /** How many runs this journal saw before this one. */
  /** Requests finished in earlier runs without success, by outcome. */
  Map<String, Integer> failedBefore() {
    return failedBefore;
  }

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
