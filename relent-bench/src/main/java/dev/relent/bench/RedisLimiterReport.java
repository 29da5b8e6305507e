package dev.relent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints the Markdown table of {@link RedisLimiterBenchmark}'s JSON results ({@code -rf json}), one
 * file or several (rounds that alternate the libraries): for each limit and thread count, both
 * libraries' decisions per second (the best measured iteration of all rounds, as everywhere in
 * docs/BENCHMARKS.md, and the mean of the rounds' means), their ratio, and the p50 and p99 of the
 * sampled decision times (the lowest of the rounds', since other work on a shared machine only adds
 * time, and the highest p99 too), with the goals: at least twice Bucket4j's throughput with 8
 * threads on the hot key, and a p99 of at most 1 ms.
 *
 * <pre>
 * java -cp relent-bench/target/benchmarks.jar dev.relent.bench.RedisLimiterReport round-1.json round-2.json
 * </pre>
 */
public final class RedisLimiterReport {
  private static final double P99_GOAL_MICROS = 1_000;
  private static final double THROUGHPUT_GOAL = 2;

  private RedisLimiterReport() {}

  /**
   * Prints the table.
   *
   * @param args the JSON files
   * @throws IOException if one cannot be read or parsed
   */
  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      throw new IllegalArgumentException(
          "usage: RedisLimiterReport <JMH JSON of RedisLimiterBenchmark>...");
    }
    List<String> files = new ArrayList<>();
    for (String arg : args) {
      files.add(Files.readString(Path.of(arg), StandardCharsets.UTF_8));
    }
    System.out.print(report(files));
  }

  /**
   * One benchmark's figures: best and mean throughput, or the lowest p50 and p99 and the highest
   * p99, in microseconds.
   */
  record Figures(double best, double mean, double p50, double p99, double highestP99) {}

  /** The table, from the JSON of one or more JMH runs. */
  static String report(List<String> jsons) throws IOException {
    Map<String, Figures> byCase = new HashMap<>();
    Map<String, Integer> rounds = new HashMap<>();
    for (String json : jsons) {
      for (JsonNode result : new ObjectMapper().readTree(json)) {
        add(result, byCase, rounds);
      }
    }
    byCase.replaceAll(
        (key, f) -> new Figures(f.best, f.mean / rounds.get(key), f.p50, f.p99, f.highestP99));
    return table(byCase);
  }

  /** Folds one result into its case: best and summed means, lowest percentiles. */
  private static void add(
      JsonNode result, Map<String, Figures> byCase, Map<String, Integer> rounds) {
    String benchmark = result.path("benchmark").asText();
    String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
    JsonNode params = result.path("params");
    String key = key(method, params.path("library").asText(), params.path("limit").asText());
    JsonNode primary = result.path("primaryMetric");
    if (result.path("mode").asText().equals("thrpt")) {
      double best = Double.NEGATIVE_INFINITY;
      for (JsonNode fork : primary.path("rawData")) {
        for (JsonNode iteration : fork) {
          best = Math.max(best, iteration.asDouble());
        }
      }
      byCase.merge(
          key,
          new Figures(best, primary.path("score").asDouble(), Double.NaN, Double.NaN, Double.NaN),
          (a, b) ->
              new Figures(Math.max(a.best, b.best), a.mean + b.mean, a.p50, a.p99, a.highestP99));
    } else {
      JsonNode percentiles = primary.path("scorePercentiles");
      double p99 = percentiles.path("99.0").asDouble(Double.NaN);
      byCase.merge(
          key,
          new Figures(
              Double.NaN, Double.NaN, percentiles.path("50.0").asDouble(Double.NaN), p99, p99),
          (a, b) ->
              new Figures(
                  a.best,
                  a.mean,
                  Math.min(a.p50, b.p50),
                  Math.min(a.p99, b.p99),
                  Math.max(a.highestP99, b.highestP99)));
    }
    rounds.merge(key, 1, Integer::sum);
  }

  private static String table(Map<String, Figures> byCase) {
    StringBuilder out = new StringBuilder();
    out.append(
            "| limit | threads | Relent decisions/s | Bucket4j decisions/s | Relent / Bucket4j"
                + " (best; mean) | Relent p50 / p99 µs (highest p99) | Bucket4j p50 / p99 µs"
                + " (highest p99) |\n")
        .append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    StringBuilder goals = new StringBuilder();
    for (String limit : new String[] {"open", "refusing"}) {
      for (int threads : new int[] {1, 8}) {
        Figures relent = byCase.get(key("throughput" + threads, "relent", limit));
        Figures bucket4j = byCase.get(key("throughput" + threads, "bucket4j", limit));
        Figures relentTime = byCase.get(key("latency" + threads, "relent", limit));
        Figures bucket4jTime = byCase.get(key("latency" + threads, "bucket4j", limit));
        if (relent == null || bucket4j == null || relentTime == null || bucket4jTime == null) {
          continue;
        }
        double bestRatio = relent.best / bucket4j.best;
        double meanRatio = relent.mean / bucket4j.mean;
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %,.0f | %,.0f | **%.2f**; %.2f | %.0f / %.0f (%.0f) | %.0f / %.0f (%.0f) |%n",
                limit,
                threads,
                relent.best,
                bucket4j.best,
                bestRatio,
                meanRatio,
                relentTime.p50,
                relentTime.p99,
                relentTime.highestP99,
                bucket4jTime.p50,
                bucket4jTime.p99,
                bucket4jTime.highestP99));
        if (threads == 8 && limit.equals("open")) {
          goals.append(
              String.format(
                  Locale.ROOT,
                  "Hot key, 8 threads, nothing refused: Relent %.2f× Bucket4j's throughput (goal ≥"
                      + " %.0f×: %s)%n",
                  bestRatio,
                  THROUGHPUT_GOAL,
                  bestRatio >= THROUGHPUT_GOAL ? "met" : "missed"));
        }
        goals.append(
            String.format(
                Locale.ROOT,
                "Relent p99, %s, %d thread%s: %.0f µs, highest of the rounds %.0f µs (goal ≤ 1 ms: %s)%n",
                limit,
                threads,
                threads == 1 ? "" : "s",
                relentTime.p99,
                relentTime.highestP99,
                relentTime.highestP99 <= P99_GOAL_MICROS
                    ? "met"
                    : relentTime.p99 <= P99_GOAL_MICROS ? "met in the best round only" : "missed"));
      }
    }
    return out.append('\n').append(goals).toString();
  }

  private static String key(String method, String library, String limit) {
    return method + "/" + library + "/" + limit;
  }
}
