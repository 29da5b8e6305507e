package dev.relent.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The ratios are computed from JMH's, the scale check's and wrk's own output formats. */
class BenchReportTest {

  /** One JMH JSON result: best/worst iteration as percentiles 0 and 100, and an allocation. */
  private static String result(
      String benchmark, String mode, String params, double min, double max, double bytes) {
    return "{\"benchmark\": \"dev.relent.bench."
        + benchmark
        + "\", \"mode\": \""
        + mode
        + "\", \"params\": {"
        + params
        + "}, \"primaryMetric\": {\"score\": "
        + (min + max) / 2
        + ", \"scorePercentiles\": {\"0.0\": "
        + min
        + ", \"100.0\": "
        + max
        + "}}"
        + (Double.isNaN(bytes)
            ? ""
            : ", \"secondaryMetrics\": {\"gc.alloc.rate.norm\": {\"score\": " + bytes + "}}")
        + "}";
  }

  private static String overhead(String library, double min, double bytes) {
    return result(
        "OverheadBenchmark.sync",
        "avgt",
        "\"library\": \"" + library + "\", \"outcome\": \"success\", \"pipeline\": \"full\"",
        min,
        min * 3,
        bytes);
  }

  @Test
  void overheadTakesTheBestIterationSubtractsTheBaselineAndComparesWithTheFasterPeer()
      throws Exception {
    String json =
        "["
            + String.join(
                ",",
                overhead("baseline", 2, 0.00001),
                overhead("relent", 32, 0.0001),
                overhead("resilience4j", 152, 184),
                overhead("failsafe", 302, 608))
            + "]";
    String report = BenchReport.overhead(BenchReport.Jmh.parse(json));
    assertThat(report)
        .contains("| sync full success | 2.0 | 30.0 | 150 | 300 | 0.20 | met | 0.0 | 184 | 608 |")
        .contains("Relent sync success path, full pipeline: 0.0 B/op (goal 0 B/op: met)");
  }

  @Test
  void contentionTakesTheHighestIterationAndComparesWithResilience4j() throws Exception {
    String json =
        "["
            + result(
                "GuardContentionBenchmark.pacerAcquire",
                "thrpt",
                "\"library\": \"relent\"",
                10,
                30,
                Double.NaN)
            + ","
            + result(
                "GuardContentionBenchmark.pacerAcquire",
                "thrpt",
                "\"library\": \"resilience4j\"",
                5,
                20,
                Double.NaN)
            + "]";
    assertThat(BenchReport.contention(BenchReport.Jmh.parse(json)))
        .contains("| pacerAcquire | 30.0 | 20.0 | ? | ? | 1.50 | missed |");
  }

  @Test
  void floorReadsTheGoalsAgainstTheMachinesOwnPrices() throws Exception {
    String floor =
        "["
            + String.join(
                ",",
                result("FloorBenchmark.tickerRead", "avgt", "", 28, 40, Double.NaN),
                result("FloorBenchmark.atomicIncrement", "avgt", "", 6, 9, Double.NaN),
                result("FloorBenchmark.clockAndSharedAdd", "thrpt", "", 30, 40, Double.NaN))
            + "]";
    String overhead =
        "["
            + String.join(
                ",",
                overhead("baseline", 2, Double.NaN),
                overhead("resilience4j", 152, Double.NaN),
                overhead("failsafe", 302, Double.NaN))
            + "]";
    String contention =
        "["
            + result(
                "GuardContentionBenchmark.pacerAcquire",
                "thrpt",
                "\"library\": \"resilience4j\"",
                5,
                25,
                Double.NaN)
            + "]";
    String report =
        BenchReport.floor(
            BenchReport.Jmh.parse(floor),
            BenchReport.Jmh.parse(overhead),
            BenchReport.Jmh.parse(contention));
    assertThat(report)
        .contains("| one ticker read (`System.nanoTime()`) | 28.0 ns |")
        .contains("| one uncontended atomic increment | 6.0 ns |")
        .contains("| clock read + one shared atomic add, 2 threads | 40.0 ops/µs |")
        // (152 - 2) / 3 = 50 ns of allowance against a 28 ns ticker read.
        .contains("| sync full | 50.0 ns | 28.0 ns | yes |")
        .contains("| sync retry | ? ns | 28.0 ns | ? |")
        .contains("40.0 ops/µs = 1.60× Resilience4j's pacer acquire")
        .contains("out of reach on this machine");
  }

  @Test
  void scaleReadsTheCheckLine() {
    String line =
        "scale operations=100000 waiting=100000 threadsBefore=7 threadsWaiting=8 threadsAdded=1"
            + " addedThreads=relent-scheduler heapBeforeBytes=0 heapWaitingBytes=33554432"
            + " heapAddedBytes=33554432 bytesPerOperation=335 startMillis=900\n";
    assertThat(BenchReport.scale(line))
        .contains("| platform threads added | 1 (relent-scheduler) | ≤ 4: met |")
        .contains("| heap held by the waiting operations | 32.0 MiB | ≤ 256 MiB: met |");
  }

  @Test
  void wrkReportsAreParsedWithTheirUnits() {
    String report =
        "Running 10s test @ http://127.0.0.1:8080/hello\n"
            + "  1 threads and 64 connections\n"
            + "  Latency Distribution\n"
            + "     50%  750.00us\n"
            + "     75%    1.20ms\n"
            + "     90%    2.00ms\n"
            + "     99%    4.50ms\n"
            + "  300000 requests in 10.00s, 30.00MB read\n"
            + "  Socket errors: connect 0, read 2, write 0, timeout 3\n"
            + "  Non-2xx or 3xx responses: 4\n"
            + "Requests/sec:  30000.50\n";
    BenchReport.Wrk wrk = BenchReport.Wrk.parse(report);
    assertThat(wrk.requestsPerSecond).isEqualTo(30000.5);
    assertThat(wrk.p50Millis).isEqualTo(0.75);
    assertThat(wrk.p99Millis).isEqualTo(4.5);
    assertThat(wrk.errors).isEqualTo(9);
    BenchReport.Wrk slow = BenchReport.Wrk.parse("     99%    1.50s\nRequests/sec: 10.0\n");
    assertThat(slow.p99Millis).isEqualTo(1500.0);
    assertThat(BenchReport.mockServer(List.of(wrk), List.of(slow)))
        .contains("throughput ratio 3000.05 (goal ≥ 3: met); p99 4.50 vs 1500.00 ms");
    assertThatThrownBy(() -> BenchReport.Wrk.parse("nothing"))
        .hasMessageStartingWith("no Requests/sec line in the wrk report:");
  }
}
