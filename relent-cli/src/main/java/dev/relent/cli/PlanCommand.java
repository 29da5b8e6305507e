package dev.relent.cli;

import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Format;
import dev.relent.cli.common.Json;
import dev.relent.cli.common.Plan;
import dev.relent.cli.common.Rate;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code relent plan}: how to send a queue under a provider's rate limit. From the account limit,
 * an operating target below it, the queue size and the mean latency, it prints the start rate and
 * interval, the minimum duration, the average concurrency (Little's law: rate × latency) and the
 * headroom to the limit, and warns when the plan cannot work.
 *
 * <p>The worked example of the spec: {@code --limit 120/min --target 90/min --requests 600
 * --latency 2s} gives 1.5 requests/s, one start every 667 ms, 400 s, an average concurrency of 3
 * and 25 % headroom.
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Plan a queue under a rate limit: start interval, duration, concurrency, headroom.",
      "",
      "Example: relent plan --limit 120/min --target 90/min --requests 600 --latency 2s"
    })
final class PlanCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--limit",
      required = true,
      paramLabel = "RATE",
      description = "The provider's limit for the account, e.g. 120/min.")
  Rate limit;

  @Option(
      names = "--target",
      paramLabel = "RATE",
      description =
          "The rate to run at, below the limit to leave room for retries and other callers."
              + " Default: 75% of the limit.")
  Rate target;

  @Option(
      names = "--requests",
      required = true,
      paramLabel = "N",
      description = "How many requests are queued.")
  long requests;

  @Option(
      names = "--latency",
      required = true,
      paramLabel = "DURATION",
      description = "Mean time per response, e.g. 2s or 250ms.")
  Duration latency;

  @Option(
      names = "--concurrency",
      paramLabel = "N",
      description = "Check a concurrency limit against the plan (optional).")
  Integer concurrency;

  @Option(
      names = "--daily-quota",
      paramLabel = "N",
      description = "Check a daily quota against the queue (optional).")
  Long dailyQuota;

  @Option(names = "--json", description = "Print the plan as JSON, for scripts.")
  boolean json;

  @Override
  public Integer call() {
    if (requests < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--requests must be >= 0: " + requests);
    }
    Rate effectiveTarget = target != null ? target : new Rate(limit.permits() * 0.75, limit.per());
    Plan plan = Plan.of(limit, effectiveTarget, requests, latency, concurrency, dailyQuota);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(toJson(plan));
    } else {
      print(out, plan, effectiveTarget);
    }
    out.flush();
    return ExitCodes.OK;
  }

  private void print(PrintWriter out, Plan plan, Rate effectiveTarget) {
    out.printf(
        Locale.ROOT,
        "Plan for %d requests at %s (provider limit %s)%n",
        requests,
        effectiveTarget,
        limit);
    out.printf(
        Locale.ROOT,
        "  start rate            %s requests/s%n",
        Format.number(plan.targetPerSecond()));
    out.printf(
        Locale.ROOT,
        "  start interval        one start every %s%n",
        Format.millis(plan.startInterval()));
    out.printf(
        Locale.ROOT,
        "  minimum duration      %s; %s at the limit%n",
        Format.duration(plan.minimumDuration()),
        Format.duration(plan.durationAtLimit()));
    out.printf(
        Locale.ROOT,
        "  average concurrency   %s (%s/s x %s, Little's law)%n",
        Format.number(plan.averageConcurrency()),
        Format.number(plan.targetPerSecond()),
        Format.duration(latency));
    out.printf(
        Locale.ROOT,
        "  headroom              %s %% below the provider's limit%n",
        Format.number(plan.headroomPercent()));
    for (String warning : plan.warnings()) {
      out.println("warning: " + warning);
    }
    out.println("Pace the starts; sending everything at once and then waiting is still a spike.");
  }

  private static String toJson(Plan plan) {
    StringBuilder warnings = new StringBuilder("[");
    for (int i = 0; i < plan.warnings().size(); i++) {
      warnings.append(i == 0 ? "" : ",").append(Json.quote(plan.warnings().get(i)));
    }
    warnings.append(']');
    return String.format(
        Locale.ROOT,
        "{\"limit_per_second\":%s,\"target_per_second\":%s,\"start_interval_ms\":%s,"
            + "\"minimum_duration_s\":%s,\"duration_at_limit_s\":%s,\"average_concurrency\":%s,"
            + "\"headroom_percent\":%s,\"warnings\":%s}",
        Format.number(plan.limitPerSecond()),
        Format.number(plan.targetPerSecond()),
        Format.number(plan.startInterval().toNanos() / 1e6),
        Format.number(plan.minimumDuration().toNanos() / 1e9),
        Format.number(plan.durationAtLimit().toNanos() / 1e9),
        Format.number(plan.averageConcurrency()),
        Format.number(plan.headroomPercent()),
        warnings);
  }
}
