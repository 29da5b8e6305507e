package dev.relent.guard;

/**
 * The runs of accepts and the spells of refusals between them, as a {@link LimitBracket} tells a
 * window from a bucket: a bucket accepts again within one interval, a window refuses for long after
 * a run of accepts. How long refusals lasted is the time from the first refused start to the last,
 * not to the next accept: a pause the server asked for is no refusal.
 *
 * <p>Not thread-safe: the bracket's caller holds the pacer's lock. Allocates nothing.
 */
final class RefusalSpells {
  private static final long NEVER = StartHistory.NEVER;

  /**
   * A run of at least this many accepts, ended by refusals that last longer than a second (and four
   * intervals), then accepts again, is a window: paced at the run over its time.
   */
  static final int WINDOW_RUN = 8;

  /** The accepts since the last refusal, and the first of them. */
  private int runAccepts;

  private long runStart = NEVER;

  /**
   * The first refused start since the last accept; {@link StartHistory#NEVER} while accepts come.
   */
  private long refusedSince = NEVER;

  /** The last refused start since the last accept. */
  private long lastRefused = NEVER;

  /** The run of accepts that the current refusals ended, and its first start. */
  private int endedRun;

  private long endedRunStart = NEVER;

  /**
   * An accept of the start sent at {@code sentAt}, paced at {@code interval} (0 if unpaced).
   * Returns whether it ends the refusals that closed a window: they lasted longer than a second and
   * four intervals and ended a run of {@value #WINDOW_RUN} or more accepts, which {@link #endedRun}
   * and {@link #endedRunStart} then name.
   */
  boolean onAccepted(long sentAt, long interval) {
    long lasted = -1;
    if (refusedSince != NEVER) {
      lasted = lastRefused - refusedSince;
      refusedSince = NEVER;
      runAccepts = 0;
    }
    if (runAccepts++ == 0) {
      runStart = sentAt;
    }
    return endedRun >= WINDOW_RUN && lasted > Math.max(AdaptivePacer.SECOND, 4 * interval);
  }

  /** A refusal of the start sent at {@code sentAt}. */
  void onThrottled(long sentAt) {
    if (refusedSince == NEVER) {
      refusedSince = sentAt;
      lastRefused = sentAt;
      endedRun = runAccepts;
      endedRunStart = runStart;
    }
    lastRefused = Math.max(lastRefused, sentAt);
  }

  /** The accepts of the run the latest refusals ended. */
  int endedRun() {
    return endedRun;
  }

  /** The first start of the run the latest refusals ended, or {@link StartHistory#NEVER}. */
  long endedRunStart() {
    return endedRunStart;
  }

  /** Writes the six numbers of this part at the places given, in the order of the arguments. */
  void writeTo(long[] s, int run, int start, int since, int ended, int endedStart, int last) {
    s[run] = runAccepts;
    s[start] = runStart;
    s[since] = refusedSince;
    s[ended] = endedRun;
    s[endedStart] = endedRunStart;
    s[last] = lastRefused;
  }

  /** Reads what {@link #writeTo} wrote at the same places; counts out of range are clamped. */
  void readFrom(long[] s, int run, int start, int since, int ended, int endedStart, int last) {
    runAccepts = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s[run]));
    runStart = s[start];
    refusedSince = s[since];
    endedRun = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s[ended]));
    endedRunStart = s[endedStart];
    lastRefused = s[last];
  }
}
