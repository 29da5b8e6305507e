package dev.relent;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Property checks over generated inputs (seeded, so a failure replays): bases and caps from 1 ns to
 * {@code Long.MAX_VALUE} ns, every jitter, any retry number, any previous delay and any draw.
 */
class BackoffPropertyTest {
  private static final int CASES = 200_000;
  private static final BigInteger THREE = BigInteger.valueOf(3);

  private final SplittableRandom random = new SplittableRandom(0x5eedL);

  private long nanosUpTo(long max) {
    switch (random.nextInt(4)) {
      case 0:
        return 1 + random.nextLong(Math.min(max, 1_000));
      case 1:
        return 1 + random.nextLong(Math.min(max, 60_000_000_000L));
      case 2:
        return max;
      default:
        return 1 + random.nextLong(max);
    }
  }

  private int retry() {
    switch (random.nextInt(4)) {
      case 0:
        return 1 + random.nextInt(70);
      case 1:
        return Integer.MAX_VALUE - random.nextInt(3);
      default:
        return 1 + random.nextInt(Integer.MAX_VALUE);
    }
  }

  private long previous(long cap) {
    switch (random.nextInt(7)) {
      case 0:
        return 0;
      case 1:
        return -1 - random.nextLong(Long.MAX_VALUE);
      case 2:
        return Long.MAX_VALUE;
      case 3:
        return Long.MIN_VALUE;
      case 4:
        return random.nextLong();
      default:
        return random.nextLong(cap) + 1;
    }
  }

  private double draw() {
    switch (random.nextInt(10)) {
      case 0:
        return 0.0;
      case 1:
        return Math.nextDown(1.0);
      case 2:
        return 1.0;
      default:
        return random.nextDouble();
    }
  }

  private Backoff backoff() {
    long cap = nanosUpTo(Long.MAX_VALUE);
    long base = random.nextInt(3) == 0 ? cap : nanosUpTo(cap);
    Jitter jitter = Jitter.values()[random.nextInt(Jitter.values().length)];
    return Backoff.builder()
        .withBase(Duration.ofNanos(base))
        .withCap(Duration.ofNanos(cap))
        .withJitter(jitter)
        .build();
  }

  /** The window computed without any overflow shortcut, in arbitrary precision. */
  private static long referenceWindow(Backoff backoff, int retry, long previous) {
    BigInteger base = BigInteger.valueOf(backoff.base().toNanos());
    BigInteger cap = BigInteger.valueOf(backoff.cap().toNanos());
    BigInteger window;
    if (backoff.jitter() == Jitter.DECORRELATED) {
      BigInteger prev = retry == 1 ? base : base.max(BigInteger.valueOf(previous));
      window = prev.multiply(THREE);
    } else if (retry - 1 >= 64) {
      // base >= 1, so base * 2^64 exceeds every long cap.
      window = cap.add(BigInteger.ONE);
    } else {
      window = base.shiftLeft(retry - 1);
    }
    return window.min(cap).longValueExact();
  }

  private static long referenceMin(Backoff backoff, long window) {
    switch (backoff.jitter()) {
      case NONE:
        return window;
      case FULL:
        return 0;
      case EQUAL:
        return window / 2;
      default:
        return backoff.base().toNanos();
    }
  }

  @Test
  void delayIsInsideTheEnvelopeAndTheEnvelopeInsideBaseAndCap() {
    for (int i = 0; i < CASES; i++) {
      Backoff backoff = backoff();
      long cap = backoff.cap().toNanos();
      int retry = retry();
      long previous = previous(cap);
      double draw = draw();

      long window = backoff.windowNanos(retry, previous);
      long min = backoff.minNanos(retry, previous);
      long delay = backoff.delayNanos(retry, previous, draw);

      String context = backoff + " retry " + retry + " previous " + previous + " draw " + draw;
      assertThat(window).as(context).isEqualTo(referenceWindow(backoff, retry, previous));
      assertThat(min).as(context).isEqualTo(referenceMin(backoff, window));
      assertThat(window).as(context).isBetween(backoff.base().toNanos(), cap);
      assertThat(delay).as(context).isBetween(min, window);
      assertThat(min).as(context).isNotNegative();
    }
  }

  @Test
  void delayGrowsWithTheDrawFromTheLowerToTheUpperBound() {
    for (int i = 0; i < CASES; i++) {
      Backoff backoff = backoff();
      int retry = retry();
      long previous = previous(backoff.cap().toNanos());
      double low = random.nextDouble();
      double high = low + random.nextDouble() * (1.0 - low);

      String context = backoff + " retry " + retry + " previous " + previous;
      assertThat(backoff.delayNanos(retry, previous, low))
          .as(context + " draws " + low + " <= " + high)
          .isLessThanOrEqualTo(backoff.delayNanos(retry, previous, high));
      assertThat(backoff.delayNanos(retry, previous, 0.0))
          .as(context)
          .isEqualTo(backoff.minNanos(retry, previous));
      assertThat(backoff.delayNanos(retry, previous, 1.0))
          .as(context)
          .isEqualTo(backoff.windowNanos(retry, previous));
    }
  }

  @Test
  void windowsNeverShrink() {
    for (int i = 0; i < CASES; i++) {
      Backoff backoff = backoff();
      int retry = Math.min(retry(), Integer.MAX_VALUE - 1);
      long previous = previous(backoff.cap().toNanos());
      long other = previous(backoff.cap().toNanos());

      String context = backoff + " retry " + retry + " previous " + previous + " other " + other;
      if (backoff.jitter() == Jitter.DECORRELATED) {
        assertThat(backoff.windowNanos(retry + 1, Math.min(previous, other)))
            .as(context)
            .isLessThanOrEqualTo(backoff.windowNanos(retry + 1, Math.max(previous, other)));
      } else {
        assertThat(backoff.windowNanos(retry, previous))
            .as(context)
            .isLessThanOrEqualTo(backoff.windowNanos(retry + 1, previous));
      }
    }
  }

  @Test
  void decorrelatedChainsStayBetweenBaseAndCap() {
    for (int i = 0; i < CASES / 100; i++) {
      Backoff backoff = Backoff.builder(backoff()).withJitter(Jitter.DECORRELATED).build();
      long base = backoff.base().toNanos();
      long cap = backoff.cap().toNanos();
      long previous = previous(cap);
      for (int retry = 1; retry <= 100; retry++) {
        previous = backoff.delayNanos(retry, previous, draw());
        assertThat(previous).as("%s retry %d", backoff, retry).isBetween(base, cap);
      }
    }
  }
}
