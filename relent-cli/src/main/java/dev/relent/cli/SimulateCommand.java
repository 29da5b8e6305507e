package dev.relent.cli;

import dev.relent.cli.common.DurationConverter;
import dev.relent.cli.common.ExitCodes;
import dev.relent.sim.Contention;
import dev.relent.sim.Limiters;
import dev.relent.sim.ModelResult;
import dev.relent.sim.PacedQueue;
import dev.relent.sim.Storm;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relent simulate contention|storm|queue|limiters}: runs one of the simulator's models on
 * virtual time with Relent's real backoff, budget, breaker and pacer, prints a table, and
 * optionally writes CSV and a self-contained HTML report with charts.
 *
 * <p>Exit codes: 0 done; 2 a wrong model or flag (the message says which and the accepted forms); 1
 * a file could not be written (the message names the file and the reason).
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = {
      "Simulate retries on virtual time with Relent's real backoff, budget, breaker and pacer.",
      "",
      "  contention  N clients race for one row: the jitter study (Brooker 2015);"
          + " default 100 trials",
      "  storm       a service stalls for 5 s under 1000 requests/s: budgets, breakers,"
          + " adaptive throttling; default 3 trials",
      "  queue       600 requests under a 120/min quota, alone, shared and against a strict"
          + " limiter: fixed and adaptive pacing, AIMD and the AWS adaptive mode; default 10"
          + " trials",
      "  limiters    relent batch against bench/limiters.sh's real limiters (nginx, HAProxy,"
          + " windows with headers, a fleet on Redis): time and 429s per case; --compare"
          + " results.tsv sets the bench's runs beside them; default 20 trials",
      "",
      "Example: relent simulate contention --seed 1 --csv contention.csv --html contention.html"
    })
final class SimulateCommand implements Callable<Integer> {
  static final List<String> MODELS = List.of("contention", "storm", "queue", "limiters");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "MODEL",
      description = "The model: contention, storm, queue or limiters.")
  String model;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "The seed; the same seed gives the same numbers. Default: 1.")
  long seed = 1;

  @Option(
      names = "--trials",
      paramLabel = "N",
      description =
          "Trials to average, 1 to 100000. Default: 100 (contention), 3 (storm), 10 (queue), 20"
              + " (limiters).")
  Integer trials;

  @Option(
      names = "--case",
      paramLabel = "NAME",
      description =
          "limiters: a case of bench/limiters.sh to run, e.g. nginx-burst0; repeatable. Default:"
              + " every case.")
  List<String> cases = new ArrayList<>();

  @Option(
      names = "--compare",
      paramLabel = "FILE",
      description =
          "limiters: the bench's results.tsv; prints each case's real median beside the"
              + " prediction, with the error.")
  Path compare;

  @Option(
      names = "--fleet-start",
      paramLabel = "LOW..HIGH",
      description =
          "limiters: the JVM's start of each fleet process, from the launch until it takes its"
              + " first request, e.g. 4s..8s (four JVMs at once on a busy machine start late)."
              + " Default: the measured costs'.")
  String fleetStart;

  @Option(names = "--csv", paramLabel = "FILE", description = "Write the results as CSV.")
  Path csv;

  @Option(
      names = "--html",
      paramLabel = "FILE",
      description = "Write a self-contained HTML report with charts.")
  Path html;

  @Override
  public Integer call() {
    if (!MODELS.contains(model)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "unknown model '" + model + "': expected one of contention, storm, queue, limiters");
    }
    if (!model.equals("limiters") && (!cases.isEmpty() || compare != null || fleetStart != null)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--case, --compare and --fleet-start are for the limiters model");
    }
    if (trials != null && (trials < 1 || trials > 100_000)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--trials must be between 1 and 100000: " + trials);
    }
    Map<String, Limiters.Measured> measured = compare == null ? null : measured();
    if (compare != null && measured == null) {
      return ExitCodes.ERROR;
    }
    ModelResult result = run();
    PrintWriter out = spec.commandLine().getOut();
    out.print(result.table());
    if (measured != null) {
      out.println();
      out.print(((Limiters.Result) result).compare(measured));
    }
    out.flush();
    if (csv != null && !write(csv, result.csv())) {
      return ExitCodes.ERROR;
    }
    if (html != null && !write(html, result.html())) {
      return ExitCodes.ERROR;
    }
    return ExitCodes.OK;
  }

  private ModelResult run() {
    switch (model) {
      case "contention":
        Contention.Builder c = Contention.builder().withSeed(seed);
        if (trials != null) {
          c.withTrials(trials);
        }
        return c.build().run();
      case "limiters":
        return limiters();
      case "storm":
        Storm.Builder s = Storm.builder().withSeed(seed);
        if (trials != null) {
          s.withTrials(trials);
        }
        return s.build().run();
      default:
        PacedQueue.Builder q = PacedQueue.builder().withSeed(seed);
        if (trials != null) {
          q.withTrials(trials);
        }
        return q.build().run();
    }
  }

  private ModelResult limiters() {
    Limiters.Builder b = Limiters.builder().withSeed(seed);
    if (trials != null) {
      b.withTrials(trials);
    }
    if (!cases.isEmpty()) {
      List<Limiters.Case> chosen = new ArrayList<>();
      for (String name : cases) {
        try {
          chosen.add(Limiters.Case.of(name.strip()));
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(
              spec.commandLine(),
              "--case: no case named '" + name + "': expected one of " + caseNames());
        }
      }
      b.withCases(chosen);
    }
    if (fleetStart != null) {
      b.withCosts(withFleetStart(Limiters.Costs.MEASURED, fleetStart));
    }
    return b.build().run();
  }

  private static String caseNames() {
    List<String> names = new ArrayList<>();
    for (Limiters.Case c : Limiters.Case.values()) {
      names.add(c.label());
    }
    return String.join(", ", names);
  }

  /** The costs with each fleet process's start between the two durations of {@code LOW..HIGH}. */
  private Limiters.Costs withFleetStart(Limiters.Costs c, String range) {
    int dots = range.indexOf("..");
    long low;
    long high;
    try {
      if (dots < 0) {
        throw new IllegalArgumentException("no '..'");
      }
      DurationConverter durations = new DurationConverter();
      low = durations.convert(range.substring(0, dots).strip()).toNanos();
      high = durations.convert(range.substring(dots + 2).strip()).toNanos();
    } catch (Exception e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--fleet-start must be two durations LOW..HIGH, e.g. 4s..8s: " + range);
    }
    if (low < 0 || high < low) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--fleet-start: LOW must be at most HIGH: " + range);
    }
    return new Limiters.Costs(
        c.startLow(),
        c.startHigh(),
        c.warmLow(),
        c.warmHigh(),
        c.coldAnswers(),
        low,
        high,
        c.exit(),
        c.rttLow(),
        c.rttHigh(),
        c.headerService(),
        c.redis());
  }

  /** The bench's medians from {@code --compare}, or null (said on stderr) if unreadable. */
  private Map<String, Limiters.Measured> measured() {
    try {
      return Limiters.Measured.parse(Files.readString(compare, StandardCharsets.UTF_8));
    } catch (IOException e) {
      spec.commandLine().getErr().println("relent: cannot read " + compare + ": " + reason(e));
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("relent: " + compare + ": " + e.getMessage());
    }
    spec.commandLine().getErr().flush();
    return null;
  }

  private boolean write(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
      spec.commandLine().getOut().println("wrote " + file);
      spec.commandLine().getOut().flush();
      return true;
    } catch (IOException e) {
      spec.commandLine().getErr().println("relent: cannot write " + file + ": " + reason(e));
      spec.commandLine().getErr().flush();
      return false;
    }
  }

  /** Why a write failed, in words; the exception's own message often repeats only the path. */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "the directory does not exist";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
      return ((FileSystemException) e).getReason();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
