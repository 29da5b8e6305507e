package dev.relent.spi;

import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.LongGen;

/**
 * Linearizability of {@link InMemoryPacerState} against the rules written out in {@link
 * PacerState}: with reservations, refunds and pauses racing, every wait handed out, every refusal
 * and every refund is what some sequential order of the same calls gives.
 *
 * <p>Time is an operation parameter from a small domain (ticker readings 0 to 6, not in order
 * between threads, as when a caller read its ticker before another's call), so that schedules
 * collide: an interval of 2, a tolerance of 0 to 2, waits up to 4 accepted.
 */
@Param(name = "now", gen = LongGen.class, conf = "0:6")
@Param(name = "tolerance", gen = LongGen.class, conf = "0:2")
@Param(name = "maxWait", gen = LongGen.class, conf = "0:4")
public class PacerStateLincheckTest extends Linearizability {
  private static final long INTERVAL = 2;

  private final PacerState state = new InMemoryPacerState();

  /** Lincheck makes one instance, with a fresh state, per scenario. */
  public PacerStateLincheckTest() {
    super(Specification.class);
  }

  @Operation
  public long reserve(
      @Param(name = "now") long now,
      @Param(name = "tolerance") long tolerance,
      @Param(name = "maxWait") long maxWait) {
    return state.reserve(now, INTERVAL, tolerance, maxWait);
  }

  @Operation
  public boolean refund(@Param(name = "now") long reservedAt) {
    return state.refund(reservedAt, INTERVAL);
  }

  @Operation
  public void pauseUntil(@Param(name = "now") long until) {
    state.pauseUntil(until);
  }

  @Operation
  public long pausedUntil() {
    return state.pausedUntil();
  }

  /**
   * The reservation rules of {@link PacerState}, one call at a time, in plain arithmetic: readings
   * here are small, so nothing saturates.
   */
  public static final class Specification {
    private Long tat; // null: no reservation yet
    private Long lastStart;
    private long lastStartCount;
    private Long pausedUntil;

    /** Lincheck makes one instance per scenario. */
    public Specification() {}

    public long reserve(long now, long tolerance, long maxWait) {
      long start = now;
      if (pausedUntil != null) {
        start = Math.max(start, pausedUntil);
      }
      if (tat != null) {
        start = Math.max(start, tat - tolerance);
      }
      long wait = start - now;
      if (wait > maxWait) {
        return -wait;
      }
      tat = (tat == null ? start : Math.max(tat, start)) + INTERVAL;
      if (lastStart != null && start == lastStart) {
        lastStartCount++;
      } else {
        lastStart = start;
        lastStartCount = 1;
      }
      return wait;
    }

    public boolean refund(long reservedAt) {
      if (lastStart == null || reservedAt != lastStart || lastStartCount == 0) {
        return false;
      }
      tat -= INTERVAL;
      lastStartCount--;
      return true;
    }

    public void pauseUntil(long until) {
      pausedUntil = pausedUntil == null ? until : Math.max(pausedUntil, until);
    }

    public long pausedUntil() {
      return pausedUntil == null ? Long.MIN_VALUE : pausedUntil;
    }
  }
}
