package dev.relent.spi;

import java.util.ArrayList;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.LongGen;

/**
 * Linearizability of {@link InMemoryRetryBudgetState} against the rules of {@link
 * RetryBudgetState}: racing retries never take more than the window allows, and every count seen is
 * one a sequential order of the calls gives, also while the window slides.
 *
 * <p>The window is 3 buckets of 10 ns; one retry is allowed with no first attempt and one more per
 * two first attempts; times are operation parameters from 0 to 40 (not in order between threads),
 * so calls fall into the same bucket, a neighbouring one, or one that pushes others out.
 */
@Param(name = "now", gen = LongGen.class, conf = "0:40")
public class RetryBudgetStateLincheckTest extends Linearizability {
  static final RetryBudgetState.Config CONFIG = new RetryBudgetState.Config(10, 3, 500_000, 1);

  private final RetryBudgetState state = new InMemoryRetryBudgetState();

  /** Lincheck makes one instance, with a fresh state, per scenario. */
  public RetryBudgetStateLincheckTest() {
    super(Specification.class);
  }

  @Operation
  public void recordFirstAttempt(@Param(name = "now") long now) {
    state.recordFirstAttempt(now, CONFIG);
  }

  @Operation
  public boolean tryAcquireRetry(@Param(name = "now") long now) {
    return state.tryAcquireRetry(now, CONFIG);
  }

  @Operation
  public long firstAttempts(@Param(name = "now") long now) {
    return state.firstAttempts(now, CONFIG);
  }

  @Operation
  public long retries(@Param(name = "now") long now) {
    return state.retries(now, CONFIG);
  }

  /**
   * The rules of {@link RetryBudgetState} kept as a list of events, each with its bucket: the
   * window ends at the newest bucket any call has seen and holds the events of its last 3 buckets.
   */
  public static final class Specification {
    private final List<long[]> events =
        new ArrayList<>(); // {bucket, 0 = first attempt | 1 = retry}
    private long newest = Long.MIN_VALUE;

    /** Lincheck makes one instance per scenario. */
    public Specification() {}

    public void recordFirstAttempt(long now) {
      long bucket = see(now);
      if (inWindow(bucket)) {
        events.add(new long[] {bucket, 0});
      }
    }

    public boolean tryAcquireRetry(long now) {
      see(now);
      if (count(1) >= RetryBudgetState.limit(count(0), CONFIG)) {
        return false;
      }
      events.add(new long[] {newest, 1});
      return true;
    }

    public long firstAttempts(long now) {
      see(now);
      return count(0);
    }

    public long retries(long now) {
      see(now);
      return count(1);
    }

    private long see(long now) {
      long bucket = Math.floorDiv(now, CONFIG.bucketNanos());
      newest = Math.max(newest, bucket);
      return bucket;
    }

    private boolean inWindow(long bucket) {
      return bucket > newest - CONFIG.buckets();
    }

    private long count(long kind) {
      return events.stream().filter(e -> e[1] == kind && inWindow(e[0])).count();
    }
  }
}
