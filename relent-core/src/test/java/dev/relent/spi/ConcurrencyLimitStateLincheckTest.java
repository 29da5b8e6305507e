package dev.relent.spi;

import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;

/**
 * Linearizability of {@link InMemoryConcurrencyLimitState}: concurrent acquires never take more
 * than {@code max} slots, a release without a slot in use fails and changes nothing, and every
 * count seen is one a sequential run could give.
 */
@Param(name = "max", gen = IntGen.class, conf = "1:3")
public class ConcurrencyLimitStateLincheckTest extends Linearizability {
  private final ConcurrencyLimitState state = new InMemoryConcurrencyLimitState();

  /** Lincheck makes one instance, with a fresh state, per scenario. */
  public ConcurrencyLimitStateLincheckTest() {
    super(Specification.class);
  }

  @Operation
  public boolean tryAcquire(@Param(name = "max") int max) {
    return state.tryAcquire(max);
  }

  @Operation
  public void release() {
    state.release();
  }

  @Operation
  public int inUse() {
    return state.inUse();
  }

  /** The rules of {@link ConcurrencyLimitState}, one call at a time. */
  public static final class Specification {
    private int inUse;

    /** Lincheck makes one instance per scenario. */
    public Specification() {}

    public boolean tryAcquire(int max) {
      if (inUse < max) {
        inUse++;
        return true;
      }
      return false;
    }

    public void release() {
      if (inUse == 0) {
        throw new IllegalStateException("no slot is in use");
      }
      inUse--;
    }

    public int inUse() {
      return inUse;
    }
  }
}
