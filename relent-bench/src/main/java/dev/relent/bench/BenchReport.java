package dev.relent.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the raw results of bench/run.sh into the ratios the goals are stated in, as Markdown
 * tables: JMH's CSV files, the scale check's line and wrk's reports.
 *
 * <p>Arguments are {@code key=path} pairs, each optional: {@code overhead=}, {@code contention=},
 * {@code floor=} (JMH {@code -rf json} files), {@code scale=} (the output of {@link ScaleCheck}),
 * {@code wrk-relent=} and {@code wrk-wiremock=} (comma-separated wrk reports, one per round; the
 * median round counts).
 */
public final class BenchReport {
  private static final List<String> PEERS = List.of("resilience4j", "failsafe");

  private BenchReport() {}

  /**
   * Prints the report.
   *
   * @param args {@code key=path} pairs
   * @throws IOException if a named file cannot be read
   */
  public static void main(String[] args) throws IOException {
    Map<String, String> files = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("arguments are key=path: " + arg);
      }
      files.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    StringBuilder out = new StringBuilder();
    if (files.containsKey("overhead")) {
      out.append(overhead(Jmh.parse(read(files.get("overhead"))))).append('\n');
    }
    if (files.containsKey("contention")) {
      out.append(contention(Jmh.parse(read(files.get("contention"))))).append('\n');
    }
    if (files.containsKey("floor")) {
      List<Jmh> none = List.of();
      out.append(
              floor(
                  Jmh.parse(read(files.get("floor"))),
                  files.containsKey("overhead") ? Jmh.parse(read(files.get("overhead"))) : none,
                  files.containsKey("contention")
                      ? Jmh.parse(read(files.get("contention")))
                      : none))
          .append('\n');
    }
    if (files.containsKey("scale")) {
      out.append(scale(read(files.get("scale")))).append('\n');
    }
    if (files.containsKey("wrk-relent") && files.containsKey("wrk-wiremock")) {
      out.append(mockServer(wrk(files.get("wrk-relent")), wrk(files.get("wrk-wiremock"))));
    }
    System.out.print(out);
  }

  private static String read(String path) throws IOException {
    return Files.readString(Path.of(path), StandardCharsets.UTF_8);
  }

  private static List<Wrk> wrk(String paths) throws IOException {
    List<Wrk> rounds = new ArrayList<>();
    for (String path : paths.split(",")) {
      rounds.add(Wrk.parse(read(path)));
    }
    return rounds;
  }

  // ---------------------------------------------------------------------------------- overhead

  static String overhead(List<Jmh> rows) {
    StringBuilder out =
        table(
            "Per-call overhead (ns/op, best iteration, baseline subtracted; allocation in B/op)",
            "| call | baseline ns | Relent | Resilience4j | Failsafe | Relent / faster peer"
                + " | goal ≤ 0.33 | Relent B/op | R4j B/op | Failsafe B/op |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |");
    for (String method : List.of("sync", "async")) {
      for (String outcome : List.of("success", "failOnce")) {
        for (String pipeline : Pipelines.PIPELINES) {
          Optional<Jmh> base = find(rows, method, "baseline", outcome, pipeline, false);
          Optional<Jmh> relent = find(rows, method, "relent", outcome, pipeline, false);
          if (base.isEmpty() || relent.isEmpty()) {
            continue;
          }
          double b = base.get().score;
          double r = relent.get().score - b;
          StringBuilder peers = new StringBuilder();
          for (String peer : PEERS) {
            peers
                .append(" | ")
                .append(number(peerOverhead(rows, method, peer, outcome, pipeline, b)));
          }
          double ratio = r / fasterPeerOverhead(rows, method, outcome, pipeline, b);
          out.append("| ")
              .append(method)
              .append(' ')
              .append(pipeline)
              .append(' ')
              .append(outcome)
              .append(" | ")
              .append(number(b))
              .append(" | ")
              .append(number(r))
              .append(peers)
              .append(ratioAndGoal(ratio, ratio <= 1.0 / 3))
              .append(" |");
          for (String library : List.of("relent", "resilience4j", "failsafe")) {
            out.append(' ')
                .append(
                    find(rows, method, library, outcome, pipeline, true)
                        .map(j -> number(j.score))
                        .orElse("?"))
                .append(" |");
          }
          out.append('\n');
        }
      }
    }
    Optional<Jmh> syncAlloc = find(rows, "sync", "relent", "success", "full", true);
    out.append("\nRelent sync success path, full pipeline: ")
        .append(syncAlloc.map(j -> number(j.score) + " B/op").orElse("not measured"))
        .append(" (goal 0 B/op: ")
        .append(syncAlloc.map(j -> j.score < 0.5 ? "met" : "missed").orElse("?"))
        .append(")\n");
    return out.toString();
  }

  // -------------------------------------------------------------------------------- contention

  static String contention(List<Jmh> rows) {
    StringBuilder out =
        table(
            "Contended throughput, 2 threads on one shared guard (ops/µs, best iteration)",
            "| guard call | Relent | Resilience4j | Failsafe | baseline | Relent / R4j | goal ≥ 2 |",
            "| --- | ---: | ---: | ---: | ---: | ---: | --- |");
    for (String method : List.of("pacerAcquire", "breakerRecord", "breakerRecordNoClock")) {
      Map<String, Double> score = new HashMap<>();
      for (Jmh row : rows) {
        if (row.method.equals(method) && !row.secondary) {
          score.put(row.params.get("library"), row.score);
        }
      }
      double ratio =
          score.getOrDefault("relent", Double.NaN) / score.getOrDefault("resilience4j", Double.NaN);
      out.append("| ").append(method);
      for (String library : Pipelines.LIBRARIES) {
        out.append(" | ").append(number(score.getOrDefault(library, Double.NaN)));
      }
      out.append(ratioAndGoal(ratio, ratio >= 2)).append(" |\n");
    }
    return out.toString();
  }

  // ------------------------------------------------------------------------------------- floor

  /**
   * The machine's own prices ({@link FloorBenchmark}) read against the goals: the smallest overhead
   * a call with a deadline can have (one ticker read) next to a third of the faster peer's, and the
   * throughput no clock-reading rate limiter can pass next to twice Resilience4j's.
   */
  static String floor(List<Jmh> floor, List<Jmh> overhead, List<Jmh> contention) {
    double tickerRead = score(floor, "tickerRead", null);
    double atomic = score(floor, "atomicIncrement", null);
    double ceiling = score(floor, "clockAndSharedAdd", null);
    StringBuilder out =
        table(
            "What this machine charges for the unavoidable steps (best iteration)",
            "| step | measured |",
            "| --- | ---: |");
    out.append("| one ticker read (`System.nanoTime()`) | ")
        .append(number(tickerRead))
        .append(" ns |\n")
        .append("| one uncontended atomic increment | ")
        .append(number(atomic))
        .append(" ns |\n")
        .append("| clock read + one shared atomic add, 2 threads | ")
        .append(number(ceiling))
        .append(" ops/µs |\n\n");
    if (!overhead.isEmpty()) {
      out.append("| call, success | ⅓ of the faster peer's overhead | one ticker read | ")
          .append("goal reachable with a deadline |\n")
          .append("| --- | ---: | ---: | --- |\n");
      for (String method : List.of("sync", "async")) {
        for (String pipeline : Pipelines.PIPELINES) {
          double base =
              find(overhead, method, "baseline", "success", pipeline, false)
                  .map(j -> j.score)
                  .orElse(Double.NaN);
          double third = fasterPeerOverhead(overhead, method, "success", pipeline, base) / 3;
          out.append("| ")
              .append(method)
              .append(' ')
              .append(pipeline)
              .append(" | ")
              .append(number(third))
              .append(" ns | ")
              .append(number(tickerRead))
              .append(" ns | ")
              .append(Double.isNaN(third) ? "?" : third > tickerRead ? "yes" : "no")
              .append(" |\n");
        }
      }
      out.append('\n');
    }
    double resilience4j = score(contention, "pacerAcquire", "resilience4j");
    if (!Double.isNaN(resilience4j)) {
      out.append("Ceiling for any clock-reading rate limiter under 2 threads: ")
          .append(number(ceiling))
          .append(" ops/µs = ")
          .append(ratio(ceiling / resilience4j))
          .append("× Resilience4j's pacer acquire (goal ≥ 2×: ")
          .append(ceiling >= 2 * resilience4j ? "reachable" : "out of reach on this machine")
          .append(")\n");
    }
    return out.toString();
  }

  private static double score(List<Jmh> rows, String method, String library) {
    for (Jmh row : rows) {
      if (row.method.equals(method)
          && !row.secondary
          && (library == null || library.equals(row.params.get("library")))) {
        return row.score;
      }
    }
    return Double.NaN;
  }

  /** A peer's time minus the baseline's, NaN if the peer was not measured. */
  private static double peerOverhead(
      List<Jmh> rows, String method, String peer, String outcome, String pipeline, double base) {
    return find(rows, method, peer, outcome, pipeline, false)
        .map(j -> j.score - base)
        .orElse(Double.NaN);
  }

  /** The smaller overhead of the measured peers, NaN if none was measured. */
  private static double fasterPeerOverhead(
      List<Jmh> rows, String method, String outcome, String pipeline, double base) {
    double fastest = Double.NaN;
    for (String peer : PEERS) {
      double overhead = peerOverhead(rows, method, peer, outcome, pipeline, base);
      if (Double.isNaN(fastest) || overhead < fastest) {
        fastest = overhead;
      }
    }
    return fastest;
  }

  // ------------------------------------------------------------------------------------- scale

  static String scale(String text) {
    Map<String, String> values = new HashMap<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("scale ")) {
        for (String pair : line.substring(6).trim().split(" ")) {
          int eq = pair.indexOf('=');
          values.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
    }
    if (values.isEmpty()) {
      return "### Scale\n\nno result line (scale ...) found\n";
    }
    long threads = Long.parseLong(values.get("threadsAdded"));
    double mib = Long.parseLong(values.get("heapAddedBytes")) / (1024.0 * 1024.0);
    return "### Scale: "
        + values.get("operations")
        + " asynchronous operations waiting in backoff ("
        + values.get("waiting")
        + " still waiting when measured)\n\n"
        + "| figure | value | goal |\n| --- | ---: | --- |\n"
        + "| platform threads added | "
        + threads
        + " ("
        + values.get("addedThreads")
        + ") | ≤ 4: "
        + (threads <= 4 ? "met" : "missed")
        + " |\n| heap held by the waiting operations | "
        + String.format(Locale.ROOT, "%.1f MiB", mib)
        + " | ≤ 256 MiB: "
        + (mib <= 256 ? "met" : "missed")
        + " |\n| bytes per waiting operation | "
        + values.get("bytesPerOperation")
        + " | |\n| time to start them all | "
        + values.get("startMillis")
        + " ms | |\n";
  }

  // ------------------------------------------------------------------------------- mock server

  static String mockServer(List<Wrk> relent, List<Wrk> wiremock) {
    Wrk r = Wrk.median(relent);
    Wrk w = Wrk.median(wiremock);
    double ratio = r.requestsPerSecond / w.requestsPerSecond;
    return "### Mock server vs WireMock (wrk, keep-alive, median of "
        + relent.size()
        + " rounds)\n\n"
        + "| server | requests/s | p50 ms | p99 ms | errors |\n| --- | ---: | ---: | ---: | ---: |\n"
        + "| relent-mockserver | "
        + number(r.requestsPerSecond)
        + " | "
        + millis(r.p50Millis)
        + " | "
        + millis(r.p99Millis)
        + " | "
        + r.errors
        + " |\n| WireMock | "
        + number(w.requestsPerSecond)
        + " | "
        + millis(w.p50Millis)
        + " | "
        + millis(w.p99Millis)
        + " | "
        + w.errors
        + " |\n\nthroughput ratio "
        + ratio(ratio)
        + " (goal ≥ 3: "
        + (ratio >= 3 ? "met" : "missed")
        + "); p99 "
        + millis(r.p99Millis)
        + " vs "
        + millis(w.p99Millis)
        + " ms (goal lower: "
        + (r.p99Millis < w.p99Millis ? "met" : "missed")
        + ")\n";
  }

  // ------------------------------------------------------------------------------------ values

  private static Optional<Jmh> find(
      List<Jmh> rows,
      String method,
      String library,
      String outcome,
      String pipeline,
      boolean allocation) {
    for (Jmh row : rows) {
      if (row.method.equals(method)
          && library.equals(row.params.get("library"))
          && outcome.equals(row.params.get("outcome"))
          && pipeline.equals(row.params.get("pipeline"))
          && (allocation
              ? row.secondary && row.label.endsWith("gc.alloc.rate.norm")
              : !row.secondary)) {
        return Optional.of(row);
      }
    }
    return Optional.empty();
  }

  private static String number(double value) {
    if (Double.isNaN(value)) {
      return "?";
    }
    return Math.abs(value) >= 100
        ? String.format(Locale.ROOT, "%,.0f", value)
        : String.format(Locale.ROOT, "%.1f", value);
  }

  /**
   * A Markdown section that opens with a table: the heading, a blank line, the header row and the
   * alignment row; the caller appends the body rows.
   */
  private static StringBuilder table(String heading, String header, String alignment) {
    return new StringBuilder()
        .append("### ")
        .append(heading)
        .append("\n\n")
        .append(header)
        .append('\n')
        .append(alignment)
        .append('\n');
  }

  /**
   * The last two cells of a row checked against a goal, each after {@code " | "}: the ratio, then
   * whether the goal was met ({@code ?} when the ratio could not be computed).
   */
  private static String ratioAndGoal(double ratio, boolean met) {
    return " | " + ratio(ratio) + " | " + (Double.isNaN(ratio) ? "?" : met ? "met" : "missed");
  }

  private static String ratio(double value) {
    return Double.isNaN(value) ? "?" : String.format(Locale.ROOT, "%.2f", value);
  }

  private static String millis(double value) {
    return String.format(Locale.ROOT, "%.2f", value);
  }

  /** One figure of a JMH result: a primary score or a profiler's secondary one. */
  static final class Jmh {
    final String method;
    final String label;
    final boolean secondary;
    final double score;
    final Map<String, String> params;

    Jmh(String benchmark, double score, Map<String, String> params) {
      String name = benchmark.substring(benchmark.lastIndexOf('.', indexOfColon(benchmark)) + 1);
      int colon = name.indexOf(':');
      this.method = colon < 0 ? name : name.substring(0, colon);
      this.label = colon < 0 ? "" : name.substring(colon + 1);
      this.secondary = colon >= 0;
      this.score = score;
      this.params = params;
    }

    private static int indexOfColon(String benchmark) {
      int colon = benchmark.indexOf(':');
      return colon < 0 ? benchmark.length() - 1 : colon;
    }

    /**
     * Parses JMH's {@code -rf json} output. The primary score is the <em>best</em> measurement
     * iteration (the fastest for a time, the highest for a throughput): on a shared machine other
     * work only ever adds time, so the best of several iterations is the steadiest estimate. The
     * allocation per operation ({@code -prof gc}) is the mean: it does not vary with load.
     */
    static List<Jmh> parse(String json) throws IOException {
      List<Jmh> rows = new ArrayList<>();
      for (JsonNode result : new ObjectMapper().readTree(json)) {
        String benchmark = result.path("benchmark").asText();
        Map<String, String> params = new HashMap<>();
        for (Map.Entry<String, JsonNode> param : result.path("params").properties()) {
          params.put(param.getKey(), param.getValue().asText());
        }
        JsonNode primary = result.path("primaryMetric");
        boolean throughput = result.path("mode").asText().equals("thrpt");
        double best =
            primary
                .path("scorePercentiles")
                .path(throughput ? "100.0" : "0.0")
                .asDouble(Double.NaN);
        rows.add(new Jmh(benchmark, best, params));
        JsonNode allocation = result.path("secondaryMetrics").path("gc.alloc.rate.norm");
        if (!allocation.isMissingNode()) {
          rows.add(
              new Jmh(
                  benchmark + ":gc.alloc.rate.norm",
                  allocation.path("score").asDouble(Double.NaN),
                  params));
        }
      }
      return rows;
    }
  }

  /** The figures of one wrk report (run with {@code --latency}). */
  static final class Wrk {
    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern PERCENTILE =
        Pattern.compile("^\\s+(50|99)(?:\\.000)?%\\s+([0-9.]+)(us|ms|s)\\s*$", Pattern.MULTILINE);

    final double requestsPerSecond;
    final double p50Millis;
    final double p99Millis;
    final long errors;

    Wrk(double requestsPerSecond, double p50Millis, double p99Millis, long errors) {
      this.requestsPerSecond = requestsPerSecond;
      this.p50Millis = p50Millis;
      this.p99Millis = p99Millis;
      this.errors = errors;
    }

    static Wrk parse(String report) {
      Matcher rate = RATE.matcher(report);
      if (!rate.find()) {
        throw new IllegalArgumentException("no Requests/sec line in the wrk report:\n" + report);
      }
      double p50 = Double.NaN;
      double p99 = Double.NaN;
      Matcher percentile = PERCENTILE.matcher(report);
      while (percentile.find()) {
        double value = Double.parseDouble(percentile.group(2));
        double millis =
            switch (percentile.group(3)) {
              case "us" -> value / 1000;
              case "s" -> value * 1000;
              default -> value;
            };
        if (percentile.group(1).equals("50")) {
          p50 = millis;
        } else {
          p99 = millis;
        }
      }
      long errors = 0;
      for (String line : report.split("\n")) {
        String trimmed = line.trim();
        if (trimmed.startsWith("Non-2xx or 3xx responses:")) {
          errors += Long.parseLong(trimmed.substring(trimmed.indexOf(':') + 1).trim());
        } else if (trimmed.startsWith("Socket errors:")) {
          for (String part : trimmed.substring(trimmed.indexOf(':') + 1).split(",")) {
            String[] words = part.trim().split(" ");
            errors += Long.parseLong(words[words.length - 1]);
          }
        }
      }
      return new Wrk(Double.parseDouble(rate.group(1)), p50, p99, errors);
    }

    /** The round with the median throughput (the lower middle one for an even count). */
    static Wrk median(List<Wrk> rounds) {
      Wrk[] sorted = rounds.toArray(new Wrk[0]);
      Arrays.sort(sorted, (a, b) -> Double.compare(a.requestsPerSecond, b.requestsPerSecond));
      return sorted[(sorted.length - 1) / 2];
    }
  }
}
