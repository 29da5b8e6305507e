package dev.relent.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.spi.CircuitBreakerState.Config;
import org.junit.jupiter.api.Test;

class InMemoryCircuitBreakerStateTest extends CircuitBreakerStateContract {

  @Override
  protected CircuitBreakerState newState() {
    return CircuitBreakerState.inMemory();
  }

  @Test
  void theFactoryMakesANewStateEachTime() {
    assertThat(CircuitBreakerState.inMemory())
        .isInstanceOf(InMemoryCircuitBreakerState.class)
        .isNotSameAs(CircuitBreakerState.inMemory());
  }

  @Test
  void itKeepsTheWindowOfItsFirstCallAndRefusesAnother() {
    CircuitBreakerState state = newState();
    state.onSuccess(0, SMALL);

    assertThatThrownBy(() -> state.onSuccess(0, TIMED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "this circuit breaker state counts over the last 10 calls and cannot also count over"
                + " 10 buckets of 1000000000 ns: give each differently configured breaker its own"
                + " state");
    assertThatThrownBy(() -> state.snapshot(0, new Config(11, 0, 0, 4, 50.0, D, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "this circuit breaker state counts over the last 10 calls and cannot also count over"
                + " the last 11 calls: give each differently configured breaker its own state");
    CircuitBreakerState timed = newState();
    timed.snapshot(0, TIMED);
    assertThatThrownBy(() -> timed.onFailure(0, SMALL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "this circuit breaker state counts over 10 buckets of 1000000000 ns and cannot also"
                + " count over the last 10 calls: give each differently configured breaker its own"
                + " state");
    assertThat(state.snapshot(0, SMALL).calls()).isEqualTo(1);
  }

  @Test
  void toStringShowsTheModeAsLastLeft() {
    CircuitBreakerState state = newState();
    assertThat(state).hasToString("CLOSED");
    for (int i = 0; i < 4; i++) {
      state.onFailure(0, SMALL);
    }
    assertThat(state).hasToString("OPEN");
    state.snapshot(D, SMALL);
    assertThat(state).hasToString("HALF_OPEN");
  }
}
