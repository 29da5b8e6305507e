package dev.relent.cli;

import dev.relent.cli.common.CallOutcome;
import dev.relent.cli.common.DurationConverter;
import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Json;
import dev.relent.cli.common.Outcome;
import dev.relent.cli.common.RequestParser;
import dev.relent.cli.common.RetryOptions;
import dev.relent.cli.common.UsageError;
import dev.relent.http.AttemptRecord;
import dev.relent.http.CallOptions;
import dev.relent.http.Idempotency;
import dev.relent.http.Redactor;
import dev.relent.http.jdk.RelentHttpClient;
import dev.relent.time.Clock;
import dev.relent.time.Scheduler;
import dev.relent.time.Sleeper;
import dev.relent.time.Ticker;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code relent call}: curl with Relent inside. Sends one request through {@link RelentHttpClient}
 * (the decision table, {@code Retry-After}, idempotency keys, redaction: nothing of HTTP is decided
 * here), writes the final response body to standard output byte for byte, and exits with a code
 * from {@link ExitCodes} that scripts can rely on.
 *
 * <p>The flags, their defaults and the exit codes are a contract (docs/cli.md); the per-attempt
 * lines of {@code --verbose} and the {@code --report} file are written by {@link CallAttempts} and
 * {@link CallReport}, both from relent-http's attempt records and both redacted.
 *
 * <p>Time comes from the {@link #ticker}, {@link #clock} and {@link #sleeper} fields (the system's
 * by default); tests replace them with fake time so that waits take no real time.
 */
@Command(
    name = "call",
    mixinStandardHelpOptions = true,
    defaultValueProvider = RetryOptions.Defaults.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Send one HTTP request with retries that are safe: backoff with jitter, Retry-After,"
          + " deadlines, idempotency keys. The final response body goes to stdout.",
      ""
    },
    footer = {
      "",
      "Durations: " + DurationConverter.FORMS + " (a bare number is refused).",
      "",
      "Exit codes: 0 HTTP 2xx/3xx; 1 unexpected error; 2 usage error; 3 not retried (a 4xx,"
          + " a write without key); 4 retries exhausted; 5 deadline, server wait too long or"
          + " quota exhausted; 6 unresolved (a keyed write that may have taken effect: send it"
          + " again with the same key); 130 Ctrl-C. Details: docs/cli.md.",
      "",
      "Example: relent call -X POST -d @order.json -H 'Content-Type: application/json'"
          + " --idempotency-key auto https://api.example.com/v1/orders"
    })
final class CallCommand implements Callable<Integer> {
  static final String KEY_FORMS = "auto, or 1 to 255 visible ASCII characters";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.ParentCommand RelentCli parent;

  @Parameters(index = "0", paramLabel = "URL", description = "The http or https URL to call.")
  String url;

  @Option(
      names = {"-X", "--request"},
      paramLabel = "METHOD",
      description = "The method. Default GET, or POST when --data is given.")
  String method;

  @Option(
      names = {"-H", "--header"},
      paramLabel = "'Name: value'",
      description = "A request header; repeatable. Values never appear in output or the report.")
  List<String> headers = new ArrayList<>();

  @Option(
      names = {"-d", "--data"},
      paramLabel = "TEXT|@FILE",
      description =
          "The request body: the text itself, @FILE for a file's bytes, @- for standard input."
              + " No Content-Type is added; give one with -H.")
  String data;

  @CommandLine.Mixin RetryOptions retry;

  @Option(
      names = "--idempotency-key",
      paramLabel = "auto|KEY",
      description =
          "Send an Idempotency-Key (auto: a new random UUID), the same on every retry. Without"
              + " one, POST and PATCH are not re-sent once they may have reached the server.")
  String idempotencyKey;

  @Option(
      names = {"-v", "--verbose"},
      description = "One redacted line per attempt on stderr.")
  boolean verbose;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description =
          "Write the final response body to FILE instead of stdout, as it arrives. The file is"
              + " created or replaced once a response comes; without one it is left as it is.")
  Path output;

  @Option(
      names = "--report",
      paramLabel = "FILE",
      description =
          "Write a JSON report: every attempt (start, status or fault, decision, wait) and the"
              + " outcome. No secrets, no bodies.")
  Path report;

  /** Monotonic time; replaced by tests. */
  Ticker ticker = Ticker.system();

  /** Wall-clock time (Retry-After dates, the report's start); replaced by tests. */
  Clock clock = Clock.system();

  /** How waits between attempts are made; replaced by tests. */
  Sleeper sleeper = Sleeper.system();

  /** Standard input, for {@code -d @-}; replaced by tests. */
  InputStream stdin = System.in;

  /** Whether Ctrl-C (a JVM shutdown) interrupts the call and reports it; tests turn it off. */
  boolean shutdownHook = true;

  /** How long the shutdown hook waits for the interrupted call to report, in seconds. */
  private static final int STOP_GRACE_SECONDS = 3;

  /** The thread running the call, while it runs. */
  private volatile Thread caller;

  private final Redactor redactor = Redactor.ofDefaults();

  @Override
  public Integer call() {
    CallSettings settings = settings();
    PrintWriter err = spec.commandLine().getErr();
    CallAttempts attempts = new CallAttempts(settings.key(), verbose ? err : null);
    RelentHttpClient http =
        RelentHttpClient.builder(jdkClient(settings.request().uri()))
            .withPolicy(retry.policy())
            .withRedactor(redactor)
            .withTime(TimeSource.of(ticker, clock, sleeper, Scheduler.system(), retry.random()))
            .withExecutor(x -> x.onEvent(attempts.starts()))
            .withoutLogging()
            .build();
    CallOptions.Builder options = CallOptions.builder().withAttemptListener(attempts);
    if (settings.key() != null) {
      options.withIdempotencyKey(settings.key());
    } else {
      options.withoutIdempotencyKey();
    }
    CountDownLatch ended = new CountDownLatch(1);
    caller = Thread.currentThread();
    Thread hook = null;
    if (shutdownHook) {
      hook = new Thread(() -> stopOnSignal(ended), "relent-call-stop");
      Runtime.getRuntime().addShutdownHook(hook);
    }
    try {
      return send(settings, http, options, attempts, err);
    } finally {
      caller = null;
      ended.countDown();
      if (hook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // the JVM is shutting down: the hook is running and waits for this call
        }
      }
    }
  }

  /**
   * Ctrl-C (SIGINT) or SIGTERM, from the shutdown hook: the call is interrupted, so that it says
   * what it was doing and writes its report; the JVM then ends with the signal's code (130).
   */
  private void stopOnSignal(CountDownLatch ended) {
    stop();
    try {
      ended.await(STOP_GRACE_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Interrupts the call in progress, if any: what the shutdown hook does first. */
  void stop() {
    Thread t = caller;
    if (t != null) {
      t.interrupt();
    }
  }

  private int send(
      CallSettings settings,
      RelentHttpClient http,
      CallOptions.Builder options,
      CallAttempts attempts,
      PrintWriter err) {
    long startedAtMillis = clock.millis();
    long start = ticker.read();
    // A final response comes back as soon as its headers are in, its body unread: it is copied
    // out below, as it arrives. Bodies of retried responses are kept in memory (64 KiB at most).
    CallOutcome outcome =
        CallOutcome.of(
            () ->
                http.send(
                    settings.request(), HttpResponse.BodyHandlers.ofInputStream(), options.build()),
            redactor,
            true);
    // The report and the message below must be written whatever interrupted the call.
    Thread.interrupted();
    attempts.finish();
    if (Outcome.of(outcome.reason()) == Outcome.INTERRUPTED) {
      outcome =
          outcome.withMessage(
              attempts.interrupted(
                  settings.request().method(),
                  redactor.uri(settings.request().uri()),
                  Math.max(0L, ticker.read() - start)));
    }
    outcome = writeBody(outcome, settings.request(), attempts, start);
    long elapsedNanos = Math.max(0L, ticker.read() - start);

    int code = outcome.exitCode();
    if (report != null) {
      try {
        CallReport.write(report, settings, this, startedAtMillis, elapsedNanos, attempts, outcome);
      } catch (IOException | RuntimeException e) {
        err.println(
            "relent: cannot write the report to "
                + report
                + ": "
                + redactor.text(String.valueOf(e.getMessage())));
        code = ExitCodes.ERROR;
      }
    }
    if (outcome.exitCode() != ExitCodes.OK) {
      err.println("relent: " + outcome.message());
    } else if (verbose) {
      err.println("relent: " + outcome.message());
    }
    err.flush();
    return code;
  }

  /**
   * Copies the last response's body out, within what is left of the final attempt's time limit. A
   * body cut off on the way is not retried, since its first bytes are out already: the outcome says
   * so ({@code body-truncated}, exit 3); an output that cannot be written is exit 1.
   */
  private CallOutcome writeBody(
      CallOutcome outcome, HttpRequest request, CallAttempts attempts, long start) {
    long limit = Long.MAX_VALUE;
    if (outcome.body() != null && !attempts.records().isEmpty()) {
      AttemptRecord last = attempts.records().get(attempts.records().size() - 1);
      long sinceStart = Math.max(0L, ticker.read() - start);
      long attemptEnd = last.start().toNanos() + retry.timeout.toNanos();
      limit = Math.max(0L, Math.min(attemptEnd, retry.deadline.toNanos()) - sinceStart);
    }
    PrintStream stdout = parent.stdout;
    BodyOutput.Copied copied =
        BodyOutput.copy(outcome.body(), stdout, output, Scheduler.system(), limit);
    stdout.flush();
    String where = output == null ? "stdout" : output.toString();
    if (copied.writeFailure() != null) {
      return outcome.withReason(
          Outcome.ERROR.slug(),
          "cannot write the body to "
              + where
              + " after "
              + copied.bytes()
              + " bytes: "
              + redactor.text(String.valueOf(copied.writeFailure().getMessage())));
    }
    if (copied.failure() == null) {
      return outcome;
    }
    return outcome.withReason(
        "body-truncated",
        "the body of HTTP "
            + outcome.status()
            + " from "
            + request.method()
            + " "
            + redactor.uri(request.uri())
            + " was cut off after "
            + copied.bytes()
            + " bytes ("
            + copied.faultDescription()
            + "); not retried: the bytes received are in "
            + where
            + " already and a retry cannot take them back; run the command again");
  }

  private HttpClient jdkClient(URI uri) {
    // Plain http stays on HTTP/1.1 (no h2c upgrade dance); https negotiates HTTP/2 by ALPN.
    boolean tls = uri.getScheme().equalsIgnoreCase("https");
    return HttpClient.newBuilder()
        .connectTimeout(retry.timeout)
        .version(tls ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  // ------------------------------------------------------------------ the command line, checked

  /** Everything the flags say, checked; a wrong value is a usage error naming the flag. */
  private CallSettings settings() {
    URI uri;
    try {
      uri = RequestParser.uri(url, redactor);
    } catch (RequestParser.Invalid e) {
      throw usage(
          e.part() == RequestParser.Invalid.Part.URL
              ? "the URL is " + e.getMessage()
              : e.getMessage() + " (quote it in the shell when it has & or ?)");
    }
    retry.validate(spec.commandLine());
    UsageError.requireWritable(spec.commandLine(), "--report", report);
    UsageError.requireWritable(spec.commandLine(), "--output", output);
    if (report != null
        && output != null
        && report.toAbsolutePath().normalize().equals(output.toAbsolutePath().normalize())) {
      throw usage("--output and --report name the same file; give two files");
    }
    byte[] body = body();
    String m = method != null ? method : RequestParser.defaultMethod(body != null);
    if (!RequestParser.isToken(m)) {
      throw usage(
          "-X "
              + Json.quote(m)
              + " is not an HTTP method; use a token such as GET, POST, PUT, PATCH, DELETE");
    }
    RequestParser request;
    try {
      request = new RequestParser(uri, m, body, redactor);
    } catch (RequestParser.Invalid e) {
      throw usage("cannot send " + m + " " + redactor.uri(uri) + ": " + e.getMessage());
    }
    for (int i = 0; i < headers.size(); i++) {
      String h = headers.get(i);
      int colon = h.indexOf(':');
      String where = "-H #" + (i + 1);
      // The value is never echoed: it may be a credential.
      if (colon < 0) {
        throw usage(where + " has no colon; use 'Name: value', e.g. -H 'Accept: application/json'");
      }
      String name = h.substring(0, colon).trim();
      try {
        request.header(name, h.substring(colon + 1).trim());
      } catch (RequestParser.Invalid e) {
        switch (e.part()) {
          case HEADER_NAME:
            throw usage(
                where
                    + " has no valid header name before the colon; use 'Name: value', e.g. -H"
                    + " 'Accept: application/json'");
          case KEY:
            throw usage(where + " (" + Idempotency.HEADER + "): " + e.getMessage());
          default:
            throw usage(where + " (" + name + "): " + e.getMessage());
        }
      }
    }

    String key = request.headerKey();
    if (idempotencyKey != null) {
      if (key != null) {
        throw usage(
            "--idempotency-key and -H '"
                + Idempotency.HEADER
                + ": …' both give a key; give it once");
      }
      try {
        key =
            idempotencyKey.equals("auto")
                ? Idempotency.newKey()
                : Idempotency.requireValidKey(idempotencyKey);
      } catch (IllegalArgumentException e) {
        throw usage("--idempotency-key: " + e.getMessage() + "; use " + KEY_FORMS);
      }
    }
    try {
      return new CallSettings(
          request.build(), key, request.headerNames(), body == null ? -1 : body.length);
    } catch (RequestParser.Invalid e) {
      throw usage(e.getMessage());
    }
  }

  private byte[] body() {
    if (data == null) {
      return null;
    }
    if (!data.startsWith("@")) {
      return data.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    String file = data.substring(1);
    if (file.isEmpty()) {
      throw usage("-d @ needs a file name: -d @body.json, or -d @- for standard input");
    }
    try {
      if (file.equals("-")) {
        return stdin.readAllBytes();
      }
      Path path = Path.of(file);
      if (Files.isDirectory(path)) {
        throw usage("-d @" + file + ": is a directory, not a file");
      }
      return Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      throw usage("-d @" + file + ": no such file");
    } catch (AccessDeniedException e) {
      throw usage("-d @" + file + ": permission denied");
    } catch (IOException | java.nio.file.InvalidPathException e) {
      throw usage("-d @" + file + ": cannot read: " + e.getMessage());
    }
  }

  private UsageError usage(String message) {
    return new UsageError(spec.commandLine(), message);
  }
}
