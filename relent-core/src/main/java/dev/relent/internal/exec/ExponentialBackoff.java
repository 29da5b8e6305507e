package dev.relent.internal.exec;

import dev.relent.Backoff;
import dev.relent.Jitter;
import dev.relent.time.Durations;
import java.time.Duration;

/**
 * The only {@link Backoff} implementation: a record of its three settings (equal when they are) and
 * integer arithmetic.
 *
 * <p>Overflow: {@code base * 2^(retry-1)} is never computed when it could exceed the cap. Since
 * {@code base <= cap}, the shift {@code base << k} stays within the cap exactly when {@code base <=
 * cap >> k}, and for {@code k >= 63} the window is the cap. The decorrelated window uses the same
 * idea: {@code 3 * p} stays within the cap exactly when {@code p <= cap / 3}. So no product ever
 * wraps, whatever the retry number or previous delay.
 *
 * <p>The draw maps onto the window as {@code min + floor(random * (window - min))}. Beyond 2^53 the
 * span is not exact as a double, and its nearest double {@code d} may lie above it; but for a draw
 * below 1 the product is a double below {@code d}, so at most the next double below {@code d}, and
 * the span lies nearer to {@code d} than that: the delay never leaves the window. A draw of exactly
 * 1 returns the window itself, which the product could miss by rounding.
 */
public record ExponentialBackoff(Duration base, Duration cap, Jitter jitter) implements Backoff {

  /** The default backoff: base 500 ms, cap 30 s, full jitter ({@link Backoff#ofDefaults()}). */
  public static final ExponentialBackoff DEFAULTS =
      new ExponentialBackoff(Duration.ofMillis(500), Duration.ofSeconds(30), Jitter.FULL);

  @Override
  public long delayNanos(int retry, long previousDelayNanos, double random) {
    // Written as a negated range test so that NaN fails it too.
    if (!(random >= 0.0 && random <= 1.0)) {
      throw new IllegalArgumentException("random must be in [0, 1]: " + random);
    }
    long window = windowNanos(retry, previousDelayNanos);
    long min = lowerBound(window);
    long span = window - min;
    // Beyond 2^53 the product can round below the span: pin the top draw to the exact window.
    if (span == 0 || random == 1.0) {
      return window;
    }
    return min + (long) (random * span);
  }

  @Override
  public long windowNanos(int retry, long previousDelayNanos) {
    if (retry < 1) {
      throw new IllegalArgumentException("retry must be >= 1: " + retry);
    }
    long baseNanos = base.toNanos();
    long capNanos = cap.toNanos();
    if (jitter == Jitter.DECORRELATED) {
      // Retry 1 starts from the base whatever the caller passes; later ones never go below it.
      long previous = retry == 1 ? baseNanos : Math.max(baseNanos, previousDelayNanos);
      return previous > capNanos / 3 ? capNanos : Math.min(capNanos, 3 * previous);
    }
    int shift = retry - 1;
    if (shift >= Long.SIZE - 1 || baseNanos > (capNanos >> shift)) {
      return capNanos;
    }
    return baseNanos << shift;
  }

  @Override
  public long minNanos(int retry, long previousDelayNanos) {
    return lowerBound(windowNanos(retry, previousDelayNanos));
  }

  private long lowerBound(long window) {
    return switch (jitter) {
      case NONE -> window;
      case FULL -> 0L;
      case EQUAL -> window / 2;
      case DECORRELATED -> base.toNanos();
    };
  }

  @Override
  public String toString() {
    return "Backoff[base="
        + Durations.exact(base)
        + ", cap="
        + Durations.exact(cap)
        + ", jitter="
        + jitter
        + "]";
  }
}
