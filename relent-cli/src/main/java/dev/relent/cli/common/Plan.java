package dev.relent.cli.common;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The figures of a plan; pure, for tests and other commands (batch compares against it). */
public record Plan(
    double limitPerSecond,
    double targetPerSecond,
    Duration startInterval,
    Duration minimumDuration,
    Duration durationAtLimit,
    double averageConcurrency,
    double headroomPercent,
    List<String> warnings) {

  public static Plan of(
      Rate limit,
      Rate target,
      long requests,
      Duration latency,
      Integer concurrency,
      Long dailyQuota) {
    double l = limit.perSecond();
    double t = target.perSecond();
    double latencySeconds = latency.toNanos() / 1e9;
    double averageConcurrency = t * latencySeconds;
    double headroom = (l - t) / l * 100;
    List<String> warnings = new ArrayList<>();
    if (t > l) {
      warnings.add(
          "the target "
              + target
              + " exceeds the provider's limit "
              + limit
              + ": expect 429s; run below the limit");
    } else if (t == l) {
      warnings.add(
          "the target equals the limit: no room for retries or other callers; expect 429s");
    }
    if (concurrency != null && concurrency < Math.ceil(averageConcurrency - 1e-9)) {
      warnings.add(
          String.format(
              Locale.ROOT,
              "a concurrency of %d at %s per response allows at most %s/s, less than the"
                  + " target %s/s",
              concurrency,
              Format.duration(latency),
              Format.number(concurrency / latencySeconds),
              Format.number(t)));
    }
    if (dailyQuota != null && requests > dailyQuota) {
      warnings.add(
          "the queue of "
              + requests
              + " exceeds the daily quota of "
              + dailyQuota
              + ": waiting will not renew it; split the queue over days");
    }
    return new Plan(
        l,
        t,
        Duration.ofNanos(Math.round(1e9 / t)),
        Duration.ofNanos(Math.round(requests / t * 1e9)),
        Duration.ofNanos(Math.round(requests / l * 1e9)),
        averageConcurrency,
        headroom,
        List.copyOf(warnings));
  }
}
