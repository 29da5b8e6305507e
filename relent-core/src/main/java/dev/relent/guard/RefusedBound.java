package dev.relent.guard;

/**
 * The slowest refused gap a {@link LimitBracket} has seen, a lower bound of the limiter's interval,
 * and how far it is trusted: a bound that only unpaced starts gave is a guess (a cold client's
 * first requests reach the server late and out of order), one that a single paced refusal measured
 * may be a start that reached the server late, two that agree within a tenth are the limit. The
 * less it is trusted, the sooner a pace below it is probed ({@link #patience}).
 *
 * <p>Not thread-safe: the bracket's caller holds the pacer's lock. Allocates nothing.
 */
final class RefusedBound {
  /** Accepts in a row at a pace bracketed by a guessed bound before a faster one is probed. */
  static final int WEAK_PATIENCE = 8;

  /** Accepts in a row at a pace bracketed by a bound only one paced refusal measured. */
  static final int SINGLE_PATIENCE = 32;

  /** Accepts in a row at the bracketed pace before a faster one is probed; doubles per miss. */
  static final int PATIENCE = 128;

  static final int MAX_PATIENCE_DOUBLINGS = 4;

  /** The bound; 0 while none was refused. */
  private long value;

  private boolean weak;

  /** How many refusals of paced starts measured the bound (within a tenth of it). */
  private int evidence;

  /** How many times in a row a probe below the bound was refused. */
  private int misses;

  /** The bound, in nanoseconds; 0 if none yet. */
  long value() {
    return value;
  }

  /** The shortest interval to pace at: a margin and the jitter above the bound; 1 if none. */
  long floor() {
    return value == 0 ? 1 : (long) (value * (1 + LimitBracket.MARGIN)) + LimitBracket.JITTER_NANOS;
  }

  /** Accepts in a row at the pace above the bound before one below it is probed. */
  long patience() {
    return (long) (weak ? WEAK_PATIENCE : evidence < 2 ? SINGLE_PATIENCE : PATIENCE) << misses;
  }

  /** A refusal of a start nobody paced, {@code gap} after the accepted start before it. */
  void guess(long gap) {
    value = Math.max(value, gap);
    weak = true;
  }

  /** A refusal of a start sent at an earlier pace: its gap still bounds the limit. */
  void raise(long gap) {
    value = Math.max(value, gap);
  }

  /** A refusal of a start sent at the current pace, {@code bound} after the accept before it. */
  void measure(long bound) {
    if (bound > 0) {
      evidence =
          weak || bound > value * (1 + LimitBracket.NEAR_STEP)
              ? 1
              : bound >= value * (1 - LimitBracket.NEAR_STEP) ? evidence + 1 : evidence;
      weak = false;
    }
    value = Math.max(value, bound);
  }

  /** A probe below the bound was refused: the bound holds, and the next probe waits longer. */
  void probeMissed() {
    misses = Math.min(MAX_PATIENCE_DOUBLINGS, misses + 1);
  }

  /**
   * A probe at {@code interval} held: the limit is faster than the bound said. A bound not measured
   * twice is dropped, so that the pace descends again until a paced start is refused.
   */
  void probeHeld(long interval) {
    misses = 0;
    value = weak || evidence < 2 ? 0 : Math.min(value, interval);
    weak = false;
    evidence = 0;
  }

  /** A window's run measured the bound as {@code bound}: trusted as two refusals that agree. */
  void measuredByWindow(long bound) {
    value = bound;
    weak = false;
    evidence = 2;
  }

  /** Writes the bound at {@code s[valueAt]}, the misses at {@code s[missesAt]}, its flags. */
  long writeTo(long[] s, int valueAt, int missesAt) {
    s[valueAt] = value;
    s[missesAt] = misses;
    return (weak ? 2 : 0) | (long) Math.min(evidence, 1 << 20) << 2;
  }

  /** Reads what {@link #writeTo} wrote and returned ({@code flags}); values out of range clamp. */
  void readFrom(long[] s, int valueAt, int missesAt, long flags) {
    value = Math.max(0, s[valueAt]);
    misses = (int) Math.max(0, Math.min(MAX_PATIENCE_DOUBLINGS, s[missesAt]));
    weak = (flags & 2) != 0;
    evidence = (int) Math.max(0, Math.min(1 << 20, flags >> 2));
  }
}
