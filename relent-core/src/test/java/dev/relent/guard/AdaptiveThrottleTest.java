package dev.relent.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.relent.time.RandomSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdaptiveThrottleTest {
  private static final long S = 1_000_000_000L;
  private static final RandomSource NEVER_DRAWN =
      () -> {
        throw new AssertionError("no draw while the probability is 0");
      };

  @Test
  void nothingIsRejectedWhileTheDownstreamAcceptsOneInK() {
    AdaptiveThrottle throttle = AdaptiveThrottle.ofDefaults();
    for (int i = 0; i < 100; i++) {
      assertThat(throttle.tryAcquire(i * S / 10, NEVER_DRAWN)).isTrue();
      if (i % 2 == 0) {
        throttle.onAccepted(i * S / 10);
      }
    }
    // 100 requests, 50 accepted: (100 - 2 * 50) / 101 = 0.
    assertThat(throttle.rejectionProbability(10 * S)).isZero();
  }

  @Test
  void theProbabilityIsTheSreFormula() {
    AdaptiveThrottle throttle = AdaptiveThrottle.ofDefaults();
    for (int i = 0; i < 100; i++) {
      throttle.tryAcquire(S, () -> 0.99);
    }
    for (int i = 0; i < 10; i++) {
      throttle.onAccepted(S);
    }
    double p = (100 - 2 * 10) / 101.0;
    assertThat(throttle.rejectionProbability(S)).isEqualTo(p);
    assertThat(throttle.tryAcquire(S, () -> p - 0.01)).isFalse();
    assertThat(throttle.tryAcquire(S, () -> 0.9)).isTrue();
    assertThat(throttle.describe(S))
        .isEqualTo("accepted 10 of 102 requests in the last 120 s, K 2: rejecting 80 %");
    // After the window nothing is remembered.
    assertThat(throttle.rejectionProbability(S + 121 * S)).isZero();
  }

  @Test
  void badSettingsAreRefusedSayingWhatIsAllowed() {
    assertThatThrownBy(() -> AdaptiveThrottle.builder().withK(0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "K must be a finite number >= 1 (2 is the usual choice; 1.1 rejects early): 0.5");
    assertThatThrownBy(() -> AdaptiveThrottle.builder().withWindow(Duration.ofNanos(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("window must be at least 10 ns");
    assertThat(AdaptiveThrottle.builder().withK(1.5).build().toString())
        .isEqualTo("AdaptiveThrottle[k=1.5, window=120 s]");
  }
}
