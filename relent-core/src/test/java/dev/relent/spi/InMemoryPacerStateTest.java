package dev.relent.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InMemoryPacerStateTest {
  private static final long MS = 1_000_000L;
  private static final long NO_LIMIT = Long.MAX_VALUE;

  @Test
  void respacingTheNewestStartMovesOnlyTheNextOne() {
    PacerState state = PacerState.inMemory();
    assertThat(state.reserve(0, 500 * MS, 0, NO_LIMIT)).isZero();
    assertThat(state.reserve(0, 500 * MS, 0, NO_LIMIT)).isEqualTo(500 * MS);
    // The newest start (at 500 ms) was reserved at 500 ms; the next one now comes 100 ms after it.
    assertThat(state.respace(500 * MS, 500 * MS, 100 * MS)).isTrue();
    assertThat(state.reserve(0, 100 * MS, 0, NO_LIMIT)).isEqualTo(600 * MS);
    // Only the newest reserved start can be respaced; an older one changes nothing.
    assertThat(state.respace(500 * MS, 100 * MS, 10 * MS)).isFalse();
    assertThat(state.reserve(0, 100 * MS, 0, NO_LIMIT)).isEqualTo(700 * MS);
    // Longer works too: the next start waits for a reset.
    assertThat(state.respace(700 * MS, 100 * MS, 2_000 * MS)).isTrue();
    assertThat(state.reserve(0, 100 * MS, 0, NO_LIMIT)).isEqualTo(2_700 * MS);
  }

  @Test
  void aSharedStateKeepsItsSpacingByDefault() {
    PacerState plain =
        new PacerState() {
          @Override
          public long reserve(long now, long interval, long tolerance, long maxWait) {
            return 0;
          }

          @Override
          public boolean refund(long reservedAt, long interval) {
            return false;
          }

          @Override
          public void pauseUntil(long until) {}

          @Override
          public long pausedUntil() {
            return Long.MIN_VALUE;
          }
        };
    assertThat(plain.respace(0, 1, 2)).isFalse();
  }
}
