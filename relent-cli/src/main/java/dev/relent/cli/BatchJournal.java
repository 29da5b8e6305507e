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
import java.util.List;
import java.util.Map;
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
 * record is finished and skipped; every other id is sent again (writes with their journaled key). A
 * last line without its newline is what a kill during a write leaves: it is cut off and the record
 * counts as not written (its state change had not been acknowledged). Any other line that is not a
 * record makes the journal unusable, with the line number.
 *
 * <p>An exclusive file lock keeps two runs from sharing one journal; the operating system drops it
 * when a process dies. Thread-safe: appends are serialised by the committer thread.
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
  private final Map<String, Map<String, Object>> done;
  private final int runs;
  private final boolean created;

  private BatchJournal(
      Path file,
      FileChannel channel,
      FileLock lock,
      Map<String, Key> keys,
      Map<String, Map<String, Object>> done,
      int runs,
      boolean created) {
    this.file = file;
    this.channel = channel;
    this.commits = new GroupCommit(channel, "relent-journal");
    this.lock = lock;
    this.keys = keys;
    this.done = done;
    this.runs = runs;
    this.created = created;
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
      Map<String, Map<String, Object>> done = new LinkedHashMap<>();
      int runs = 0;
      long size = ch.size();
      if (size > 0) {
        ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(size));
        while (all.hasRemaining() && ch.read(all, all.position()) >= 0) {
          // read until full
        }
        byte[] bytes = all.array();
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
          end--;
        }
        if (end < bytes.length) {
          // A record torn by a kill: its state change was never acknowledged.
          ch.truncate(end);
          ch.force(true);
        }
        if (end == 0) {
          created = true;
        }
        String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
        List<String> lines = text.isEmpty() ? List.of() : List.of(text.split("\n", -1));
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i);
          if (line.isEmpty()) {
            continue;
          }
          int number = i + 1;
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
                keys.putIfAbsent(
                    (String) id, new Key((String) rec.get("key"), (String) rec.get("fingerprint")));
              } else {
                throw new Unusable(
                    file + ":" + number + ": a key record needs id, key, fingerprint");
              }
              break;
            case "done":
              if (!(id instanceof String) || !(rec.get("result") instanceof Map)) {
                throw new Unusable(file + ":" + number + ": a done record needs id and result");
              }
              @SuppressWarnings("unchecked")
              Map<String, Object> result = (Map<String, Object>) rec.get("result");
              done.putIfAbsent((String) id, result);
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
      } else if (!created) {
        // an empty file someone made: treat it as new
        created = true;
      }
      BatchJournal journal =
          new BatchJournal(
              file,
              ch,
              lock,
              new ConcurrentHashMap<>(keys),
              Collections.synchronizedMap(done),
              runs,
              created);
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
    Object type = record.get("rec");
    if ("done".equals(type)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> result = (Map<String, Object>) record.get("result");
      done.putIfAbsent((String) record.get("id"), result);
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
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("rec", isFinal ? "done" : "open");
    rec.put("id", id);
    rec.put("result", result);
    append(rec);
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

  /** The key journaled for an id, or null. */
  Key keyOf(String id) {
    return keys.get(id);
  }

  /** The final result journaled for an id, or null if it did not finish. */
  Map<String, Object> finished(String id) {
    return done.get(id);
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
