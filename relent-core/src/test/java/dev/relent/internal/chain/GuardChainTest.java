package dev.relent.internal.chain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.time.RandomSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GuardChainTest {

  /** What the executor asks an absent guard is answered as if there were no check at all. */
  @Test
  void absentGuardsLetEverythingThroughAndNeverRefuse() throws Exception {
    GuardChain none = new GuardChain(null, null, null, null, null);
    long now = 1_000;
    for (int i = 0; i < 1_000; i++) {
      assertThat(none.breaker().tryAcquirePermission(now)).isZero();
      assertThat(none.throttle().tryAcquire(now, RandomSource.seeded(i))).isTrue();
      assertThat(none.limit().tryAcquireSlot()).isTrue();
      assertThat(none.pacer().deferNanos(now)).isZero();
      assertThat(none.pacer().tryAcquire(now, 0)).isZero();
      assertThat(none.pacer().holdsReservedStarts()).isFalse();
      assertThat(none.budget().tryAcquireRetry(now)).isTrue();
      now += 1_000_000;
    }
    assertThat(none.limit().acquire(Duration.ZERO)).isPresent();
    assertThat(none.limit().acquireAsync()).isCompleted();
    assertThat(none.breaker().state()).isEqualTo(CircuitBreaker.State.CLOSED);
    assertThat(none.breaker().nextProbeIn()).isEmpty();
    assertThat(none.pacer().pausedUntil()).isEmpty();
    assertThat(none.paced()).isFalse();
  }

  @Test
  void givenGuardsAreKeptAsGiven() {
    CircuitBreaker breaker = CircuitBreaker.ofDefaults();
    ConcurrencyLimit limit = ConcurrencyLimit.of(2);
    Pacer pacer = Pacer.of(10, Duration.ofSeconds(1));
    RetryBudget budget = RetryBudget.ofDefaults();
    GuardChain chain = new GuardChain(breaker, null, limit, pacer, budget);
    assertThat(chain.breaker()).isSameAs(breaker);
    assertThat(chain.limit()).isSameAs(limit);
    assertThat(chain.pacer()).isSameAs(pacer);
    assertThat(chain.budget()).isSameAs(budget);
    assertThat(chain.paced()).isTrue();
  }
}
