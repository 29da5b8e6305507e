package dev.relent.guard;

import dev.relent.spi.PacerState;

/**
 * The {@link Pacer.Congestion#BRACKET} controller of a fleet: one {@link LimitBracket} kept in a
 * shared {@link PacerState} ({@link PacerState#updateControl}), which every process's pacer updates
 * with its own answers, so that the fleet learns one interval from all of them. Each update
 * restores the controller from the store, applies one answer on the store's clock and writes it
 * back.
 *
 * <p>Thread-safe: one update at a time per instance (a monitor, since an update is a round trip to
 * the store); the answers of other instances and processes are serialised by the store.
 */
final class FleetBracket {
  private final LimitBracket bracket;
  private final PacerState state;
  private final Schedule schedule;
  private boolean slowed;

  /** The pacer's interval last shared with every reservation on the state. */
  private volatile long shared;

  FleetBracket(long fastest, long slowest, PacerState state, Schedule schedule) {
    this.bracket = new LimitBracket(fastest, slowest);
    this.state = state;
    this.schedule = schedule;
  }

  /**
   * After an update that gave {@code fleetInterval}: every reservation on the shared state uses the
   * pacer's interval as soon as it changes, not only once each process has heard an answer of its
   * own ({@link Schedule#share}). A round trip: call it outside the pacer's lock.
   */
  void share(long fleetInterval) {
    long learned = schedule.learnedNanos();
    boolean slowDown;
    synchronized (this) {
      slowDown = slowed; // the pacer's re-spacing shared it already
    }
    if (fleetInterval > 0 && learned != shared) {
      shared = learned;
      if (!slowDown) {
        schedule.share(learned);
      }
    }
  }

  /**
   * The answer to a start sent at {@code sentAt} (this process's clock) was not a throttle.
   *
   * @return the fleet's interval after it (0 while it does not pace), or -1 if the store could not
   *     be updated: then nothing is known beyond what was
   */
  synchronized long onAccepted(long sentAt) {
    return update(sentAt, StartHistory.NEVER);
  }

  /**
   * The start sent at {@code sentAt} was throttled, answered at {@code now} (this process's clock).
   *
   * @return as {@link #onAccepted}; {@link #slowed()} tells whether the pace slowed by more than a
   *     nudge
   */
  synchronized long onThrottled(long sentAt, long now) {
    return update(sentAt, now);
  }

  /** Whether the last {@link #onThrottled} slowed the pace by more than a nudge. */
  synchronized boolean slowed() {
    return slowed;
  }

  /**
   * One answer applied to the store's controller on the store's clock: an accept, or a throttle
   * answered at {@code throttledAt} if that is not {@link StartHistory#NEVER}. Under the monitor.
   */
  private long update(long sentAt, long throttledAt) {
    slowed = false;
    long[] written =
        state.updateControl(
            (current, offset) -> {
              bracket.restore(current);
              if (throttledAt == StartHistory.NEVER) {
                bracket.onAccepted(sentAt + offset);
              } else {
                slowed = bracket.onThrottled(sentAt + offset, throttledAt + offset);
              }
              return bracket.snapshot();
            });
    return written == null ? -1 : bracket.interval();
  }
}
