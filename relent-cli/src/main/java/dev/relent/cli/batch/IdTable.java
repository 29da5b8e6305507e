package dev.relent.cli.batch;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A compact map from request ids to a {@code long}, for inputs and journals of millions of lines:
 * an id is kept as the first 128 bits of its SHA-256 (16 bytes, however long the id), in
 * open-addressed primitive arrays, 24 bytes a slot at a load of at most ½: about 50 MB for a
 * million ids, where a {@code HashMap<String, …>} takes three times that. Two ids are taken as the
 * same when their 128-bit digests are: the chance that two of a billion distinct ids collide is
 * below 10<sup>-20</sup>.
 *
 * <p>Not thread-safe: filled and read by one thread, or under the owner's lock.
 */
final class IdTable {
  private final MessageDigest sha256;
  private long[] hi;
  private long[] lo;
  private long[] values;
  private boolean[] used;
  private int size;

  IdTable() {
    try {
      this.sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
    allocate(1024);
  }

  /** The number of ids. */
  int size() {
    return size;
  }

  /**
   * Returns the value of an id, or {@code absent} when the table does not hold it.
   *
   * @param id the id
   * @param absent what to return when it is not there
   */
  long get(String id, long absent) {
    long[] d = digest(id);
    int slot = find(d[0], d[1]);
    return used[slot] ? values[slot] : absent;
  }

  /**
   * Sets an id's value unless it has one.
   *
   * @return the value it had, or {@code absent} if it was new (and now holds {@code value})
   */
  long putIfAbsent(String id, long value, long absent) {
    long[] d = digest(id);
    int slot = find(d[0], d[1]);
    if (used[slot]) {
      return values[slot];
    }
    insert(slot, d[0], d[1], value);
    return absent;
  }

  /** Sets an id's value. */
  void put(String id, long value) {
    long[] d = digest(id);
    int slot = find(d[0], d[1]);
    if (used[slot]) {
      values[slot] = value;
    } else {
      insert(slot, d[0], d[1], value);
    }
  }

  private void insert(int slot, long h, long l, long value) {
    used[slot] = true;
    hi[slot] = h;
    lo[slot] = l;
    values[slot] = value;
    if (++size * 2 > used.length) {
      grow();
    }
  }

  private int find(long h, long l) {
    int mask = used.length - 1;
    int slot = (int) (h ^ (h >>> 32)) & mask;
    while (used[slot] && (hi[slot] != h || lo[slot] != l)) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  private void grow() {
    long[] oldHi = hi;
    long[] oldLo = lo;
    long[] oldValues = values;
    boolean[] oldUsed = used;
    allocate(oldUsed.length * 2);
    for (int i = 0; i < oldUsed.length; i++) {
      if (oldUsed[i]) {
        int slot = find(oldHi[i], oldLo[i]);
        used[slot] = true;
        hi[slot] = oldHi[i];
        lo[slot] = oldLo[i];
        values[slot] = oldValues[i];
      }
    }
  }

  private void allocate(int capacity) {
    hi = new long[capacity];
    lo = new long[capacity];
    values = new long[capacity];
    used = new boolean[capacity];
  }

  private long[] digest(String id) {
    byte[] d = sha256.digest(id.getBytes(StandardCharsets.UTF_8));
    long h = 0;
    long l = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (d[i] & 0xff);
      l = (l << 8) | (d[8 + i] & 0xff);
    }
    return new long[] {h, l};
  }
}
