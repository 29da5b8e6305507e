package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.internal.SpinLocked;
import dev.relent.spi.PacerState;
import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The adaptive {@link Pacer}: GCRA over a {@link PacerState} like {@link PacerImpl}, at an interval
 * it learns. It is a coordinator of named parts, whose rules are told under "How the adaptive pacer
 * learns" in docs/core.md:
 *
 * <ul>
 *   <li>{@link StartHistory}: the recent starts and the measured send rate;
 *   <li>{@link QuotaReading}: the quota's floor interval until its reset ({@link #observeQuota}),
 *       and with {@link WindowLength} the end of a hold of a window with none left;
 *   <li>{@link OtherCaller}: another caller on the account, left a headroom while it is seen;
 *   <li>{@link RateController}: CUBIC, AIMD or {@link LimitBracket}, fed by throttles ({@link
 *       #onThrottled}) and answers ({@link #onAccepted});
 *   <li>{@link Schedule}: the bounds, the published intervals and the re-spacing of booked starts;
 *   <li>{@link FleetBracket}: with BRACKET on a shared state, the fleet's one controller, kept in
 *       the state, which every process's answers update.
 * </ul>
 *
 * <p>Thread-safe: the parts change only under this object's spin lock, held for a few arithmetic
 * operations; {@link #tryAcquire} reads volatile intervals. Nothing is allocated after construction
 * but for the fleet's round trips (BRACKET on a state with {@link PacerState#updateControl}).
 */
final class AdaptivePacer extends SpinLocked implements Pacer {
  static final long SECOND = 1_000_000_000L;

  private final Pacer.Congestion congestion;
  private final int burst;
  private final PacerState state;
  private final TimeSource time;

  // The parts: the schedule's published intervals are read without the lock, the rest under it.
  private final StartHistory starts = new StartHistory();
  private final Schedule schedule;
  private final QuotaReading reading;
  private final OtherCaller other;
  private final RateController controller;
  private final FleetBracket fleet;

  AdaptivePacer(
      Pacer.Congestion congestion,
      long ceilingNanos,
      long slowestNanos,
      int burst,
      PacerState state,
      TimeSource time) {
    this.congestion = congestion;
    this.burst = burst;
    this.state = state;
    this.time = time;
    this.schedule = new Schedule(ceilingNanos, slowestNanos, state, starts);
    this.reading =
        new QuotaReading(
            starts, schedule, congestion == Pacer.Congestion.BRACKET, !state.isShared());
    this.other = new OtherCaller(starts, reading, schedule);
    this.controller = new RateController(congestion, ceilingNanos, slowestNanos, starts, schedule);
    this.fleet =
        congestion == Pacer.Congestion.BRACKET && state.isShared()
            ? new FleetBracket(ceilingNanos, slowestNanos, state, schedule)
            : null;
  }

  @Override
  public long tryAcquire(long nowNanos, long maxWaitNanos) {
    PacerImpl.requireMaxWait(maxWaitNanos);
    long interval = intervalAt(nowNanos);
    long tolerance = burst == 1 ? 0 : Nanos.saturatedMultiply(burst - 1L, interval);
    long wait = state.reserve(nowNanos, interval, tolerance, maxWaitNanos);
    if (wait >= 0) {
      schedule.reservedAt(interval);
      lock();
      starts.record(Nanos.saturatedAdd(nowNanos, wait), wait > 0);
      unlock();
    }
    return wait;
  }

  /**
   * With {@link Pacer.Congestion#BRACKET} on this process's own schedule, one booking at a time
   * ({@link Schedule#deferNanos}).
   */
  @Override
  public long deferNanos(long nowNanos) {
    if (congestion != Pacer.Congestion.BRACKET || burst > 1 || state.isShared()) {
      return 0;
    }
    lock();
    long newest = starts.newest();
    unlock();
    return schedule.deferNanos(newest, nowNanos);
  }

  @Override
  public void refund(long reservedAtNanos) {
    lock();
    try {
      if (state.refund(reservedAtNanos, schedule.lastReservedNanos())) {
        starts.forgetNewest(reservedAtNanos);
      }
    } finally {
      unlock();
    }
  }

  @Override
  public void pauseUntil(long untilNanos) {
    state.pauseUntil(untilNanos);
  }

  @Override
  public void observeQuota(long sentAtNanos, long remaining, long resetNanos) {
    observeQuota(sentAtNanos, remaining, resetNanos, -1, -1);
  }

  @Override
  public void observeQuota(
      long sentAtNanos, long remaining, long resetNanos, long quota, long windowNanos) {
    lock();
    try {
      if (quota > 0 && !state.isShared()) {
        // A shared state's other processes cannot be told from a stranger: no policy then.
        other.readPolicy(sentAtNanos, remaining, resetNanos, quota, windowNanos);
      }
      if (remaining >= 0 && resetNanos > 0) {
        reading.read(sentAtNanos, time.ticker().read(), remaining, resetNanos, quota);
      }
    } finally {
      unlock();
    }
  }

  @Override
  public void onAccepted(long sentAtNanos) {
    // The fleet's controller is a round trip away: updated before the lock is taken.
    long fleetInterval = fleet == null ? -1 : fleet.onAccepted(sentAtNanos);
    lock();
    try {
      if (fleetInterval >= 0
          ? controller.onFleetAnswer(fleetInterval, StartHistory.NEVER, false)
          : controller.onAccepted(sentAtNanos)) {
        long learned = schedule.learnedNanos();
        schedule.respaceTo(
            reading.inForceAt(sentAtNanos) ? Math.max(learned, reading.floorNanos()) : learned);
      }
    } finally {
      unlock();
    }
    if (fleet != null) {
      fleet.share(fleetInterval);
    }
  }

  @Override
  public void onThrottled(long sentAtNanos, long nowNanos) {
    lock();
    try {
      reading.refused(sentAtNanos);
      if (reading.explainsRefusal(sentAtNanos) || other.excuses(sentAtNanos, nowNanos)) {
        return; // the window's hold, or the headroom left to the other caller, answers it
      }
    } finally {
      unlock();
    }
    // The fleet's controller, a round trip away (this process's own if it cannot be updated).
    long fleetInterval = fleet == null ? -1 : fleet.onThrottled(sentAtNanos, nowNanos);
    lock();
    try {
      if (fleetInterval >= 0
          ? controller.onFleetAnswer(fleetInterval, nowNanos, fleet.slowed())
          : controller.onThrottled(sentAtNanos, nowNanos)) {
        schedule.shareAndRespace();
      }
    } finally {
      unlock();
    }
    if (fleet != null) {
      fleet.share(fleetInterval);
    }
  }

  /** The interval in force at {@code now}: the controller's, under the quota's and the headroom. */
  private long intervalAt(long nowNanos) {
    long interval = schedule.learnedNanos();
    boolean quotaInForce = reading.inForceAt(nowNanos);
    if (quotaInForce) {
      interval = Math.max(interval, reading.floorNanos());
    }
    return Math.max(interval, other.headroomNanos(nowNanos, quotaInForce));
  }

  @Override
  public boolean isAdaptive() {
    return true;
  }

  @Override
  public boolean holdsReservedStarts() {
    return true;
  }

  @Override
  public boolean holdsEmptyWindows() {
    return reading.holding();
  }

  @Override
  public long pausedUntilNanos() {
    return state.pausedUntil();
  }

  @Override
  public Duration interval() {
    return Duration.ofNanos(intervalAt(time.ticker().read()));
  }

  @Override
  public int burst() {
    return burst;
  }

  @Override
  public Optional<Instant> pausedUntil() {
    return PacerImpl.pausedUntil(state, time);
  }

  @Override
  public Duration pauseRemaining() {
    return Duration.ofNanos(PacerImpl.pauseNanosLeft(state, time));
  }

  @Override
  public boolean sharesState() {
    return state.isShared();
  }

  @Override
  public String toString() {
    long ceiling = schedule.ceilingNanos();
    return "Pacer[adaptive="
        + congestion.name().toLowerCase(java.util.Locale.ROOT)
        + ", interval="
        + Durations.format(intervalAt(time.ticker().read()))
        + ", ceiling="
        + (ceiling <= 1 ? "none" : Durations.format(ceiling))
        + ", burst="
        + burst
        + "]";
  }
}
