package dev.relent.cli.batch;

import dev.relent.cli.common.JsonTree;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * What a line of the batch journal is (documented in docs/cli.md): its versions, the records as
 * they are written ({@code rec} first), the checksum that ends a line and chains it to the line
 * before, parsing a line into a record, and what to tell the user when one is damaged. {@link
 * JournalReader} reads lines by it, {@link BatchJournal} writes them.
 *
 * <p>Version {@value #VERSION}: the last member of every line's object is {@code
 * "crc32c":"xxxxxxxx"} (the line's last {@link #TAIL_LENGTH} bytes, with the comma before it and
 * the closing brace), eight lowercase hex digits of the CRC-32C of the previous line's eight digits
 * ({@code 00000000} before the first line) followed by this line's bytes up to the comma of {@code
 * ,"crc32c"}. Each line is checked on its own, and the chain through the previous line's digits
 * also tells when a whole line was removed, repeated or moved. {@link GroupCommit} frames the lines
 * under its queue lock, in the order they reach the file ({@link Chain}). Version {@value
 * #LEGACY_VERSION}, written before lines had checksums, is a record and a newline ({@link
 * #legacyLine}).
 *
 * <p>Static and without state but for {@link Chain}, which is not thread-safe; no I/O.
 */
final class JournalFormat {
  /** The format version of a new journal, in its first record: every line has a checksum. */
  static final int VERSION = 2;

  /** The version before checksums; such a journal is read and resumed without them. */
  static final int LEGACY_VERSION = 1;

  /** What ends every line of a checked journal before its checksum's digits. */
  private static final byte[] TAIL_START = ",\"crc32c\":\"".getBytes(StandardCharsets.US_ASCII);

  /** The bytes of the checksum member, its comma and the closing brace, ending a checked line. */
  static final int TAIL_LENGTH = TAIL_START.length + 8 + 2;

  /** {@link #checksum}: the line has no checksum member at its end. */
  static final long NO_CHECKSUM = -1;

  /** {@link #checksum}: the line's checksum is not the one computed. */
  static final long MISMATCH = -2;

  /** What to do about a damaged line N: where to cut, and what a resume from the cut sends. */
  private static final String DAMAGE_ADVICE =
      "Lines before line N are intact. To resume from them, keep a copy of this file and cut it"
          + " before the damage (head -n N-1 FILE > FILE.cut; run again with --journal FILE.cut):"
          + " requests recorded from line N on are sent again, a keyed write whose key record is"
          + " cut with a new key, so check those with the server first.";

  /** What to do when the first line is damaged: nothing after it can be checked. */
  static final String UNTRUSTED =
      "Nothing in it can be checked: keep it for inspection, check the keyed writes it records"
          + " with the server, and start again with a new journal.";

  /** What the line of a {@code done} record starts with: a record's type is its first member. */
  static final byte[] DONE_START = "{\"rec\":\"done\"".getBytes(StandardCharsets.US_ASCII);

  private JournalFormat() {}

  /** A line that failed its checksum: where it starts, and why. */
  record Damage(int line, long start, String problem) {
    /**
     * @param sum what {@link #checksum} returned for the line: {@link #NO_CHECKSUM} or {@link
     *     #MISMATCH}
     */
    Damage(int line, long start, long sum) {
      this(line, start, sum == NO_CHECKSUM ? "no checksum" : "checksum does not match");
    }

    /** The refusal: {@code file:line: damaged …}, with what to do. */
    String message(Path file) {
      if (line == 1) {
        return file
            + ":1: damaged first record ("
            + problem
            + ": the line was changed after it was written). "
            + UNTRUSTED;
      }
      return file
          + ":"
          + line
          + ": damaged record ("
          + problem
          + ": the line was changed after it was written, or one before it was removed or moved). "
          + DAMAGE_ADVICE
              .replace("N-1", String.valueOf(line - 1))
              .replace("line N", "line " + line)
              .replace("FILE", file.toString());
    }
  }

  /**
   * Checks a line of a checked journal (without its newline) against the previous line's checksum.
   *
   * @return the line's checksum, as an unsigned int, or {@link #NO_CHECKSUM} or {@link #MISMATCH}
   */
  static long checksum(byte[] line, int length, int previous) {
    int at = length - TAIL_LENGTH;
    if (at < 1 || line[length - 2] != '"' || line[length - 1] != '}') {
      return NO_CHECKSUM;
    }
    for (int i = 0; i < TAIL_START.length; i++) {
      if (line[at + i] != TAIL_START[i]) {
        return NO_CHECKSUM;
      }
    }
    long stated = 0;
    for (int i = at + TAIL_START.length; i < length - 2; i++) {
      int digit = Character.digit(line[i], 16);
      if (digit < 0 || line[i] >= 'A' && line[i] <= 'F') {
        return NO_CHECKSUM;
      }
      stated = stated << 4 | digit;
    }
    int computed = Chain.compute(new CRC32C(), previous, line, at);
    return stated == Integer.toUnsignedLong(computed) ? stated : MISMATCH;
  }

  /**
   * The record a line of a checked journal checks, as text: the line without its checksum member.
   *
   * @param line the line's bytes, without its newline, already checked by {@link #checksum}
   */
  static String recordText(byte[] line, int length) {
    return new String(line, 0, length - TAIL_LENGTH, StandardCharsets.UTF_8) + "}";
  }

  /**
   * Turns a record into its line in a checked journal: the checksum member added, chained to the
   * line before. Called by {@link GroupCommit} under its lock, in file order; not thread-safe
   * otherwise.
   */
  static final class Chain implements GroupCommit.Framing {
    private final CRC32C crc = new CRC32C();
    private int previous;

    /**
     * @param previous the checksum of the journal's last line, 0 for a new journal
     */
    Chain(int previous) {
      this.previous = previous;
    }

    @Override
    public byte[] frame(byte[] record) {
      // A record is a JSON object with members: "{...}". Its closing brace moves after the sum.
      int body = record.length - 1;
      if (body < 2 || record[0] != '{' || record[body] != '}') {
        throw new IllegalArgumentException("not a record: " + record.length + " bytes");
      }
      int sum = compute(crc, previous, record, body);
      byte[] line = Arrays.copyOf(record, body + TAIL_LENGTH + 1);
      System.arraycopy(TAIL_START, 0, line, body, TAIL_START.length);
      writeHex(sum, line, body + TAIL_START.length);
      line[line.length - 3] = '"';
      line[line.length - 2] = '}';
      line[line.length - 1] = '\n';
      previous = sum;
      return line;
    }

    /** CRC-32C of the previous checksum's eight hex digits, then {@code bytes[0, length)}. */
    static int compute(CRC32C crc, int previous, byte[] bytes, int length) {
      byte[] digits = new byte[8];
      writeHex(previous, digits, 0);
      crc.reset();
      crc.update(digits);
      crc.update(bytes, 0, length);
      return (int) crc.getValue();
    }

    private static void writeHex(int value, byte[] to, int at) {
      for (int i = 0; i < 8; i++) {
        to[at + i] = (byte) Character.forDigit((value >>> (28 - 4 * i)) & 0xF, 16);
      }
    }
  }

  /** A line of a journal of version {@value #LEGACY_VERSION}: the record and a newline. */
  static byte[] legacyLine(byte[] record) {
    byte[] line = Arrays.copyOf(record, record.length + 1);
    line[record.length] = '\n';
    return line;
  }

  /**
   * Parses line {@code number} of a journal into its record.
   *
   * @param line the record's text (without the checksum member, in a checked journal)
   * @throws BatchJournal.Unusable {@code file:number: not a journal record…} if it is not a JSON
   *     object with a string {@code rec}
   */
  static Map<String, Object> record(Path file, int number, String line)
      throws BatchJournal.Unusable {
    Object parsed;
    try {
      parsed = JsonTree.parse(line);
    } catch (JsonTree.NotJson e) {
      throw new BatchJournal.Unusable(
          file + ":" + number + ": not a journal record: " + e.getMessage());
    }
    if (!(parsed instanceof Map) || !(((Map<?, ?>) parsed).get("rec") instanceof String)) {
      throw new BatchJournal.Unusable(file + ":" + number + ": not a journal record (no \"rec\")");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) parsed;
    return map;
  }

  /** The first record of a new journal: its version, when, and the input it is for. */
  static Map<String, Object> journalRecord(String createdAt, Path input) {
    Map<String, Object> rec = ofType("journal");
    rec.put("version", (long) VERSION);
    rec.put("created_at", createdAt);
    rec.put("input", input.toAbsolutePath().toString());
    return rec;
  }

  /** The key of a request, journaled before its first send. */
  static Map<String, Object> keyRecord(String id, String key, String fingerprint) {
    Map<String, Object> rec = ofType("key");
    rec.put("id", id);
    rec.put("key", key);
    rec.put("fingerprint", fingerprint);
    return rec;
  }

  /** A write about to be sent without an idempotency key. */
  static Map<String, Object> unkeyedRecord(String id, String fingerprint) {
    Map<String, Object> rec = ofType("unkeyed");
    rec.put("id", id);
    rec.put("fingerprint", fingerprint);
    return rec;
  }

  /** How a request ended: {@code done} for a final outcome, {@code open} otherwise. */
  static Map<String, Object> outcomeRecord(String id, boolean isFinal, Map<String, Object> result) {
    Map<String, Object> rec = ofType(isFinal ? "done" : "open");
    rec.put("id", id);
    rec.put("result", result);
    return rec;
  }

  /** The start of run number {@code run}. */
  static Map<String, Object> runRecord(int run, String at, int requests, int finishedBefore) {
    Map<String, Object> rec = ofRun("run", run, at);
    rec.put("requests", (long) requests);
    rec.put("finished_before", (long) finishedBefore);
    return rec;
  }

  /** The end of run number {@code run}; no {@code quotaStops} leaves the member out. */
  static Map<String, Object> endRecord(
      int run, String at, int exitCode, String stopped, List<Map<String, Object>> quotaStops) {
    Map<String, Object> rec = ofRun("end", run, at);
    rec.put("exit_code", (long) exitCode);
    rec.put("stopped", stopped);
    if (!quotaStops.isEmpty()) {
      rec.put("quota_stops", List.copyOf(quotaStops));
    }
    return rec;
  }

  private static Map<String, Object> ofRun(String type, int run, String at) {
    Map<String, Object> rec = ofType(type);
    rec.put("run", (long) run);
    rec.put("at", at);
    return rec;
  }

  private static Map<String, Object> ofType(String type) {
    Map<String, Object> rec = new LinkedHashMap<>();
    rec.put("rec", type);
    return rec;
  }
}
