package dev.relent.guard;

/**
 * The accepted starts a {@link LimitBracket} heard of: the first, and the newest {@value #SIZE} in
 * a ring, to find the accepted start before a refused one (the gap a refusal bounds) and to count
 * the accepts of the last second (the first pace).
 *
 * <p>Not thread-safe: the bracket's caller holds the pacer's lock. Allocates only at construction.
 */
final class AcceptedStarts {
  private static final long NEVER = StartHistory.NEVER;

  /** How many accepted starts are remembered. */
  static final int SIZE = 64;

  /** The first pace when nothing was accepted in the last second: four starts a second. */
  static final long FIRST_NANOS = AdaptivePacer.SECOND / 4;

  private final long[] ring = new long[SIZE];
  private int next;
  private int size;
  private long first = NEVER;

  /** Records an accepted start sent at {@code sentAt}. */
  void add(long sentAt) {
    if (first == NEVER) {
      first = sentAt;
    }
    ring[next] = sentAt;
    next = (next + 1) % SIZE;
    size = Math.min(SIZE, size + 1);
  }

  /** The newest accepted start sent before {@code sentAt}, or {@link StartHistory#NEVER}. */
  long before(long sentAt) {
    long best = NEVER;
    for (int i = 0; i < size; i++) {
      long t = ring[i];
      if (t < sentAt && t > best) {
        best = t;
      }
    }
    return best;
  }

  /** How many of the remembered accepted starts were sent after {@code t}. */
  private int after(long t) {
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (ring[i] > t) {
        n++;
      }
    }
    return n;
  }

  /**
   * The first pace, at the first refusal (of the start sent at {@code sentAt}): the rate of the
   * starts of the last second, the accepted ones and the refused one, when answers came for a whole
   * second; before that (a burst at the start), the accepted ones over a second, but no slower than
   * {@link #FIRST_NANOS}.
   */
  long firstPace(long sentAt) {
    int recent = after(sentAt - AdaptivePacer.SECOND);
    if (first != NEVER && first <= sentAt - AdaptivePacer.SECOND) {
      return AdaptivePacer.SECOND / (recent + 1);
    }
    return recent == 0 ? FIRST_NANOS : Math.min(FIRST_NANOS, AdaptivePacer.SECOND / recent);
  }

  /**
   * Writes the first start at {@code s[firstAt]}, the ring's position and size at {@code
   * s[positionAt]} and the one after, and the ring from {@code s[ringAt]}.
   */
  void writeTo(long[] s, int firstAt, int positionAt, int ringAt) {
    s[firstAt] = first;
    s[positionAt] = next;
    s[positionAt + 1] = size;
    System.arraycopy(ring, 0, s, ringAt, SIZE);
  }

  /** Whether {@code s} holds a ring's position and size as {@link #writeTo} writes them. */
  static boolean readable(long[] s, int positionAt) {
    return s[positionAt] >= 0
        && s[positionAt] < SIZE
        && s[positionAt + 1] >= 0
        && s[positionAt + 1] <= SIZE;
  }

  /** Reads what {@link #writeTo} wrote, at the same places; {@link #readable} said it can. */
  void readFrom(long[] s, int firstAt, int positionAt, int ringAt) {
    first = s[firstAt];
    next = (int) s[positionAt];
    size = (int) s[positionAt + 1];
    System.arraycopy(s, ringAt, ring, 0, SIZE);
  }
}
