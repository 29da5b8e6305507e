package dev.relent.sim;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** How the simulator prints numbers: a dot, no grouping, no locale, fixed or trimmed decimals. */
final class Numbers {
  static final int MAX_TRIALS = 100_000;

  private Numbers() {}

  /** {@code value} rounded half-up to {@code decimals} places, always that many: {@code 12.50}. */
  static String fixed(double value, int decimals) {
    if (!Double.isFinite(value)) {
      return String.valueOf(value);
    }
    String text =
        BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
    return text.startsWith("-")
            && BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).signum() == 0
        ? text.substring(1)
        : text;
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

  static int requireTrials(int trials) {
    if (trials < 1 || trials > MAX_TRIALS) {
      throw new IllegalArgumentException(
          "trials must be between 1 and " + MAX_TRIALS + ": " + trials);
    }
    return trials;
  }
}
