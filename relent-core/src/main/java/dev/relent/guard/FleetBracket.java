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
  private long interval;
  private boolean slowed;

  FleetBracket(long fastest, long slowest, PacerState state) {
    this.bracket = new LimitBracket(fastest, slowest);
    this.state = state;
  }

  /**
   * The answer to a start sent at {@code sentAt} (this process's clock) was not a throttle.
   *
   * @return the fleet's interval after it (0 while it does not pace), or -1 if the store could not
   *     be updated: then nothing is known beyond what was
   */
  synchronized long onAccepted(long sentAt) {
    long[] written =
        state.updateControl(
            (current, offset) -> {
              bracket.restore(current);
              bracket.onAccepted(sentAt + offset);
              return bracket.snapshot();
            });
    return written == null ? -1 : (interval = bracket.interval());
  }

  /**
   * The start sent at {@code sentAt} was throttled, answered at {@code now} (this process's clock).
   *
   * @return as {@link #onAccepted}; {@link #slowed()} tells whether the pace slowed by more than a
   *     nudge
   */
  synchronized long onThrottled(long sentAt, long now) {
    slowed = false;
    long[] written =
        state.updateControl(
            (current, offset) -> {
              bracket.restore(current);
              slowed = bracket.onThrottled(sentAt + offset, now + offset);
              return bracket.snapshot();
            });
    return written == null ? -1 : (interval = bracket.interval());
  }

  /** Whether the last {@link #onThrottled} slowed the pace by more than a nudge. */
  synchronized boolean slowed() {
    return slowed;
  }

  /** The fleet's interval at the last update of this instance; 0 while it does not pace. */
  synchronized long interval() {
    return interval;
  }
}
