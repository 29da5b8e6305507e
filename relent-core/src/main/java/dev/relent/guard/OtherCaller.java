package dev.relent.guard;

import dev.relent.internal.Nanos;

/**
 * Another caller on the account, as an {@link AdaptivePacer} tells it: from the server's policy
 * ({@code quota} per {@code window}) against this pacer's own starts, or from a refusal of a start
 * that the last quota reading still allowed. While it is seen, the pacer leaves {@value
 * #SHARED_HEADROOM} of the policy's (or the quota's) rate unused, and one refusal a window that the
 * other caller's spending explains is excused.
 *
 * <p>Not thread-safe: the pacer calls it under its lock; the headroom's end and the policy's rate
 * are volatile, read without the lock on the reservation path. Allocates nothing.
 */
final class OtherCaller {
  private static final long NEVER = StartHistory.NEVER;

  /**
   * Once the server refused a start within the quota it stated (another caller spends the account),
   * the pacer leaves this share of the quota's rate unused, so that the account's limiter fills up
   * again for the other caller's bursts.
   */
  static final double SHARED_HEADROOM = 0.25;

  /**
   * How many of the policy's windows (or the quota's resets) the headroom holds once it is seen.
   */
  static final long SHARED_QUOTA_HOLD = 16;

  private final StartHistory starts;
  private final QuotaReading reading;
  private final Schedule schedule;

  private long policyQuota = -1;
  private long policyWindowNanos = -1;
  private long seenAt = NEVER;
  private long lastExcused = NEVER;

  // Read without the lock.
  private volatile long policyRateNanos;
  private volatile long sharedUntil = NEVER;

  OtherCaller(StartHistory starts, QuotaReading reading, Schedule schedule) {
    this.starts = starts;
    this.reading = reading;
    this.schedule = schedule;
  }

  /**
   * Reads the server's policy ({@code quota} above 0, {@code windowNanos} 0 or less when not
   * stated) with a reading of the attempt sent at {@code sentAtNanos}: a {@code remaining} that
   * counts more of the quota spent than this pacer started in the window says another caller.
   */
  void readPolicy(long sentAtNanos, long remaining, long resetNanos, long quota, long windowNanos) {
    policyQuota = quota;
    policyWindowNanos = windowNanos > 0 ? windowNanos : -1;
    policyRateNanos =
        windowNanos > 0 ? schedule.clamp(QuotaReading.ceilDiv(windowNanos, quota)) : 0;
    if (remaining >= 0 && remaining < quota && spent(sentAtNanos, quota - remaining)) {
      // The server counts more of the window's quota spent than this pacer started in it.
      seen(sentAtNanos, holdFor(windowNanos > 0 ? windowNanos : resetNanos));
    }
  }

  /**
   * Whether the refusal of the start sent at {@code sentAtNanos}, answered at {@code nowNanos}, is
   * excused: another caller's spending explains it (with a policy, a refusal before this pacer
   * started the policy's quota in its window; without one, a refusal of a start the last quota
   * reading still allowed), the headroom is in force, and none was excused in this window.
   */
  boolean excuses(long sentAtNanos, long nowNanos) {
    return notice(sentAtNanos, nowNanos) && excuse(nowNanos);
  }

  /**
   * The interval that leaves the other caller its headroom at {@code now}, 0 when none is left: a
   * share of the policy's rate, or of the quota's while one is in force ({@code quotaInForce}).
   */
  long headroomNanos(long nowNanos, boolean quotaInForce) {
    if (nowNanos < sharedUntil) {
      long rate = policyRateNanos > 0 ? policyRateNanos : quotaInForce ? reading.rateNanos() : 0;
      if (rate > 0) {
        return schedule.clamp((long) (rate / (1 - SHARED_HEADROOM)));
      }
    }
    return 0;
  }

  /** Whether someone else spends the account, told by a throttle; the headroom holds from then. */
  private boolean notice(long sentAtNanos, long nowNanos) {
    if (policyQuota > 0 && policyQuota < Long.MAX_VALUE && spent(sentAtNanos, policyQuota + 1)) {
      // Refused before this pacer spent the policy's quota (the refused start is its own too).
      seen(nowNanos, holdFor(windowNanos()));
      return headroomAt(nowNanos);
    }
    long reset = reading.resetAllowing(sentAtNanos);
    if (reset < 0) {
      return false;
    }
    seen(nowNanos, holdFor(reset));
    return headroomAt(nowNanos);
  }

  /**
   * Whether another caller spent some of the policy's quota: this pacer's starts that the server
   * may have counted with the attempt sent at {@code sentAtNanos} are fewer than the {@code used}
   * it counted. They are those since one window and a quarter before it (a start a little older may
   * have reached the server a little later) and every later one, counted only when all of them are
   * remembered; without a known window, all starts, as long as none is forgotten.
   */
  private boolean spent(long sentAtNanos, long used) {
    if (policyQuota <= 0) {
      return false;
    }
    long from = NEVER;
    if (policyWindowNanos > 0) {
      long span =
          policyWindowNanos > Long.MAX_VALUE / 5 * 4 ? Long.MAX_VALUE : policyWindowNanos / 4 * 5;
      from = sentAtNanos < NEVER + span ? NEVER : sentAtNanos - span;
    }
    return starts.remembersAllAfter(from) && starts.startsAfter(from) < used;
  }

  /** Whether the headroom is in force at {@code now}, with a rate to leave. */
  private boolean headroomAt(long nowNanos) {
    return nowNanos < sharedUntil && (policyRateNanos > 0 || reading.inForceAt(nowNanos));
  }

  /**
   * Whether a refusal that another caller's spending explains may leave the rate as it is: one in a
   * window of the policy (or of the quota's reset) is; more say the limit is lower than stated.
   */
  private boolean excuse(long nowNanos) {
    long window = windowNanos();
    if (window <= 0 || (lastExcused != NEVER && nowNanos - lastExcused < window)) {
      return false;
    }
    lastExcused = nowNanos;
    return true;
  }

  /**
   * Another caller was seen at {@code atNanos}: leave it headroom for {@code hold}, or twice the
   * time since it was seen before if longer (a caller that comes back every 30 s keeps it).
   */
  private void seen(long atNanos, long hold) {
    if (seenAt != NEVER && atNanos > seenAt) {
      hold = Math.max(hold, 2 * Math.min(Long.MAX_VALUE / 4, atNanos - seenAt));
    }
    seenAt = Math.max(seenAt, atNanos);
    sharedUntil = Math.max(sharedUntil, Nanos.saturatedAdd(atNanos, hold));
  }

  /** The window another caller is reckoned in: the policy's, else the latest quota's reset. */
  private long windowNanos() {
    return policyWindowNanos > 0 ? policyWindowNanos : reading.resetNanos();
  }

  /** How long the headroom holds once another caller is seen: that many windows. */
  private static long holdFor(long windowNanos) {
    return windowNanos > Long.MAX_VALUE / SHARED_QUOTA_HOLD
        ? Long.MAX_VALUE
        : windowNanos * SHARED_QUOTA_HOLD;
  }
}
