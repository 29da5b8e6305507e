package dev.relent.cli;

import dev.relent.cli.batch.AccountGuards;
import dev.relent.cli.common.DurationConverter;
import dev.relent.cli.common.ExitCodes;
import dev.relent.cli.common.Rate;
import dev.relent.cli.common.RetryOptions;
import dev.relent.cli.common.UsageError;
import dev.relent.http.HttpScopes;
import dev.relent.http.Redactor;
import dev.relent.proxy.RelentProxy;
import dev.relent.time.TimeSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code relent proxy}: starts relent-proxy ({@link RelentProxy}) with the retry options of {@code
 * relent call} and the pacing, scope and sharing options of {@code relent batch} ({@link
 * AccountGuards}), prints each listener and serves until the process is stopped; SIGTERM or Ctrl-C
 * drains it (requests in flight end, at most {@code --drain-timeout}). One line per attempt,
 * give-up and refused request goes to stderr, redacted. A wrong flag exits 2 saying what is
 * accepted; an address that cannot be bound or a Redis that cannot be reached exits 1 or 2 saying
 * what to do.
 */
@Command(
    name = "proxy",
    mixinStandardHelpOptions = true,
    defaultValueProvider = RetryOptions.Defaults.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Run a local HTTP proxy that gives every caller (Python, Node, Go, curl) Relent's retries,"
          + " Retry-After, pacing, idempotency keys and meters, with no code change.",
      ""
    },
    footer = {
      "",
      "Reverse mode: --listen 127.0.0.1:8080 --upstream https://api.example.com; callers use"
          + " http://127.0.0.1:8080 as their base URL. Repeat --listen and --upstream in pairs, or"
          + " name them in --config FILE (one 'HOST:PORT URL' a line, # for comments).",
      "Forward mode (HTTP_PROXY=http://127.0.0.1:8080): http:// targets on --allow-host hosts"
          + " only; any other host gets 403. CONNECT (https through HTTPS_PROXY) to an allowed host"
          + " is tunnelled untouched: a TLS tunnel cannot be retried; use reverse mode for https.",
      "",
      "Per request: X-Relent-Deadline: 5s shortens --deadline. Writes (POST, PATCH) are re-sent"
          + " only with an Idempotency-Key, the caller's or one the proxy adds on --key-route"
          + " routes. Answers carry Relent-Attempts; a give-up is 502, 503 or 504 with"
          + " Relent-Give-Up and a problem+json body. Bodies longer than --max-request-body are"
          + " sent once and not re-sent (Relent-Request-Body says so).",
      "Operations: GET /__relent/health, GET /__relent/metrics (Prometheus text).",
      "",
      "Durations: " + DurationConverter.FORMS + ". Rates: " + Rate.FORMS + ".",
      "Example: relent proxy --listen 127.0.0.1:8080 --upstream https://api.example.com --rate"
          + " 90/min --shared redis://127.0.0.1:6379 --account payments-prod",
      "Details: docs/proxy.md."
    })
public final class ProxyCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      description =
          "Where to listen, loopback unless --any-interface; repeatable, the n-th pairs with the"
              + " n-th --upstream (a --listen without one serves forward mode only). Default"
              + " 127.0.0.1:8080.")
  List<String> listen = new ArrayList<>();

  @Option(
      names = "--upstream",
      paramLabel = "URL",
      description =
          "Reverse mode: where requests to the paired --listen go, http:// or https:// (TLS"
              + " with the JDK's trust store), e.g. https://api.example.com; repeatable.")
  List<String> upstream = new ArrayList<>();

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Listeners and upstreams, one 'HOST:PORT URL' a line (# comments).")
  Path config;

  @Option(
      names = "--allow-host",
      paramLabel = "HOST[:PORT]",
      description =
          "A host forward mode and CONNECT may reach; repeatable. Default: none (never an open"
              + " proxy).")
  List<String> allowHosts = new ArrayList<>();

  @Option(
      names = "--key-route",
      paramLabel = "[METHOD] /PATH",
      description =
          "Give writes to this route an Idempotency-Key when they come without, so that they are"
              + " retried; {name} matches one segment, no method means POST and PATCH, e.g."
              + " 'POST /v1/payments'. Only for upstreams that deduplicate by key. Repeatable.")
  List<String> keyRoutes = new ArrayList<>();

  @Option(
      names = "--max-request-body",
      paramLabel = "BYTES",
      defaultValue = "1MiB",
      description =
          "Longest request body kept for a resend (e.g. 65536, 512KiB, 1MiB); a longer one is"
              + " sent once, as it arrives, and not re-sent. Default ${DEFAULT-VALUE}.")
  String maxRequestBody;

  @Option(
      names = "--rate",
      paramLabel = "RATE",
      description =
          "Most starts per unit of time, retries included, for everything this proxy sends (with"
              + " --shared: for the whole account), e.g. 90/min. Each scope's rate is learned"
              + " below it from 429s and rate-limit headers. Default: none (learned).")
  Rate rate;

  @Option(
      names = "--concurrency",
      paramLabel = "N",
      description =
          "Most attempts in flight at once (with --shared: for the account). Default: none.")
  Integer concurrency;

  @Option(
      names = "--retry-budget",
      paramLabel = "RATIO",
      description =
          "Retries allowed per first attempt over a sliding 10 s, plus 10 a second: 0.2 or 20%%."
              + " Default: none.")
  String retryBudget;

  @Option(
      names = "--breaker",
      paramLabel = "PERCENT",
      description =
          "A circuit breaker opening when PERCENT of the last 100 attempts (at least 20) failed,"
              + " open 30 s. Default: none.")
  String breaker;

  @Option(
      names = "--scope-by",
      paramLabel = "endpoint|account|header:NAME",
      defaultValue = "endpoint",
      description =
          "Whose limit a 429 with a wait is, and so what it pauses and slows: the route (default),"
              + " the whole host, or the API key in header NAME (named by a short hash).")
  String scopeBy;

  @Option(
      names = "--route",
      paramLabel = "TEMPLATE",
      description = "A route template naming an endpoint, e.g. /v1/payments/{id}; repeatable.")
  List<String> routes = new ArrayList<>();

  @Option(
      names = "--shared",
      paramLabel = "URI",
      description =
          "Share the pacers' schedules, pauses, learned rates, budget and breaker through Redis,"
              + " redis://HOST:PORT[/DB], with every relent proxy or batch of the same --account:"
              + " a fleet of proxies starts no faster than one. If Redis is lost, each goes on"
              + " alone at its share. Default: none.")
  String shared;

  @Option(
      names = "--account",
      paramLabel = "NAME",
      description = "Whose state --shared shares. Default: the first upstream's host.")
  String account;

  @CommandLine.Mixin RetryOptions retry;

  @Option(
      names = "--client-timeout",
      paramLabel = "DURATION",
      defaultValue = "10s",
      description =
          "How long a caller may take to send a request's head, and pause in its body; then 408."
              + " Default ${DEFAULT-VALUE}.")
  Duration clientTimeout;

  @Option(
      names = "--idle-timeout",
      paramLabel = "DURATION",
      defaultValue = "60s",
      description =
          "How long idle kept-alive connections stay open, and an upstream body may stall."
              + " Default ${DEFAULT-VALUE}.")
  Duration idleTimeout;

  @Option(
      names = "--drain-timeout",
      paramLabel = "DURATION",
      defaultValue = "30s",
      description =
          "On SIGTERM or Ctrl-C, how long requests in flight may take to end. Default"
              + " ${DEFAULT-VALUE}.")
  Duration drainTimeout;

  @Option(
      names = "--any-interface",
      description =
          "Allow --listen on addresses other than loopback: other machines could then send with"
              + " this proxy's budget.")
  boolean anyInterface;

  @Option(names = "--quiet", description = "No line per attempt; refusals and give-ups only.")
  boolean quiet;

  /** What to do while the proxy runs; by default, wait until the process is stopped. */
  Consumer<RelentProxy> whileRunning = ProxyCommand::serveUntilStopped;

  @Override
  public Integer call() {
    CommandLine cli = spec.commandLine();
    PrintWriter err = cli.getErr();
    PrintWriter out = cli.getOut();
    retry.validate(cli);
    UsageError.requirePositive(cli, "--client-timeout", clientTimeout);
    UsageError.requirePositive(cli, "--idle-timeout", idleTimeout);
    if (concurrency != null && (concurrency < 1 || concurrency > 100_000)) {
      throw new UsageError(cli, "--concurrency must be 1 to 100000: " + concurrency);
    }
    List<String[]> pairs = listeners(cli);
    HttpScopes scopes = AccountGuards.scopes(cli, scopeBy, routes);
    Double budget =
        retryBudget == null ? null : AccountGuards.ratio(cli, "--retry-budget", retryBudget, false);
    Double failures = breaker == null ? null : AccountGuards.ratio(cli, "--breaker", breaker, true);
    RelentProxy.Builder b = RelentProxy.builder();
    String firstHost = null;
    try {
      for (String[] pair : pairs) {
        if (pair[1] == null) {
          b.withForward(pair[0]);
        } else {
          URI u = upstreamUri(cli, pair[1]);
          firstHost = firstHost == null ? u.getHost() : firstHost;
          b.withReverse(pair[0], u);
        }
      }
      for (String h : allowHosts) {
        b.withAllowedHosts(h);
      }
      for (String r : keyRoutes) {
        b.withKeyedRoutes(r);
      }
    } catch (IllegalArgumentException e) {
      throw new UsageError(cli, Redactor.ofDefaults().text(e.getMessage()));
    }
    if (firstHost == null && !allowHosts.isEmpty()) {
      firstHost = allowHosts.get(0);
    }
    TimeSource time = TimeSource.system().withRandom(retry.random());
    b.withPolicy(retry.policy())
        .withTime(time)
        .withMaxRequestBody(bytes(cli, maxRequestBody))
        .withClientTimeout(clientTimeout)
        .withIdleTimeout(idleTimeout)
        .withDrainTimeout(drainTimeout)
        .withAnyInterface(anyInterface);
    Consumer<String> line =
        l -> {
          synchronized (err) {
            err.println(l);
            err.flush();
          }
        };
    b.withLogSink(line).withAttemptLines(!quiet);
    AccountGuards.Fleet fleet = AccountGuards.share(cli, shared, account, firstHost, err);
    try {
      AccountGuards.apply(b, rate, concurrency, budget, failures, scopes, fleet, time);
      RelentProxy proxy;
      try {
        proxy = b.start();
      } catch (IllegalStateException e) {
        throw new UsageError(cli, e.getMessage() + " (--any-interface)");
      } catch (IOException e) {
        err.println("relent proxy: " + e.getMessage());
        err.flush();
        return ExitCodes.ERROR;
      }
      try {
        List<InetSocketAddress> at = proxy.addresses();
        for (int i = 0; i < at.size(); i++) {
          String[] pair = pairs.get(i);
          out.println(
              "relent proxy listening on http://"
                  + at.get(i).getAddress().getHostAddress()
                  + ":"
                  + at.get(i).getPort()
                  + (pair[1] == null
                      ? " (forward mode"
                          + (allowHosts.isEmpty()
                              ? ", no --allow-host: every host refused)"
                              : " for " + String.join(", ", allowHosts) + ")")
                      : " -> " + Redactor.ofDefaults().uri(pair[1])));
        }
        if (fleet != null) {
          out.println("relent proxy: " + fleet.describe());
        }
        out.flush();
        whileRunning.accept(proxy);
      } finally {
        proxy.close();
      }
      return ExitCodes.OK;
    } finally {
      if (fleet != null) {
        fleet.close();
      }
    }
  }

  /** The (listen, upstream or null) pairs of the flags and the config file. */
  private List<String[]> listeners(CommandLine cli) {
    List<String[]> pairs = new ArrayList<>();
    if (upstream.size() > Math.max(1, listen.size())) {
      throw new UsageError(
          cli,
          upstream.size()
              + " --upstream but "
              + listen.size()
              + " --listen: give one --listen per --upstream (each upstream needs its own port)");
    }
    if (listen.isEmpty() && (!upstream.isEmpty() || config == null)) {
      pairs.add(new String[] {"127.0.0.1:8080", upstream.isEmpty() ? null : upstream.get(0)});
    }
    for (int i = 0; i < listen.size(); i++) {
      pairs.add(new String[] {listen.get(i), i < upstream.size() ? upstream.get(i) : null});
    }
    if (config != null) {
      List<String> lines;
      try {
        lines = Files.readAllLines(config);
      } catch (IOException e) {
        throw new UsageError(cli, "--config " + config + ": cannot read (" + e.getMessage() + ")");
      }
      for (int n = 0; n < lines.size(); n++) {
        String l = lines.get(n).strip();
        if (l.isEmpty() || l.startsWith("#")) {
          continue;
        }
        String[] parts = l.split("\\s+");
        if (parts.length > 2) {
          throw new UsageError(
              cli,
              "--config "
                  + config
                  + " line "
                  + (n + 1)
                  + ": expected 'HOST:PORT URL' (or 'HOST:PORT' for forward mode), got "
                  + parts.length
                  + " words");
        }
        pairs.add(new String[] {parts[0], parts.length == 2 ? parts[1] : null});
      }
    }
    if (pairs.isEmpty()) {
      throw new UsageError(cli, "--config " + config + " names no listener");
    }
    return pairs;
  }

  private static URI upstreamUri(CommandLine cli, String text) {
    try {
      return new URI(text);
    } catch (URISyntaxException e) {
      throw new UsageError(
          cli,
          "--upstream is not a valid URL: give http:// or https:// and a host, e.g."
              + " https://api.example.com");
    }
  }

  /** Reads a size: bytes, or a number with KiB, MiB (or KB, MB, K, M, taken as binary). */
  static int bytes(CommandLine cli, String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    long factor = 1;
    for (String[] unit :
        new String[][] {
          {"kib", "1024"},
          {"mib", "1048576"},
          {"kb", "1024"},
          {"mb", "1048576"},
          {"k", "1024"},
          {"m", "1048576"},
          {"b", "1"}
        }) {
      if (t.endsWith(unit[0])) {
        factor = Long.parseLong(unit[1]);
        t = t.substring(0, t.length() - unit[0].length()).strip();
        break;
      }
    }
    long value;
    try {
      value = Long.parseLong(t) * factor;
    } catch (NumberFormatException e) {
      value = -1;
    }
    if (value < 0 || value > 1024L * 1024 * 1024) {
      throw new UsageError(
          cli,
          "--max-request-body must be 0 to 1GiB, as bytes or with KiB or MiB, e.g. 1MiB: " + text);
    }
    return (int) value;
  }

  /** Blocks until the JVM shuts down (Ctrl-C, SIGTERM); the shutdown hook drains the proxy. */
  private static void serveUntilStopped(RelentProxy proxy) {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  proxy.close();
                  stopped.countDown();
                },
                "relent-proxy-drain"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
