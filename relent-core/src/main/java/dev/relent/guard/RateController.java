package dev.relent.guard;

/**
 * The rate controller of an {@link AdaptivePacer}: CUBIC or AIMD by {@link ThrottleRounds rounds}
 * of starts (the rate falls from the rate the round was sent at by the share refused and the
 * controller's factor, and grows with each answer), or {@link LimitBracket} for {@link
 * Pacer.Congestion#BRACKET}. It publishes its interval to the {@link Schedule}; one controller
 * serves a pacer whether its state is shared or local.
 *
 * <p>Not thread-safe: the pacer calls it under its lock. Allocates only at construction.
 */
final class RateController {
  private static final long NEVER = StartHistory.NEVER;

  /** CUBIC's multiplicative decrease and scale constant, as in the AWS SDKs. */
  static final double CUBIC_BETA = 0.7;

  static final double CUBIC_C = 0.4;

  /** AIMD: the decrease, relative to the rate the round was refused at. */
  static final double AIMD_BETA = 0.9;

  /** AIMD: how close below the refused rate the recovery goes, as a share of that rate. */
  static final double AIMD_MARGIN = 0.02;

  /** AIMD: the recovery per answer, as a share of the refused rate. */
  static final double AIMD_RECOVERY_PER_ANSWER = 0.01;

  /**
   * AIMD: the probe's growth per answer, times the answers it takes to double; the probe starts at
   * this over that many answers.
   */
  static final double AIMD_PROBE = 0.0032;

  /** AIMD: the fewest answers over which the probe's growth doubles. */
  static final long AIMD_PROBE_DOUBLING_MIN = 16;

  /**
   * AIMD: a refusal within this share of the last refused rate finds the same limit again; each
   * such confirmation in a row doubles the probe's patience, up to {@value #AIMD_MAX_CONFIRMED}
   * doublings.
   */
  static final double AIMD_SAME_LIMIT = 0.05;

  static final int AIMD_MAX_CONFIRMED = 2;

  private final boolean cubic;

  /** The controller of {@link Pacer.Congestion#BRACKET}; null for the other controllers. */
  private final LimitBracket bracket;

  private final StartHistory starts;
  private final Schedule schedule;

  private boolean pacing;
  private double rate;
  private double wMax;
  private double k;
  private long epoch;
  private long lastDecrease = NEVER;
  private final ThrottleRounds rounds = new ThrottleRounds();
  private long probeAnswers;
  private int confirmed;

  RateController(
      Pacer.Congestion congestion,
      long ceilingNanos,
      long slowestNanos,
      StartHistory starts,
      Schedule schedule) {
    this.cubic = congestion == Pacer.Congestion.CUBIC;
    this.bracket =
        congestion == Pacer.Congestion.BRACKET
            ? new LimitBracket(ceilingNanos, slowestNanos)
            : null;
    this.starts = starts;
    this.schedule = schedule;
    // With a ceiling, start at it; without one, do not pace until the server says something.
    this.pacing = ceilingNanos > 1;
    this.rate = pacing ? (double) AdaptivePacer.SECOND / ceilingNanos : 0;
    this.wMax = rate;
  }

  /**
   * An answer to the start sent at {@code sentAtNanos} was not a throttle: the rate grows, never
   * above twice the measured send rate. Returns whether the bracket now paces, so that the start
   * after the newest may be spaced at its interval.
   */
  boolean onAccepted(long sentAtNanos) {
    if (bracket != null) {
      bracket.onAccepted(sentAtNanos);
      if (bracket.interval() > 0) {
        pacing = true;
        publish();
        return true;
      }
      return false;
    }
    if (pacing && (lastDecrease == NEVER || sentAtNanos >= lastDecrease)) {
      double grown = cubic ? cubic(sentAtNanos) : aimd();
      if (starts.measured() > 0) {
        grown = Math.min(grown, 2 * starts.measured());
      }
      // Growth never lowers the rate: a cap below the rate only stops it growing.
      if (grown > rate) {
        rate = grown;
        publish();
      }
    }
    return false;
  }

  /**
   * BRACKET on a shared state: the fleet's controller answered ({@link FleetBracket}) with its
   * interval (0 while it does not pace), after an accept or, if {@code throttledAt} is not {@link
   * StartHistory#NEVER}, a throttle answered then, that {@code slowed} the pace or not. Returns as
   * {@link #onAccepted} or {@link #onThrottled} do.
   */
  boolean onFleetAnswer(long interval, long throttledAt, boolean slowed) {
    if (throttledAt == NEVER && interval <= 0) {
      return false;
    }
    pacing = true;
    schedule.learn(interval);
    if (throttledAt == NEVER) {
      return true;
    }
    if (slowed) {
      lastDecrease = throttledAt;
    }
    return slowed;
  }

  /**
   * The start sent at {@code sentAtNanos} was refused, answered at {@code nowNanos}. Returns
   * whether the interval grew, so that the starts booked at the old one are booked again.
   */
  boolean onThrottled(long sentAtNanos, long nowNanos) {
    if (bracket != null) {
      pacing = true;
      boolean slowed = bracket.onThrottled(sentAtNanos, nowNanos);
      publish();
      if (slowed) {
        lastDecrease = nowNanos;
      }
      return slowed;
    }
    ThrottleRounds.Refusal refusal = rounds.classify(sentAtNanos);
    if (refusal == ThrottleRounds.Refusal.SAME_ROUND) {
      // Answered after the round's first refusal: the share of the round's starts refused says
      // how far above the limit it was sent.
      return decrease(nowNanos);
    }
    if (refusal == ThrottleRounds.Refusal.ANSWERED) {
      return false;
    }
    double sent = starts.sendRate();
    double base;
    boolean burst = !pacing;
    if (burst) {
      // Starts nobody paced: fall from what was sent, as the AWS SDKs do, but counted over the
      // last half second, wherever a bucket boundary fell; the share refused is learned from the
      // rounds that are paced.
      base = Math.max(sent, starts.lastHalfSecondRate(nowNanos));
      base = base > 0 ? base : rate;
    } else if (starts.newestWaited() || !(sent > 0)) {
      // The pacer set the pace: it sent at its rate. A send rate measured in half-second buckets
      // is too coarse to fall from at a few starts a second, and counts any pause as idle.
      base = rate;
    } else {
      base = Math.min(rate, sent);
    }
    long count = burst ? 1 : Math.max(1, starts.startsBetween(rounds.previousEnd(), sentAtNanos));
    rounds.begin(
        Math.max(base, schedule.slowestRate()), sentAtNanos, nowNanos, starts.newest(), count);
    pacing = true;
    return decrease(nowNanos);
  }

  /**
   * Falls from the round's base by the share of its starts not refused, then by the controller's
   * factor; that share times the base is the new {@code wMax}. A further refusal of the round never
   * raises the rate. Returns whether the rate fell.
   */
  private boolean decrease(long nowNanos) {
    double target = Math.max(rounds.base() * rounds.acceptedShare(), schedule.slowestRate());
    double next = cubic ? CUBIC_BETA * target : AIMD_BETA * target;
    if (rounds.throttles() > 1 && next >= rate) {
      return false;
    }
    if (rounds.throttles() == 1) {
      // A new round refused near the rate the last one was: the same limit, found again.
      boolean same = wMax > 0 && Math.abs(target - wMax) <= AIMD_SAME_LIMIT * wMax;
      confirmed = same ? Math.min(AIMD_MAX_CONFIRMED, confirmed + 1) : 0;
    }
    wMax = target;
    if (cubic) {
      k = Math.cbrt(wMax * (1 - CUBIC_BETA) / CUBIC_C);
      epoch = nowNanos;
    }
    rate = next;
    lastDecrease = nowNanos;
    probeAnswers = 0;
    // Every start reserved by now was reserved at a rate this decrease corrects, even one that
    // starts later: its throttle is answered already.
    rounds.extendTo(Math.max(nowNanos, starts.newest()));
    publish();
    return true;
  }

  /** CUBIC's rate at {@code at}: {@code C (t - K)^3 + wMax}, t in seconds since the epoch. */
  private double cubic(long at) {
    double t = Math.max(0, at - epoch) / (double) AdaptivePacer.SECOND;
    double d = t - k;
    return CUBIC_C * d * d * d + wMax;
  }

  /**
   * AIMD's rate after one more answer: back to {@code (1 - }{@value #AIMD_MARGIN}{@code ) wMax} by
   * {@value #AIMD_RECOVERY_PER_ANSWER} of {@code wMax} per answer, then a probe above it whose
   * growth doubles every D answers, D the starts of the round that set {@code wMax} (at least
   * {@value #AIMD_PROBE_DOUBLING_MIN}), doubled for each refusal in a row that found the same
   * limit. Counted in answers, not seconds: the same at 2 requests a second as at 200.
   */
  private double aimd() {
    double plateau = (1 - AIMD_MARGIN) * wMax;
    if (rate < plateau) {
      probeAnswers = 0;
      return Math.min(plateau, rate + AIMD_RECOVERY_PER_ANSWER * wMax);
    }
    // As patient as the evidence is long: a rate refused after a long round is probed gently, one
    // learned from a burst or a short round quickly.
    double doubling = Math.max(AIMD_PROBE_DOUBLING_MIN, rounds.starts()) * (1L << confirmed);
    double growth = AIMD_PROBE / doubling * Math.pow(2, Math.min(64, probeAnswers++ / doubling));
    // A start a nanosecond at most, so that the rate stays finite however long no throttle comes.
    return Math.min((double) AdaptivePacer.SECOND, rate * (1 + growth));
  }

  /** Publishes the interval the controller's rate gives; the ceiling until it paces. */
  private void publish() {
    if (bracket != null) {
      schedule.learn(bracket.interval());
      return;
    }
    schedule.learn(pacing ? Schedule.intervalOf(rate) : 0);
  }
}
