package dev.relent.sim;

/** One color per strategy, the same in every chart; Relent's own are dashed. */
final class Palette {
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
      default -> "#9ca3af";
    };
  }

  static boolean dashed(String strategy) {
    return strategy.startsWith("relent-");
  }
}
