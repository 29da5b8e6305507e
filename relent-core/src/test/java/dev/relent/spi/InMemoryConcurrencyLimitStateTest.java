package dev.relent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InMemoryConcurrencyLimitStateTest extends ConcurrencyLimitStateContract {

  @Override
  protected ConcurrencyLimitState newState() {
    return ConcurrencyLimitState.inMemory();
  }

  @Test
  void theFactoryMakesANewStateEachTime() {
    assertThat(ConcurrencyLimitState.inMemory())
        .isInstanceOf(InMemoryConcurrencyLimitState.class)
        .isNotSameAs(ConcurrencyLimitState.inMemory());
  }

  @Test
  void itNamesTheCountAndTheMistake() {
    ConcurrencyLimitState state = newState();
    assertThatThrownBy(state::release)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("release() without a matching acquire: no slot is in use");
    state.tryAcquire(4);

    assertThat(state).hasToString("InMemoryConcurrencyLimitState[1 in use]");
  }
}
