package dev.relent.sim;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.function.DoubleFunction;

/** How the simulator prints numbers: a dot, no grouping, no locale, fixed or trimmed decimals. */
final class Numbers {
  static final int MAX_TRIALS = 100_000;

  private Numbers() {}

  /** {@code value} rounded half-up to {@code decimals} places, always that many: {@code 12.50}. */
  static String fixed(double value, int decimals) {
    if (!Double.isFinite(value)) {
      return String.valueOf(value);
    }
    // A BigDecimal zero has no sign, so a value that rounds to zero never prints as "-0.00".
    return BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
  }

  /** At most {@code decimals} places, trailing zeros dropped: {@code 12.5}, {@code 3}. */
  static String trim(double value, int decimals) {
    if (!Double.isFinite(value)) {
      return String.valueOf(value);
    }
    BigDecimal d = BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP);
    if (d.signum() == 0) {
      return "0";
    }
    return d.stripTrailingZeros().toPlainString();
  }

  /** The format of {@link #fixed(double, int)} with the given decimals, for a {@link Metric}. */
  static DoubleFunction<String> decimals(int decimals) {
    return v -> fixed(v, decimals);
  }

  /** The format of {@link #trim(double, int)} with at most the given decimals. */
  static DoubleFunction<String> atMost(int decimals) {
    return v -> trim(v, decimals);
  }

  /** "1 trial", "3 trials". */
  static String trials(int trials) {
    return trials + (trials == 1 ? " trial" : " trials");
  }

  static int requireTrials(int trials) {
    if (trials < 1 || trials > MAX_TRIALS) {
      throw new IllegalArgumentException(
          "trials must be between 1 and " + MAX_TRIALS + ": " + trials);
    }
    return trials;
  }
}
