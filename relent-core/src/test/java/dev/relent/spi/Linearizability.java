package dev.relent.spi;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * The base of the {@code *LincheckTest}s: Lincheck runs the subclass's {@code @Operation}s, which
 * call one in-memory state, and checks every concurrent history against a separately written
 * sequential specification: the results of the operations must be those of some order of them that
 * respects real time.
 *
 * <p>Model checking explores thread switches at every shared-memory access of small scenarios (2
 * threads × 3 operations, plus 2 before and after), so it finds races that need an unlucky
 * interleaving; stress runs scenarios on 3 real threads. Iterations are kept modest so that the
 * checks add seconds, not minutes, to the build; raise them here for a deeper search.
 */
abstract class Linearizability {
  private final Class<?> specification;

  /**
   * Creates the check.
   *
   * @param specification a class with the same operations, run one call at a time
   */
  Linearizability(Class<?> specification) {
    this.specification = specification;
  }

  @Test
  void modelChecking() {
    LinChecker.check(
        getClass(),
        new ModelCheckingOptions()
            .iterations(5)
            .invocationsPerIteration(100)
            .threads(2)
            .actorsPerThread(3)
            .actorsBefore(2)
            .actorsAfter(2)
            .sequentialSpecification(specification));
  }

  @Test
  void stress() {
    LinChecker.check(
        getClass(),
        new StressOptions()
            .iterations(10)
            .invocationsPerIteration(200)
            .threads(3)
            .actorsPerThread(3)
            .actorsBefore(2)
            .actorsAfter(2)
            .sequentialSpecification(specification));
  }
}
