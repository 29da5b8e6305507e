package dev.relent.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table is computed from JMH's JSON format: best iteration, mean, p50 and p99. */
class RedisLimiterReportTest {

  private static String throughput(String method, String library, double... iterations) {
    List<String> raw = new ArrayList<>();
    double sum = 0;
    for (double i : iterations) {
      raw.add(Double.toString(i));
      sum += i;
    }
    return "{\"benchmark\": \"dev.relent.bench.RedisLimiterBenchmark."
        + method
        + "\", \"mode\": \"thrpt\", \"params\": {\"library\": \""
        + library
        + "\", \"limit\": \"open\", \"uri\": \"redis://127.0.0.1:6379\"}, \"primaryMetric\":"
        + " {\"score\": "
        + sum / iterations.length
        + ", \"rawData\": [["
        + String.join(", ", raw)
        + "]]}}";
  }

  private static String latency(String method, String library, double p50, double p99) {
    return "{\"benchmark\": \"dev.relent.bench.RedisLimiterBenchmark."
        + method
        + "\", \"mode\": \"sample\", \"params\": {\"library\": \""
        + library
        + "\", \"limit\": \"open\"}, \"primaryMetric\": {\"score\": 1.0, \"scorePercentiles\":"
        + " {\"0.0\": 1.0, \"50.0\": "
        + p50
        + ", \"99.0\": "
        + p99
        + ", \"100.0\": 9999.0}}}";
  }

  @Test
  void comparesTheBestIterationsAndReportsPercentilesAndGoals() throws Exception {
    String json =
        "["
            + String.join(
                ",",
                throughput("throughput1", "relent", 9_000, 10_000, 8_000),
                throughput("throughput1", "bucket4j", 4_000, 5_000, 3_000),
                throughput("throughput8", "relent", 30_000, 40_000, 20_000),
                throughput("throughput8", "bucket4j", 10_000, 10_000, 10_000),
                latency("latency1", "relent", 80, 200),
                latency("latency1", "bucket4j", 160, 400),
                latency("latency8", "relent", 150, 1_500),
                latency("latency8", "bucket4j", 700, 3_000))
            + "]";
    String report = RedisLimiterReport.report(List.of(json));
    assertThat(report)
        .contains(
            "| open | 1 | 10,000 | 5,000 | **2.00**; 2.25 | 80 / 200 (200) | 160 / 400 (400) |")
        .contains(
            "| open | 8 | 40,000 | 10,000 | **4.00**; 3.00 | 150 / 1500 (1500) | 700 / 3000 (3000) |")
        .contains(
            "Hot key, 8 threads, nothing refused: Relent 4.00× Bucket4j's throughput (goal ≥ 2×: met)")
        .contains(
            "Relent p99, open, 1 thread: 200 µs, highest of the rounds 200 µs (goal ≤ 1 ms: met)")
        .contains(
            "Relent p99, open, 8 threads: 1500 µs, highest of the rounds 1500 µs (goal ≤ 1 ms: missed)")
        .doesNotContain("| refusing |");
  }

  @Test
  void roundsGiveTheBestIterationTheMeanOfMeansAndTheLowestPercentiles() throws Exception {
    String round1 =
        "["
            + String.join(
                ",",
                throughput("throughput8", "relent", 30_000, 40_000),
                throughput("throughput8", "bucket4j", 10_000, 12_000),
                latency("latency8", "relent", 150, 900),
                latency("latency8", "bucket4j", 700, 3_000))
            + "]";
    String round2 =
        "["
            + String.join(
                ",",
                throughput("throughput8", "relent", 20_000, 30_000),
                throughput("throughput8", "bucket4j", 16_000, 10_000),
                latency("latency8", "relent", 120, 1_100),
                latency("latency8", "bucket4j", 800, 2_000))
            + "]";
    // Relent: best 40 000, mean of means (35 000 + 25 000) / 2; Bucket4j: best 16 000, mean 12 000.
    assertThat(RedisLimiterReport.report(List.of(round1, round2)))
        .contains(
            "| open | 8 | 40,000 | 16,000 | **2.50**; 2.50 | 120 / 900 (1100) | 700 / 2000 (3000) |")
        .contains("(goal ≥ 2×: met)")
        .contains("highest of the rounds 1100 µs (goal ≤ 1 ms: met in the best round only)");
  }
}
