package dev.relent.cli.batch;

import dev.relent.cli.common.DurationConverter;
import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Format;
import dev.relent.cli.common.Rate;
import dev.relent.cli.common.RetryOptions;
import dev.relent.cli.common.UsageError;
import dev.relent.guard.Scope;
import dev.relent.http.HttpScopes;
import dev.relent.http.Redactor;
import dev.relent.redis.RelentRedis;
import dev.relent.time.Clock;
import dev.relent.time.Ticker;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relent batch FILE}: runs a queue of requests (JSON Lines, {@link BatchInput}) under one
 * budget: a shared pacer ({@code --rate}), a concurrency limit, the retry options of {@code relent
 * call}, a deadline per request and one for the whole run. With {@code --journal} the run is
 * crash-safe ({@link BatchJournal}): run the same command again after a crash, a kill or a quota
 * stop, and it skips what finished and sends the rest, writes with their original idempotency keys.
 * Results go to {@code --out} as JSON Lines; progress and problems to stderr; the summary to
 * stdout. Each scope of the requests ({@code --scope-by}) has its own pause and learns its own
 * rate, under {@code --rate} for the whole queue; a quota that runs out stops its scope alone
 * ({@link BatchRun}). With {@code --shared redis://HOST:PORT[/DB] --account NAME} the pacers'
 * schedules and the concurrency limit are shared through Redis by every process of the account
 * ({@link BatchSharing}), each going on alone at its share while Redis is away; the journal stays
 * this process's own.
 *
 * <p>Exit codes ({@link ExitCodes}): 0 every request succeeded; 3 some failed without retry (or a
 * bad line was skipped); 4 some used up their retries; 5 time or quota (a request's deadline, the
 * batch deadline, a quota, a request not sent); 6 some keyed writes are unresolved (they may have
 * taken effect; the same command sends them again with their keys); 1 an unexpected error (the
 * journal cannot be written); 2 usage. When several apply, the highest of 6, 5, 4, 3 wins; 1 only
 * when nothing else failed.
 */
@Command(
    name = "batch",
    mixinStandardHelpOptions = true,
    defaultValueProvider = RetryOptions.Defaults.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Send a queue of requests (JSON Lines) under one budget: a shared pacer and concurrency"
          + " limit, retries that are safe, a journal that survives a crash.",
      ""
    },
    footer = {
      "",
      "Input, one request a line: {\"id\": \"p-1\", \"method\": \"POST\", \"url\": \"https://…\","
          + " \"headers\": {…}, \"body\": {…}}.",
      "Durations: " + DurationConverter.FORMS + ". Rates: " + Rate.FORMS + ".",
      "",
      "Exit codes: 0 all succeeded; 1 unexpected error; 2 usage error; 3 some not retried (4xx,"
          + " a write without key) or bad lines skipped; 4 some exhausted their retries; 5 time or"
          + " quota (deadline, batch deadline, quota, not sent); 6 some keyed writes unresolved"
          + " (may have taken effect: run again to send them with their keys). Details:"
          + " docs/cli.md.",
      "",
      "Scopes: each scope (--scope-by; the endpoint by default) has its own pause and learns its"
          + " own rate, under --rate for the whole queue: a 429 with a wait pauses and slows its"
          + " scope alone, and a quota that runs out stops its scope alone (its requests are not"
          + " sent before the reset; with --journal, the same command sends them after it) while"
          + " the others go on. The summary shows each scope paused or stopped, until when and"
          + " by which request.",
      "",
      "Report: --html report.html writes a page to open in a browser once the run ends: the"
          + " rate, the outcomes and the attempts in flight over time, latency percentiles, the"
          + " slowest and the failed requests.",
      "",
      "Example: relent batch payments.jsonl --rate 90/min --concurrency 4 --journal"
          + " payments.journal --out results.jsonl"
    })
public final class BatchCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "The requests, JSON Lines.")
  Path input;

  @Option(
      names = "--rate",
      paramLabel = "RATE",
      description =
          "Most starts per unit of time for the whole queue, retries included, e.g. 90/min: a"
              + " ceiling for every scope together. A scope's 429s and rate-limit headers slow"
              + " that scope below it. Default: none (each scope's rate is learned).")
  Rate rate;

  @Option(
      names = "--concurrency",
      paramLabel = "N",
      defaultValue = "4",
      description = "Most attempts in flight at once (and workers). Default ${DEFAULT-VALUE}.")
  int concurrency;

  @Option(
      names = "--retry-budget",
      paramLabel = "RATIO",
      description =
          "Retries allowed per first attempt, over a sliding 10 s, plus 10 a second: 0.2 or 20%%"
              + " (0 to 1). A retry over it is not made and the request fails with retry-budget."
              + " With --shared, one budget for the whole account. Default: none.")
  String retryBudget;

  @Option(
      names = "--breaker",
      paramLabel = "PERCENT",
      description =
          "A circuit breaker that opens when PERCENT of the last 100 attempts (at least 20)"
              + " failed, e.g. 50 or 50%%, and stays open 30 s before probing; requests it refuses"
              + " before any attempt are not-sent (a resumed run sends them). With --shared, one"
              + " breaker for the whole account. Default: none.")
  String breaker;

  @Option(
      names = "--scope-by",
      paramLabel = "endpoint|account|header:NAME",
      defaultValue = "endpoint",
      description =
          "Whose limit a 429 with a wait is, and so what it pauses and slows down, and what a"
              + " quota that runs out stops: the request's endpoint (route template), its whole"
              + " account (host), or the API key or tenant in header NAME (named by a short hash,"
              + " never the value). Default ${DEFAULT-VALUE}.")
  String scopeBy;

  @Option(
      names = "--route",
      paramLabel = "TEMPLATE",
      description =
          "A route template naming an endpoint, e.g. /v1/payments/{id}; repeatable. Other paths:"
              + " ids, numbers and UUIDs become {id}.")
  List<String> routes = new ArrayList<>();

  @Option(
      names = "--shared",
      paramLabel = "URI",
      description =
          "Share the pacer's schedule and the concurrency limit through Redis,"
              + " redis://HOST:PORT[/DB], with every relent batch started with the same --shared"
              + " and --account: together they start no faster than --rate and have at most"
              + " --concurrency in flight, a scope's slow-down one learns from a 429 slows that"
              + " scope in all, and a scope a 429 pauses is paused in all. Each keeps its own"
              + " journal. If Redis is"
              + " lost, each goes on alone at its share until it is back. Default: none (paces"
              + " alone).")
  String shared;

  @Option(
      names = "--account",
      paramLabel = "NAME",
      description =
          "Whose schedule --shared shares: 1 to 100 letters, digits and - _ . :. Only with"
              + " --shared. Default: the host of the first request line.")
  String account;

  @CommandLine.Mixin RetryOptions retry;

  @Option(
      names = "--batch-deadline",
      paramLabel = "DURATION",
      description =
          "Time limit of the whole run: after it no attempt starts and what is left is recorded"
              + " as not sent (exit 5). Default: none.")
  Duration batchDeadline;

  @Option(
      names = "--journal",
      paramLabel = "FILE",
      description =
          "Make the run crash-safe: keys and outcomes are journaled (fsync'd) as they happen; the"
              + " same command resumes, skipping what finished.")
  Path journalFile;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "Write one JSON line per request: id, outcome, status, attempts, waits, error.")
  Path outFile;

  @Option(
      names = "--html",
      paramLabel = "FILE",
      description =
          "After the run, also after a stop, write a self-contained HTML report: starts per second"
              + " against the rate, 429s and other outcomes over time, attempts in flight, latency"
              + " percentiles, the slowest and the failed requests with their attempts. URLs are"
              + " redacted, headers left out. Default: none.")
  Path htmlFile;

  @Option(
      names = "--strict",
      description = "Refuse the whole input when a line is bad (exit 2), instead of skipping it.")
  boolean strict;

  @Option(
      names = "--progress",
      paramLabel = "auto|bar|lines|off",
      defaultValue = "auto",
      description =
          "Progress on stderr: a bar on a terminal, a line every 5 s otherwise (auto). Default"
              + " auto.")
  BatchDisplay.Mode progress;

  /** Monotonic time; replaced by tests. */
  Ticker ticker = Ticker.system();

  /** Wall-clock time; replaced by tests. */
  Clock clock = Clock.system();

  /** Whether Ctrl-C (a JVM shutdown) stops the run gracefully; tests in-process turn it off. */
  boolean shutdownHook = true;

  /**
   * Given, as the run starts, what Ctrl-C does to it (stop it as interrupted), for a test
   * in-process to do when it chooses; null (the default) for none. The JVM's shutdown hook does the
   * same.
   */
  java.util.function.Consumer<Runnable> interrupts;

  /** How often a plain progress line is printed. */
  Duration lineEvery = Duration.ofSeconds(5);

  private final Redactor redactor = Redactor.ofDefaults();

  /** The retry budget and breaker asked for, checked in {@link #call()}. */
  private BatchSettings.Guards guards = BatchSettings.Guards.NONE;

  /**
   * Reads {@code --retry-budget} (a ratio, 0 to 1, or a percentage) or {@code --breaker} (a
   * percentage, with or without its sign, above 0 and at most 100).
   */
  static double ratio(CommandLine cli, String option, String given, boolean percent) {
    String text = given.strip();
    boolean sign = text.endsWith("%");
    double value;
    try {
      value = Double.parseDouble(sign ? text.substring(0, text.length() - 1).strip() : text);
    } catch (NumberFormatException e) {
      value = Double.NaN;
    }
    if (percent) {
      if (!(value > 0 && value <= 100)) {
        throw new UsageError(
            cli,
            option + " must be a failure rate above 0 and at most 100, e.g. 50 or 50%: " + given);
      }
      return value;
    }
    double ratio = sign ? value / 100 : value;
    if (!(ratio >= 0 && ratio <= 1)) {
      throw new UsageError(
          cli,
          option
              + " must be retries per first attempt from 0 to 1, or a percentage, e.g. 0.2 or 20%: "
              + given);
    }
    return ratio;
  }

  @Override
  public Integer call() throws Exception {
    CommandLine cli = spec.commandLine();
    HttpScopes scopes = checkOptions(cli);
    BatchSharing.Target sharedTarget = checkSharing(cli);
    checkFiles(cli);
    BatchInput.Scan scan = BatchPlan.scan(cli, input, redactor, strict);
    // Connected before the journal is opened: a Redis that cannot be reached is a usage error
    // that leaves no file behind.
    BatchSettings.Shared sharing = sharedTarget == null ? null : share(cli, sharedTarget, scan);
    try {
      return journalAndRun(cli, cli.getErr(), cli.getOut(), scan, scopes, sharing);
    } finally {
      if (sharing != null) {
        sharing.redis().close();
      }
    }
  }

  /** The flags' values, before any file is touched; returns how requests get their scopes. */
  private HttpScopes checkOptions(CommandLine cli) {
    retry.validate(cli);
    if (concurrency < 1 || concurrency > 1024) {
      throw new UsageError(cli, "--concurrency must be 1 to 1024: " + concurrency);
    }
    if (batchDeadline != null) {
      UsageError.requirePositive(cli, "--batch-deadline", batchDeadline);
    }
    guards =
        new BatchSettings.Guards(
            retryBudget == null ? null : ratio(cli, "--retry-budget", retryBudget, false),
            breaker == null ? null : ratio(cli, "--breaker", breaker, true));
    try {
      return BatchScopes.parse(scopeBy, routes);
    } catch (IllegalArgumentException e) {
      throw new UsageError(cli, e.getMessage());
    }
  }

  /** {@code --shared} and {@code --account}: where the schedule is shared, or null for nowhere. */
  private BatchSharing.Target checkSharing(CommandLine cli) {
    BatchSharing.Target target = shared == null ? null : BatchSharing.target(cli, shared);
    if (account != null) {
      if (shared == null) {
        throw new UsageError(
            cli,
            "--account names whose schedule --shared shares: give --shared "
                + BatchSharing.FORM
                + " too, or leave out --account");
      }
      BatchSharing.checkAccount(cli, account);
    }
    return target;
  }

  /** The files written: each writable, the journal and the results two files, the report's. */
  private void checkFiles(CommandLine cli) {
    UsageError.requireWritable(cli, "--journal", journalFile);
    UsageError.requireWritable(cli, "--out", outFile);
    if (journalFile != null && outFile != null && sameFile(journalFile, outFile)) {
      throw new UsageError(cli, "--journal and --out name the same file; give two files");
    }
    checkReportFile(cli);
  }

  /**
   * Connects to the Redis of {@code --shared} and names the account whose schedule is shared (the
   * given one, or the first request's host); null, with the connection checked and closed, when the
   * input has no request to pace.
   */
  private BatchSettings.Shared share(
      CommandLine cli, BatchSharing.Target target, BatchInput.Scan scan) {
    String name = account != null ? account : BatchSharing.accountOf(firstHost(cli, scan));
    if (name == null && scan.requests() > 0) {
      throw new UsageError(
          cli,
          "--shared without --account: the host of the first request line cannot name the"
              + " account (letters, digits and - _ . : only); give --account NAME");
    }
    RelentRedis redis = BatchSharing.connect(cli, target, cli.getErr());
    if (name == null) {
      redis.close();
      return null;
    }
    return new BatchSettings.Shared(redis, name);
  }

  /** The host of the first request line, or null if there is none. */
  private String firstHost(CommandLine cli, BatchInput.Scan scan) {
    try (BatchInput.Requests requests = BatchInput.requests(input, redactor, scan)) {
      BatchInput.Request first = requests.next();
      return first == null ? null : first.request().uri().getHost();
    } catch (IOException e) {
      throw new UsageError(cli, input + ": cannot read: " + e.getMessage());
    }
  }

  private int journalAndRun(
      CommandLine cli,
      PrintWriter err,
      PrintWriter out,
      BatchInput.Scan scan,
      HttpScopes scopes,
      BatchSettings.Shared sharing)
      throws Exception {
    BatchJournal journal = null;
    if (journalFile != null) {
      try {
        journal = BatchJournal.open(journalFile, input, now());
      } catch (BatchJournal.Unusable e) {
        throw new UsageError(cli, "--journal " + e.getMessage());
      } catch (IOException e) {
        throw new UsageError(cli, "--journal " + journalFile + ": cannot open: " + e.getMessage());
      }
    }
    try {
      return run(cli, err, out, scan, journal, scopes, sharing);
    } catch (IOException e) {
      err.println("relent batch: " + redactor.text(String.valueOf(e.getMessage())));
      return ExitCodes.ERROR;
    } finally {
      if (journal != null) {
        journal.close();
      }
    }
  }

  private int run(
      CommandLine cli,
      PrintWriter err,
      PrintWriter out,
      BatchInput.Scan scan,
      BatchJournal journal,
      HttpScopes scopes,
      BatchSettings.Shared sharing)
      throws Exception {
    BatchPlan.Earlier earlier =
        journal == null || journal.created()
            ? BatchPlan.Earlier.NONE
            : BatchPlan.resume(cli, input, redactor, journal, scan, err);
    Writer results =
        outFile == null ? null : Files.newBufferedWriter(outFile, StandardCharsets.UTF_8);
    BatchInput.Requests requests = BatchInput.requests(input, redactor, scan, retry.timeout);
    try {
      BatchRun run = newRun(scan, earlier, journal, requests, results, scopes, sharing);
      if (earlier.finished() > 0) {
        run.recorder().copyEarlierResults();
      }
      run.recorder().runStarted(now(), scan.requests(), earlier.finished());
      if (journal != null) {
        holdBackStoppedScopes(err, journal, run);
      }
      BatchReport report = null;
      if (htmlFile != null) {
        report = new BatchReport(run.timeline()::origin, run::paceNanos);
        run.report(report);
      }
      // A stop signal waits (5 s at most) until the run has recorded what it has and said so.
      StopOnSignal signal = stopOnSignal(run);
      try {
        BatchDisplay.Live live =
            new BatchDisplay.Live(run, err, progress, lineEvery, "relent batch: ");
        live.start();
        run.run();
        live.finish();
        int code =
            recordEnd(run, err, journal, BatchSummary.exitCode(run, scan.problems(), earlier));
        BatchDisplay.summary(
            out, "relent batch: ", run, earlier.finished(), earlier.failed(), scan.problems());
        BatchSummary.whatIsLeft(out, run, journal != null);
        out.flush();
        if (report != null) {
          report.finish(ticker.read());
          code = writeReport(err, run, report, earlier.finished(), code);
        }
        if (code != ExitCodes.OK) {
          err.println(
              "relent batch: "
                  + BatchSummary.closing(run, code, journal != null, earlier.failedCount()));
        }
        err.flush();
        return code;
      } finally {
        signal.close();
      }
    } finally {
      requests.close();
      if (results != null) {
        results.close();
      }
    }
  }

  /** The run of the requests not finished earlier, on the options' settings. */
  private BatchRun newRun(
      BatchInput.Scan scan,
      BatchPlan.Earlier earlier,
      BatchJournal journal,
      BatchInput.Requests requests,
      Writer results,
      HttpScopes scopes,
      BatchSettings.Shared sharing) {
    BatchJournal skip = earlier.finished() > 0 ? journal : null;
    BatchRun.Source todo =
        BatchRun.Source.of(requests, skip == null ? id -> false : skip::finished);
    return new BatchRun(
        new BatchSettings(
            rate,
            concurrency,
            retry.policy(),
            retry.random(),
            retry.timeout,
            batchDeadline,
            scopes,
            sharing,
            guards),
        todo,
        scan.requests() - earlier.finished(),
        false,
        journal,
        results,
        ticker,
        clock,
        redactor);
  }

  /**
   * Makes Ctrl-C and SIGTERM (and a test's {@link #interrupts}) stop the run; closing what it
   * returns, once the run has recorded and said what it has, lets a waiting signal go and removes
   * the shutdown hook.
   */
  private StopOnSignal stopOnSignal(BatchRun run) {
    Runnable interrupt =
        () ->
            run.stop(
                BatchStop.INTERRUPTED,
                "interrupted: the process was asked to stop (Ctrl-C, SIGTERM)");
    if (interrupts != null) {
      interrupts.accept(interrupt);
    }
    return new StopOnSignal(shutdownHook ? interrupt : null);
  }

  /** The shutdown hook of a run: it stops the run, then waits for it to record what it has. */
  private static final class StopOnSignal {
    private final CountDownLatch ended = new CountDownLatch(1);
    private final Thread hook;

    StopOnSignal(Runnable interrupt) {
      if (interrupt == null) {
        hook = null;
        return;
      }
      hook =
          new Thread(
              () -> {
                interrupt.run();
                try {
                  // Let the run record what it has and print its summary.
                  ended.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "relent-batch-stop");
      Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The run has recorded what it has: a waiting signal may go. */
    void close() {
      ended.countDown();
      if (hook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // the JVM is shutting down: the hook is running and waits for this run
        }
      }
    }
  }

  /** Journals the run's end; a journal that cannot be written makes the exit code 1. */
  private int recordEnd(BatchRun run, PrintWriter err, BatchJournal journal, int code) {
    if (journal == null) {
      return code;
    }
    try {
      run.recorder()
          .runEnded(now(), code, stoppedSlug(run), journaled(run.quotaStops(), journal.runs() + 1));
      return code;
    } catch (IOException e) {
      err.println("relent batch: cannot write the journal: " + e.getMessage());
      return ExitCodes.ERROR;
    }
  }

  /**
   * Why the run stopped, for the journal's {@code end} record: the run's own stop, else {@code
   * quota} when a scope's quota ran out, else null.
   */
  private static String stoppedSlug(BatchRun run) {
    if (run.stopReason() != null) {
      return Format.slug(run.stopReason());
    }
    return run.quotaStops().isEmpty() ? null : "quota";
  }

  /**
   * The quota stops of a run as the journal's {@code end} record lists them, each with the run that
   * was told ({@code thisRun}, or the earlier one a stop was held over from).
   */
  private static List<Map<String, Object>> journaled(List<QuotaStop> stops, int thisRun) {
    List<Map<String, Object>> list = new ArrayList<>();
    for (QuotaStop q : stops) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("scope", q.scope().toString());
      m.put("until", q.until().map(Instant::toString).orElse(null));
      m.put("cause", q.cause());
      m.put("run", (long) (q.earlierRun() > 0 ? q.earlierRun() : thisRun));
      m.put("not_sent", q.notSent());
      list.add(m);
    }
    return list;
  }

  /**
   * Holds back, until their reset, the scopes an earlier run of the journal found out of quota, and
   * says so on stderr; a scope whose reset has passed is sent to again.
   */
  private void holdBackStoppedScopes(PrintWriter err, BatchJournal journal, BatchRun run) {
    for (BatchJournal.StoppedScope stopped : journal.stoppedScopes()) {
      Scope scope = scopeNamed(stopped.scope());
      Instant until = null;
      try {
        until = stopped.until() == null ? null : Instant.parse(stopped.until());
      } catch (DateTimeParseException e) {
        // not a time: the server is asked again
      }
      if (scope != null && run.stoppedEarlier(scope, until, stopped.cause(), stopped.run())) {
        err.println(
            "relent batch: "
                + scope
                + ": its quota is exhausted until "
                + Format.instant(until)
                + " (in "
                + Format.span(
                    Duration.ofMillis(Math.max(0L, until.toEpochMilli() - clock.millis())))
                + "), as run "
                + stopped.run()
                + " was told ("
                + stopped.cause()
                + "); its requests are not sent before then");
      }
    }
  }

  /** The scope a name like {@code endpoint GET h/v1/items/{id}} is of, or null if none. */
  static Scope scopeNamed(String name) {
    int space = name.indexOf(' ');
    if (space <= 0) {
      return null;
    }
    try {
      return Scope.of(Scope.Kind.parse(name.substring(0, space)), name.substring(space + 1));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Checks, before anything is sent, that the report of {@code --html} can be written where it is
   * asked for: in a directory that exists and takes a new file (the report is written to a
   * temporary file there, then moved into place), not over the input, the journal or the results.
   */
  private void checkReportFile(CommandLine cli) {
    if (htmlFile == null) {
      return;
    }
    Path dir = htmlFile.toAbsolutePath().getParent();
    if (Files.isDirectory(htmlFile)) {
      throw new UsageError(
          cli, "--html " + htmlFile + ": is a directory; give a file name, e.g. report.html");
    }
    if (dir == null || !Files.isDirectory(dir)) {
      throw new UsageError(
          cli,
          "--html "
              + htmlFile
              + ": the directory "
              + dir
              + (dir != null && Files.exists(dir) ? " is not a directory" : " does not exist")
              + "; create it first, or give a file in an existing directory");
    }
    for (Path other : new Path[] {input, journalFile, outFile}) {
      if (other != null && sameFile(htmlFile, other)) {
        throw new UsageError(
            cli,
            "--html "
                + htmlFile
                + " is also "
                + (other == input ? "the input" : other == journalFile ? "--journal" : "--out")
                + "; give the report a file of its own");
      }
    }
    Path probe = BatchHtml.temporary(htmlFile.toAbsolutePath());
    try {
      Files.newOutputStream(probe, StandardOpenOption.CREATE_NEW).close();
      Files.delete(probe);
    } catch (IOException e) {
      throw new UsageError(
          cli,
          "--html "
              + htmlFile
              + ": cannot write in "
              + dir
              + " ("
              + (e instanceof AccessDeniedException ? "permission denied" : e.getMessage())
              + "); give a file in a directory you can write");
    }
  }

  /**
   * Writes the report of {@code --html}, after the journal and the results are complete: a report
   * that cannot be written says so on stderr and makes an exit code of 0 a 1; it changes nothing
   * else.
   */
  private int writeReport(
      PrintWriter err, BatchRun run, BatchReport report, int earlier, int code) {
    try {
      BatchHtml.write(
          htmlFile,
          BatchHtml.page(
              String.valueOf(input.getFileName()),
              run,
              report,
              earlier,
              Instant.ofEpochMilli(clock.millis())));
      err.println("relent batch: report written to " + htmlFile);
      return code;
    } catch (IOException | RuntimeException e) {
      err.println(
          "relent batch: cannot write the report "
              + htmlFile
              + ": "
              + redactor.text(String.valueOf(e.getMessage()))
              + (journalFile != null || outFile != null
                  ? "; the journal and the results are complete"
                  : ""));
      return code == ExitCodes.OK ? ExitCodes.ERROR : code;
    }
  }

  private String now() {
    return Instant.ofEpochMilli(clock.millis()).toString();
  }

  private static boolean sameFile(Path a, Path b) {
    return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
  }
}
