package dev.relent.cli;

import dev.relent.sim.Contention;
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
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relent simulate contention|storm|queue}: runs one of the simulator's models on virtual
 * time with Relent's real backoff, budget, breaker and pacer, prints a table, and optionally writes
 * CSV and a self-contained HTML report with charts.
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
      "",
      "Example: relent simulate contention --seed 1 --csv contention.csv --html contention.html"
    })
final class SimulateCommand implements Callable<Integer> {
  static final List<String> MODELS = List.of("contention", "storm", "queue");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "MODEL",
      description = "The model: contention, storm or queue.")
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
          "Trials to average, 1 to 100000. Default: 100 (contention), 3 (storm), 10 (queue).")
  Integer trials;

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
          "unknown model '" + model + "': expected one of contention, storm, queue");
    }
    if (trials != null && (trials < 1 || trials > 100_000)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--trials must be between 1 and 100000: " + trials);
    }
    ModelResult result = run();
    PrintWriter out = spec.commandLine().getOut();
    out.print(result.table());
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
