package dev.relent.sim;

/**
 * The chart colors. A strategy keeps its color in every chart, and the strategies of different
 * models that play the same part share one (no backoff, backoff without jitter, full jitter, a
 * budget, ...).
 */
final class Palette {
  /** Reference lines that are no strategy, such as a capacity. */
  static final String REFERENCE = "#9ca3af";

  private Palette() {}

  static String color(String strategy) {
    return switch (strategy) {
      case "none" -> "#6b7280";
      case "exponential", "backoff" -> "#dc2626";
      case "full" -> "#16a34a";
      case "equal" -> "#f59e0b";
      case "decorrelated" -> "#7c3aed";
      case "relent-default", "fixed-90" -> "#2563eb";
      case "relent-budget", "full+budget", "relent-known" -> "#0891b2";
      case "full+budget+breaker", "relent-unknown" -> "#db2777";
      case "naive", "burst" -> "#111827";
      case "aimd" -> "#92400e";
      case "aws-adaptive", "aws-decorrelated", "full+budget+throttle" -> "#ea580c";
      case "relent-adaptive", "full+budget+quick-breaker" -> "#65a30d";
      case "relent-aimd" -> "#0d9488";
      case "relent-cubic" -> "#a16207";
      default -> REFERENCE;
    };
  }
}
