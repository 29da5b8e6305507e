package dev.relent.cli.batch;

import dev.relent.Jitter;
import dev.relent.cli.common.CallOutcome;
import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Format;
import dev.relent.cli.common.Outcome;
import dev.relent.cli.common.Plan;
import dev.relent.cli.common.Rate;
import dev.relent.cli.common.RetryOptions;
import dev.relent.guard.Scope;
import dev.relent.http.AttemptRecord;
import dev.relent.http.HttpScopes;
import dev.relent.http.Redactor;
import dev.relent.mockserver.JournalEntry;
import dev.relent.mockserver.MockServer;
import dev.relent.mockserver.MockServerStats;
import dev.relent.mockserver.Scenario;
import dev.relent.time.Clock;
import dev.relent.time.RandomSource;
import dev.relent.time.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code relent demo}: Relent against a rate-limited, half-broken payment API, end to end, in about
 * ten seconds and with nothing but Java.
 *
 * <p>It starts the mock server in-process with {@code demo-scenario.json} (a rate limit, scattered
 * 503s, 429s with {@code Retry-After: 1}, a slow route, payments answered 504 or reset after they
 * were created), runs the small batch from the guide (20 reads) plus a slow report, five keyed
 * payments and one unkeyed payment through {@link BatchRun} (the engine of {@code relent batch},
 * with a journal), then prints the live progress, the attempt timeline of the interesting requests,
 * the summary, and checks its claims against the server's own records: every read succeeded, every
 * keyed payment exists exactly once, the unkeyed one was not re-sent, 429s paused the whole queue,
 * the pace held. Exit 0 when every claim holds, 1 with the claims that failed otherwise.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "See Relent survive a rate-limited, half-broken payment API (an embedded mock server):"
          + " about ten seconds, nothing to install.",
      ""
    })
public final class DemoCommand implements Callable<Integer> {
  static final String SCENARIO = "demo-scenario.json";
  static final Rate RATE = new Rate(480, Duration.ofMinutes(1));
  static final Rate API_LIMIT = new Rate(600, Duration.ofMinutes(1));
  static final int CONCURRENCY = 4;
  static final int READS = 20;
  static final int PAYMENTS = 5;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--progress",
      paramLabel = "auto|bar|lines|off",
      defaultValue = "auto",
      description = "Progress: a bar on a terminal, a line a second otherwise (auto).")
  BatchDisplay.Mode progress;

  /** The claims checked, with their results; for tests. */
  final List<Claim> claims = new ArrayList<>();

  /** A statement about the run and whether the records bear it out. */
  record Claim(boolean holds, String text) {}

  private final Redactor redactor = Redactor.ofDefaults();

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Scenario scenario;
    try (InputStream in = DemoCommand.class.getResourceAsStream(SCENARIO)) {
      if (in == null) {
        err.println("relent demo: " + SCENARIO + " is missing from the jar");
        return ExitCodes.ERROR;
      }
      scenario = Scenario.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), SCENARIO);
    }
    Path dir = Files.createTempDirectory("relent-demo");
    try (MockServer server = MockServer.start(scenario)) {
      return run(server, dir, out, err);
    } finally {
      deleteTree(dir);
    }
  }

  private int run(MockServer server, Path dir, PrintWriter out, PrintWriter err)
      throws IOException, InterruptedException {
    List<String> lines = input(server);
    Path inputFile = dir.resolve("demo.jsonl");
    Files.write(inputFile, lines, StandardCharsets.UTF_8);
    BatchInput.Parsed parsed = BatchInput.read(inputFile, redactor);
    if (!parsed.problems().isEmpty()) {
      err.println("relent demo: bad demo input: " + parsed.problems());
      return ExitCodes.ERROR;
    }
    int requests = parsed.requests().size();
    Plan plan = Plan.of(API_LIMIT, RATE, requests, Duration.ofMillis(50), CONCURRENCY, null);

    out.println("relent demo: a rate-limited, half-broken payment API, survived end to end.");
    out.println();
    out.println("The API (a mock server on " + server.baseUri() + ") has a bad day:");
    out.println("  - a rate limit of " + API_LIMIT + " (10/s); above it, 429s");
    out.println("  - GET /accounts/{id}: now and then a 503, or a 429 with Retry-After: 1");
    out.println(
        "  - GET /reports/daily: 1.5 s to answer the first time; each attempt may take 1 s");
    out.println(
        "  - POST /payments: some payments are created, then the gateway answers 504 or the");
    out.println("    connection breaks: did it go through? the client cannot tell");
    out.println();
    out.printf(
        Locale.ROOT,
        "Relent sends %d requests (%d reads, 1 slow report, %d payments with an%n",
        requests,
        READS,
        PAYMENTS);
    out.println(
        "Idempotency-Key, 1 payment without) through ONE shared pacer and concurrency limit:");
    out.printf(
        Locale.ROOT,
        "  %s = one start every %s, %s below the API's limit; at most %d in flight;%n",
        RATE,
        Format.millis(plan.startInterval()),
        Format.number(plan.headroomPercent()) + " %",
        CONCURRENCY);
    out.printf(
        Locale.ROOT,
        "  the plan says at least %s; up to 4 retries each, backoff 100 ms..1 s with jitter.%n",
        Format.duration(plan.minimumDuration()));
    out.println("  Each payment's key is written to a journal (fsync) before its first send.");
    out.println(
        "  A retry waits for its backoff (or the server's Retry-After), then for its turn at");
    out.println("  the pacer: retries draw from the same budget as first attempts.");
    out.println();
    out.flush();

    RetryOptions retry = new RetryOptions();
    retry.maxRetries = 4;
    retry.base = Duration.ofMillis(100);
    retry.cap = Duration.ofSeconds(1);
    retry.jitter = Jitter.FULL;
    retry.timeout = Duration.ofSeconds(1);
    retry.deadline = Duration.ofSeconds(15);
    BatchRun run;
    try (BatchJournal journal =
        BatchJournal.open(
            dir.resolve("demo.journal"),
            inputFile,
            java.time.Instant.ofEpochMilli(Clock.system().millis()).toString())) {
      run =
          new BatchRun(
              new BatchSettings(
                  RATE,
                  CONCURRENCY,
                  retry.policy(),
                  RandomSource.system(),
                  retry.timeout,
                  Duration.ofSeconds(50),
                  // The demo API has one limit for the whole account: its 429s pause everything.
                  HttpScopes.builder().withPauseDefault(Scope.Kind.ACCOUNT).build()),
              parsed.requests(),
              journal,
              null,
              Ticker.system(),
              Clock.system(),
              redactor);
      BatchDisplay.Live live =
          new BatchDisplay.Live(run, err, progress, Duration.ofSeconds(1), "progress: ");
      live.start();
      run.run();
      live.finish();
    } catch (BatchJournal.Unusable e) {
      err.println("relent demo: " + e.getMessage());
      return ExitCodes.ERROR;
    }

    out.println();
    out.println("What happened to a few of them (t = since the batch began):");
    for (BatchRecorder.Job job : interesting(run)) {
      timeline(out, job);
    }
    out.println();
    BatchDisplay.summary(out, "Summary: ", run, 0, Map.of(), 0);
    out.println();
    check(run, server);
    out.println("Checked against the server's own records:");
    int failed = 0;
    for (Claim c : claims) {
      List<String> text = wrap(c.text(), 88);
      out.println("  [" + (c.holds() ? " ok " : "FAIL") + "] " + text.get(0));
      for (String more : text.subList(1, text.size())) {
        out.println("         " + more);
      }
      if (!c.holds()) {
        failed++;
      }
    }
    out.println();
    if (failed > 0) {
      out.flush();
      err.println(
          "relent demo: "
              + failed
              + (failed == 1 ? " claim does" : " claims do")
              + " not hold; see above");
      return ExitCodes.ERROR;
    }
    out.println("All claims hold. Next: ./relent batch --help for your own queue, docs/cli.md,");
    out.println("and ./mvnw -B verify for the tests behind these claims.");
    out.flush();
    return ExitCodes.OK;
  }

  /** 20 reads, a slow report, 5 keyed payments and 1 unkeyed one, interleaved. */
  static List<String> input(MockServer server) {
    List<String> lines = new ArrayList<>();
    int payment = 0;
    for (int i = 1; i <= READS; i++) {
      lines.add(
          String.format(
              Locale.ROOT,
              "{\"id\": \"acct-%02d\", \"url\": \"%s\"}",
              i,
              server.uri("/accounts/" + i)));
      if (i == 2) {
        lines.add("{\"id\": \"report\", \"url\": \"" + server.uri("/reports/daily") + "\"}");
      }
      if (i % 3 == 0 && payment < PAYMENTS) {
        payment++;
        lines.add(
            String.format(
                Locale.ROOT,
                "{\"id\": \"pay-%d\", \"method\": \"POST\", \"url\": \"%s\","
                    + " \"body\": {\"amount\": %d, \"currency\": \"EUR\", \"order\": \"o-%d\"}}",
                payment,
                server.uri("/payments"),
                1000 + 250 * payment,
                payment));
      }
      if (i == 10) {
        lines.add(
            "{\"id\": \"legacy-pay\", \"method\": \"POST\", \"url\": \""
                + server.uri("/legacy/payments")
                + "\", \"idempotency_key\": false,"
                + " \"body\": {\"amount\": 990, \"currency\": \"EUR\", \"order\": \"o-legacy\"}}");
      }
    }
    return lines;
  }

  /** The requests worth a timeline: the first of each kind of trouble, and the two writes. */
  private static List<BatchRecorder.Job> interesting(BatchRun run) {
    List<BatchRecorder.Job> picked = new ArrayList<>();
    Set<String> kinds = new HashSet<>();
    for (BatchRecorder.Job j : run.jobs()) {
      String kind = null;
      if (j.request.id().equals("report") || j.request.id().equals("legacy-pay")) {
        kind = j.request.id();
      } else if (j.attempts.size() > 1) {
        int first = j.attempts.get(0).status();
        kind = (j.request.id().startsWith("pay") ? "pay-" : "read-") + first;
      }
      if (kind != null && kinds.add(kind)) {
        picked.add(j);
      }
    }
    picked.sort(Comparator.comparingInt(j -> j.request.line()));
    return picked;
  }

  private void timeline(PrintWriter out, BatchRecorder.Job job) {
    URI uri = job.request.request().uri();
    String key =
        job.key != null
            ? "  Idempotency-Key " + job.key.substring(0, Math.min(8, job.key.length())) + "…"
            : job.request.method().equals("POST") ? "  (no Idempotency-Key)" : "";
    out.println("  " + job.request.id() + "  " + job.request.method() + " " + uri.getPath() + key);
    for (AttemptRecord a : job.attempts) {
      String what = a.outcome();
      if (a.replayed()) {
        what += ", replayed";
      }
      if (a.serverHint().isPresent() && a.status() >= 400) {
        what += " (" + a.serverHint().get() + ")";
      }
      out.printf(
          Locale.ROOT,
          "    t=%5.2f s  attempt %d  %-38s %s%n",
          job.startNanos(a) / 1e9,
          a.number(),
          what,
          decision(job, a));
    }
    BatchRecorder.Item item = job.item;
    if (item != null && Outcome.of(item.outcome()) == Outcome.NOT_RESENT) {
      out.println("    -> not re-sent. Relent says, for whoever reconciles it:");
      for (String l : wrap(item.error(), 86)) {
        out.println("       " + l);
      }
    }
  }

  private static String decision(BatchRecorder.Job job, AttemptRecord a) {
    if (a.waitTime().isPresent()) {
      String wait = Format.duration(a.waitTime().get());
      if (a.status() == 429) {
        return "retry in " + wait + "; the pacer paused every worker";
      }
      if (job.key != null) {
        return "retry in " + wait + ", same key: safe";
      }
      return "retry in " + wait;
    }
    if (a.replayed()) {
      return "success: the server replayed the stored answer";
    }
    if (CallOutcome.isSuccess(a.status())) {
      return "success";
    }
    return "stop (" + a.rule() + ")";
  }

  private static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }

  // ------------------------------------------------------------------ the claims

  private void check(BatchRun run, MockServer server) {
    MockServerStats stats = server.stats();
    List<JournalEntry> journal = server.journal();
    Map<String, BatchRecorder.Job> byId = new LinkedHashMap<>();
    for (BatchRecorder.Job j : run.jobs()) {
      byId.put(j.request.id(), j);
    }

    int readsOk = 0;
    int readsRetried = 0;
    for (BatchRecorder.Job j : run.jobs()) {
      if (j.request.id().startsWith("acct-")) {
        if (j.item != null && j.item.success()) {
          readsOk++;
        }
        if (j.attempts.size() > 1) {
          readsRetried++;
        }
      }
    }
    claims.add(
        new Claim(
            readsOk == READS,
            readsOk
                + " of "
                + READS
                + " reads succeeded, "
                + readsRetried
                + " of them after a 503 or 429 and a retry"));

    BatchRecorder.Job report = byId.get("report");
    boolean reportOk =
        report != null
            && report.item != null
            && report.item.success()
            && report.attempts.size() > 1;
    claims.add(
        new Claim(
            reportOk,
            "the slow report succeeded on attempt "
                + (report == null ? 0 : report.attempts.size())
                + ", after its first attempt hit the 1 s time limit"));

    Set<String> keys = new HashSet<>();
    int paymentsOk = 0;
    int replayed = 0;
    for (BatchRecorder.Job j : run.jobs()) {
      if (j.request.id().startsWith("pay-")) {
        keys.add(j.key);
        if (j.item != null && j.item.success()) {
          paymentsOk++;
        }
        for (AttemptRecord a : j.attempts) {
          if (a.replayed()) {
            replayed++;
          }
        }
      }
    }
    Map<String, Long> perKey = stats.resourcesCreatedPerKey("payments");
    boolean exactlyOnce =
        paymentsOk == PAYMENTS
            && perKey.keySet().equals(keys)
            && perKey.values().stream().allMatch(n -> n == 1L);
    claims.add(
        new Claim(
            exactlyOnce,
            PAYMENTS
                + " keyed payments: "
                + paymentsOk
                + " succeeded; the server holds "
                + stats.resourcesCreated("payments")
                + " payments, "
                + perKey.size()
                + " keys, "
                + (exactlyOnce ? "exactly one payment per key" : "NOT one per key: " + perKey)));
    claims.add(
        new Claim(
            replayed >= 1,
            replayed
                + (replayed == 1 ? " payment was" : " payments were")
                + " created, then answered 504 or cut off; the retry carried the same key and"
                + " the server replayed its stored answer instead of charging again"));

    BatchRecorder.Job legacy = byId.get("legacy-pay");
    Map<String, Long> legacyPerKey = stats.resourcesCreatedPerKey("legacy-payments");
    boolean legacyOk =
        legacy != null
            && legacy.item != null
            && Outcome.of(legacy.item.outcome()) == Outcome.NOT_RESENT
            && legacy.attempts.size() == 1
            && stats.resourcesCreated("legacy-payments") == 1;
    claims.add(
        new Claim(
            legacyOk,
            "the payment without a key got a 504 and was sent "
                + (legacy == null ? "never" : times(legacy.attempts.size()))
                + "; the server holds "
                + stats.resourcesCreated("legacy-payments")
                + " (keyless: "
                + legacyPerKey.getOrDefault("", 0L)
                + "): it went through, and a blind retry would have charged twice"));

    // Each scripted 429 asks for 1 s: the pacer pauses every worker, so only starts already
    // reserved (at most one per other worker) may still arrive in that second.
    int worst = 0;
    int tooMany = 0;
    for (JournalEntry e : journal) {
      if (e.status() != 429 || !"step".equals(e.outcome())) {
        continue;
      }
      tooMany++;
      long t = e.arrivedAt().toEpochMilli();
      int within = 0;
      for (JournalEntry o : journal) {
        long dt = o.arrivedAt().toEpochMilli() - t;
        if (o.sequence() != e.sequence() && dt >= 0 && dt < 950) {
          within++;
        }
      }
      worst = Math.max(worst, within);
    }
    long rejected = journal.stream().filter(e -> "rate-limited".equals(e.outcome())).count();
    claims.add(
        new Claim(
            worst <= CONCURRENCY - 1,
            "each of the "
                + tooMany
                + " 429s (Retry-After: 1) paused the whole queue: in the second after one, the"
                + " server saw at most "
                + worst
                + " requests (starts already scheduled), not "
                + (int) RATE.perSecond()));
    claims.add(
        new Claim(
            rejected == 0,
            rejected + " requests were rejected by the API's rate limit of " + API_LIMIT));

    long[] starts = run.timeline().starts();
    double average =
        starts.length < 2 ? 0 : (starts[starts.length - 1] - starts[0]) / 1e6 / (starts.length - 1);
    double pace = RATE.interval().toNanos() / 1e6;
    claims.add(
        new Claim(
            starts.length >= 2 && average >= pace - 1,
            starts.length
                + " attempts started on average one every "
                + Format.number(average)
                + " ms; the pace allows one every "
                + Format.number(pace)
                + " ms, never faster"));

    Duration elapsed = Duration.ofNanos(run.timeline().elapsedNanos());
    claims.add(
        new Claim(
            elapsed.compareTo(Duration.ofMinutes(1)) < 0 && run.stopReason() == null,
            "the batch finished in "
                + Format.duration(elapsed)
                + (run.stopReason() == null ? "" : " but stopped: " + run.stopDetail())));
  }

  private static String times(int n) {
    return n == 1 ? "once" : n == 2 ? "twice" : n + " times";
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(DemoCommand::deleteQuietly);
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory left behind is harmless
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      // best effort
    }
  }
}
