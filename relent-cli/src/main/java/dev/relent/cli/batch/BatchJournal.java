package dev.relent.cli.batch;

import dev.relent.cli.common.JsonTree;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
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
 * <p>{@link JournalFormat} says what a line is: its record, the checksum that ends it, {@code
 * "crc32c":"xxxxxxxx"}, chained to the line before so that a line changed, removed, repeated or
 * moved is told, and how a line is parsed. {@link JournalReader} reads and verifies the file when
 * it is opened, into a snapshot this class keeps current; {@link GroupCommit} is the one writer of
 * records, framing them ({@link JournalFormat.Chain}) in the order they reach the file. A resume
 * keeps, for each finished id, a 128-bit digest and one {@code long} ({@link IdTable}, {@link
 * Finished}) and the keys of ids not finished; the results of finished ids are read again only to
 * be copied to {@code --out} ({@link #copyFinished}).
 *
 * <p>An exclusive file lock keeps two runs from sharing one journal; the operating system drops it
 * when a process dies. Appends are thread-safe (the committer thread serialises them), and so are
 * {@link #keyOf} and {@link #sentUnkeyed}; {@link #finished}, {@link #check} and {@link
 * #copyFinished} read the index one thread at a time.
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
  private final FileLock lock;
  private final GroupCommit commits;
  // What the journal said when it was opened, kept current: a finished id's key is dropped, and
  // check and copyFinished mark ids in done (taken over from the snapshot).
  private final Map<String, Key> keys;
  private final Map<String, String> unkeyed;
  private final IdTable done;
  private final long readEnd;
  private final int runs;
  private final boolean created;
  private final boolean checked;
  private final Map<String, Integer> failedBefore;
  private final Map<String, StoppedScope> stoppedScopes;

  private BatchJournal(Path file, FileChannel channel, FileLock lock, JournalReader.Snapshot read) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
    this.commits =
        new GroupCommit(
            channel,
            "relent-journal",
            read.checked()
                ? new JournalFormat.Chain(read.lastChecksum())
                : JournalFormat::legacyLine);
    this.keys = new ConcurrentHashMap<>(read.keys());
    this.unkeyed = new ConcurrentHashMap<>(read.unkeyed());
    this.done = read.done();
    this.readEnd = read.end();
    this.runs = read.runs();
    this.created = read.created();
    this.checked = read.checked();
    this.failedBefore = read.failedBefore();
    this.stoppedScopes = read.stoppedScopes();
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
      BatchJournal journal =
          new BatchJournal(file, ch, lock, JournalReader.read(file, ch, created));
      if (journal.created) {
        journal.append(JournalFormat.journalRecord(createdAt, input));
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
    append(JournalFormat.keyRecord(id, key, fingerprint));
    keys.putIfAbsent(id, new Key(key, fingerprint));
  }

  /**
   * Journals, before its first send, that a write goes without an idempotency key: a run killed
   * while it was on the wire leaves this record alone, and the next run does not send it again.
   *
   * @throws IOException if it cannot be written or forced
   */
  void unkeyed(String id, String fingerprint) throws IOException {
    append(JournalFormat.unkeyedRecord(id, fingerprint));
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
    append(JournalFormat.runRecord(runs + 1, at, requests, finishedBefore));
  }

  /**
   * Journals how a request ended: {@code done} for a final outcome (a resumed run skips the id),
   * {@code open} otherwise.
   *
   * @throws IOException if it cannot be written or forced
   */
  void outcome(String id, boolean isFinal, Map<String, Object> result) throws IOException {
    append(JournalFormat.outcomeRecord(id, isFinal, result));
  }

  /**
   * Journals how a request ended without waiting for the force: for the requests a stopped run
   * never sent, whose records need not be durable one by one. {@link #flush} waits for them.
   *
   * @throws IOException if an earlier record could not be written
   */
  void outcomeQueued(String id, boolean isFinal, Map<String, Object> result) throws IOException {
    Map<String, Object> rec = JournalFormat.outcomeRecord(id, isFinal, result);
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
    append(JournalFormat.endRecord(runs + 1, at, exitCode, stopped, quotaStops));
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
    JournalReader.DoneRecords records =
        new JournalReader.DoneRecords(file, channel, readEnd, checked);
    for (Map<String, Object> rec = records.next(); rec != null; rec = records.next()) {
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
