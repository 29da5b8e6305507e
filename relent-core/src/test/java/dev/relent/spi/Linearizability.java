package dev.relent.spi;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;

/**
 * Runs Lincheck on a test class whose {@code @Operation}s call one in-memory state, checking every
 * concurrent history it produces against a separately written sequential specification: the results
 * of the operations must be those of some order of them that respects real time.
 *
 * <p>Model checking explores thread switches at every shared-memory access of small scenarios (2
 * threads × 3 operations, plus 2 before and after), so it finds races that need an unlucky
 * interleaving; stress runs larger scenarios on real threads. Iterations are kept modest so that
 * the checks add seconds, not minutes, to the build.
 */
final class Linearizability {
  private Linearizability() {}

  static void modelCheck(Class<?> test, Class<?> specification) {
    LinChecker.check(
        test,
        new ModelCheckingOptions()
            .iterations(5)
            .invocationsPerIteration(100)
            .threads(2)
            .actorsPerThread(3)
            .actorsBefore(2)
            .actorsAfter(2)
            .sequentialSpecification(specification));
  }

  static void stress(Class<?> test, Class<?> specification) {
    LinChecker.check(
        test,
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
