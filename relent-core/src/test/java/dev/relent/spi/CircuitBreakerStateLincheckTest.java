package dev.relent.spi;

import dev.relent.spi.CircuitBreakerState.Change;
import dev.relent.spi.CircuitBreakerState.Config;
import dev.relent.spi.CircuitBreakerState.Phase;
import dev.relent.spi.CircuitBreakerState.Snapshot;
import java.util.ArrayDeque;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.LongGen;

/**
 * Linearizability of {@link InMemoryCircuitBreakerState} against the rules written out in {@link
 * CircuitBreakerState}, including its two lock-free fast paths (a permission while closed, a
 * success while closed with a full window of successes): every permission, transition and snapshot
 * is what some sequential order of the same calls gives.
 *
 * <p>The breaker counts the last 3 calls, opens at 50 % failures from 2 calls, stays open 4 ns and
 * closes after 2 probes; times are operation parameters from 0 to 8, so open periods end within a
 * scenario.
 */
@Param(name = "now", gen = LongGen.class, conf = "0:8")
public class CircuitBreakerStateLincheckTest extends Linearizability {
  static final Config CONFIG = new Config(3, 0, 0, 2, 50.0, 4, 2);

  private final CircuitBreakerState state = new InMemoryCircuitBreakerState();

  /** Lincheck makes one instance, with a fresh state, per scenario. */
  public CircuitBreakerStateLincheckTest() {
    super(Specification.class);
  }

  @Operation
  public long tryAcquirePermission(@Param(name = "now") long now) {
    return state.tryAcquirePermission(now, CONFIG);
  }

  @Operation
  public Change onSuccess(@Param(name = "now") long now) {
    return state.onSuccess(now, CONFIG);
  }

  @Operation
  public Change onFailure(@Param(name = "now") long now) {
    return state.onFailure(now, CONFIG);
  }

  @Operation
  public void releasePermission() {
    state.releasePermission(CONFIG);
  }

  @Operation
  public Snapshot snapshot(@Param(name = "now") long now) {
    return state.snapshot(now, CONFIG);
  }

  /**
   * The rules of {@link CircuitBreakerState}, one call at a time, with the count window as a plain
   * queue of the last outcomes and no fast path.
   */
  public static final class Specification {
    private final ArrayDeque<Boolean> window = new ArrayDeque<>(); // true: a failure
    private Phase mode = Phase.CLOSED;
    private long openedAt;
    private int inFlight;
    private int succeeded;

    /** Lincheck makes one instance per scenario. */
    public Specification() {}

    public long tryAcquirePermission(long now) {
      if (mode == Phase.CLOSED) {
        return 0;
      }
      boolean halfOpened = false;
      if (mode == Phase.OPEN) {
        long left = CONFIG.openDurationNanos() - (now - openedAt);
        if (left > 0) {
          return left;
        }
        enter(Phase.HALF_OPEN);
        halfOpened = true;
      }
      if (inFlight + succeeded < CONFIG.halfOpenProbes()) {
        inFlight++;
        return halfOpened ? CircuitBreakerState.PERMITTED_AND_HALF_OPENED : 0;
      }
      return CONFIG.openDurationNanos();
    }

    public Change onSuccess(long now) {
      if (mode == Phase.CLOSED) {
        return record(false, now);
      }
      if (mode == Phase.HALF_OPEN && inFlight > 0) {
        inFlight--;
        succeeded++;
        if (succeeded >= CONFIG.halfOpenProbes()) {
          window.clear();
          enter(Phase.CLOSED);
          return Change.HALF_OPEN_TO_CLOSED;
        }
      }
      return null;
    }

    public Change onFailure(long now) {
      if (mode == Phase.CLOSED) {
        return record(true, now);
      }
      if (mode == Phase.HALF_OPEN && inFlight > 0) {
        openedAt = now;
        enter(Phase.OPEN);
        return Change.HALF_OPEN_TO_OPEN;
      }
      return null;
    }

    public void releasePermission() {
      if (mode == Phase.HALF_OPEN && inFlight > 0) {
        inFlight--;
      }
    }

    public Snapshot snapshot(long now) {
      Change change = null;
      if (mode == Phase.OPEN && now - openedAt >= CONFIG.openDurationNanos()) {
        enter(Phase.HALF_OPEN);
        change = Change.OPEN_TO_HALF_OPEN;
      }
      long left = mode == Phase.OPEN ? CONFIG.openDurationNanos() - (now - openedAt) : 0;
      return new Snapshot(mode, window.size(), failures(), inFlight, succeeded, change, left);
    }

    private Change record(boolean failure, long now) {
      if (window.size() == CONFIG.windowCalls()) {
        window.removeFirst();
      }
      window.addLast(failure);
      int calls = window.size();
      long failures = failures();
      if (calls >= CONFIG.minimumCalls()
          && failures * 100.0 >= CONFIG.failureRateThreshold() * calls) {
        openedAt = now;
        enter(Phase.OPEN);
        return Change.CLOSED_TO_OPEN;
      }
      return null;
    }

    private long failures() {
      return window.stream().filter(f -> f).count();
    }

    private void enter(Phase to) {
      mode = to;
      inFlight = 0;
      succeeded = 0;
    }
  }
}
