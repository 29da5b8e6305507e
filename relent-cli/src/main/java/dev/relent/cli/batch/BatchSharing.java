package dev.relent.cli.batch;

import dev.relent.cli.common.UsageError;
import dev.relent.redis.RedisFallback;
import dev.relent.redis.RedisStoreException;
import dev.relent.redis.RelentRedis;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * The checks and the connection behind {@code relent batch --shared redis://HOST:PORT[/DB]
 * --account NAME}: every message names what is wrong and what to do, and none repeats the URI as
 * given (it may carry a password) or its user information; the URI is shown as {@code
 * redis://host:port[/db]} only.
 */
final class BatchSharing {
  private BatchSharing() {}

  /** The accepted form of {@code --shared}, for messages. */
  static final String FORM = "redis://HOST:PORT[/DB]";

  /** Letters, digits and {@code - _ . :}, 1 to 100 of them. */
  private static final Pattern ACCOUNT = Pattern.compile("[A-Za-z0-9_.:-]{1,100}");

  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]{0,19}");

  /**
   * How long one pacer decision waits for Redis. Longer than the library's 50 ms default: the batch
   * makes one decision per attempt, at most a few hundred a second, and on a busy machine (several
   * JVMs starting on two cores) a 50 ms answer is not rare; a Redis that does not answer in half a
   * second is down.
   */
  static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

  /** While Redis is away, how often one attempt tries it again. */
  static final Duration RETRY_INTERVAL = Duration.ofSeconds(1);

  /** How long connecting at the start may take. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /**
   * A checked {@code --shared} URI.
   *
   * @param uri the URI as given, for the connection only
   * @param shown the URI without user information, for messages: {@code redis://host:port[/db]}
   * @param password the password in it, or null: scrubbed from the driver's messages
   */
  record Target(String uri, String shown, String password) {}

  /**
   * Checks the form of {@code --shared}.
   *
   * @throws UsageError if it is not {@code redis://HOST:PORT[/DB]}
   */
  static Target target(CommandLine cli, String uri) {
    int sep = uri.indexOf("://");
    if (sep < 0) {
      throw new UsageError(
          cli, "--shared must be a Redis URI, " + FORM + ", e.g. redis://127.0.0.1:6379");
    }
    String scheme = uri.substring(0, sep);
    if (!scheme.equalsIgnoreCase("redis")) {
      String named = SCHEME.matcher(scheme).matches() ? scheme + "://" : "that scheme";
      String tls = scheme.equalsIgnoreCase("rediss") ? " (TLS is not supported yet)" : "";
      throw new UsageError(
          cli, "--shared takes redis:// only, not " + named + tls + ": give " + FORM);
    }
    URI parsed;
    try {
      parsed = new URI(uri);
    } catch (URISyntaxException e) {
      throw new UsageError(
          cli, "--shared is not a valid URI: give " + FORM + ", e.g. redis://127.0.0.1:6379");
    }
    String host = parsed.getHost();
    if (host == null || host.isEmpty()) {
      throw new UsageError(
          cli,
          "--shared names no host (or a port that is not a number): give "
              + FORM
              + ", e.g. redis://127.0.0.1:6379");
    }
    if (parsed.getRawQuery() != null || parsed.getRawFragment() != null) {
      throw new UsageError(cli, "--shared takes no options after ? or #: give " + FORM + " only");
    }
    int port = parsed.getPort() < 0 ? 6379 : parsed.getPort();
    if (port == 0 || port > 65535) {
      throw new UsageError(cli, "--shared: the port must be 1 to 65535: " + port);
    }
    String path = parsed.getRawPath() == null ? "" : parsed.getRawPath();
    String db = "";
    if (!path.isEmpty() && !path.equals("/")) {
      String digits = path.substring(1);
      if (!digits.matches("[0-9]{1,9}")) {
        throw new UsageError(
            cli,
            "--shared: the database after the port must be a number, e.g. redis://"
                + host
                + ":"
                + port
                + "/0");
      }
      int n = Integer.parseInt(digits);
      db = n == 0 ? "" : "/" + n;
    }
    String password = null;
    String userInfo = parsed.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      String raw = colon < 0 ? userInfo : userInfo.substring(colon + 1);
      password = raw.isEmpty() ? null : raw;
    }
    return new Target(uri, "redis://" + host + ":" + port + db, password);
  }

  /**
   * Checks {@code --account}.
   *
   * @throws UsageError if it is not 1 to 100 letters, digits and {@code - _ . :}
   */
  static void checkAccount(CommandLine cli, String account) {
    if (ACCOUNT.matcher(account).matches()) {
      return;
    }
    String why;
    if (account.isEmpty()) {
      why = "it is empty";
    } else if (account.length() > 100) {
      why = "it has " + account.length() + " characters";
    } else {
      int bad = account.codePoints().filter(c -> !isAccountChar(c)).findFirst().getAsInt();
      why =
          bad > 0x20 && bad < 0x7f
              ? "'" + Character.toString(bad) + "' is not allowed"
              : "it has a space, a control or a non-ASCII character";
    }
    throw new UsageError(
        cli,
        "--account must be 1 to 100 characters of letters, digits and - _ . : ("
            + why
            + "), e.g. payments-prod");
  }

  private static boolean isAccountChar(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.'
        || c == ':';
  }

  /**
   * The account a host names when {@code --account} is not given: the host in lower case, an IPv6
   * address without its brackets.
   *
   * @param host the first request's host, or null
   * @return the account, or null if the host cannot name one
   */
  static String accountOf(String host) {
    if (host == null) {
      return null;
    }
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return ACCOUNT.matcher(h).matches() ? h : null;
  }

  /**
   * Connects to the Redis of {@code --shared}. While Redis is away during the run, the guards go on
   * in memory at {@code 1/n} of the account's rate and concurrency, {@code n} the processes seen
   * sharing the account; each change is one line on {@code err}.
   *
   * @throws UsageError if it cannot be reached or refuses the connection
   */
  static RelentRedis connect(CommandLine cli, Target target, PrintWriter err) {
    quietDriver();
    try {
      return RelentRedis.builder(target.uri())
          .withCommandTimeout(COMMAND_TIMEOUT)
          .withConnectTimeout(CONNECT_TIMEOUT)
          .withFallback(
              RedisFallback.localShare(1)
                  .withRetryInterval(RETRY_INTERVAL)
                  .withListener(event -> notice(err, event, target.password())))
          .build();
    } catch (RedisStoreException | IllegalArgumentException e) {
      throw new UsageError(
          cli,
          "--shared "
              + target.shown()
              + ": cannot connect to Redis ("
              + reason(e, target.password())
              + "); check that Redis runs there and the URI is right, or leave out --shared to"
              + " pace this process alone");
    }
  }

  /** The line a change between Redis and memory prints, the password scrubbed. */
  static void notice(PrintWriter err, RedisFallback.Event event, String password) {
    String line =
        event.mode() == RedisFallback.Mode.LOCAL
            ? "relent: Redis at "
                + event.uri()
                + " is away ("
                + scrub(withoutPrefix(event.reason(), "Redis at " + event.uri() + " "), password)
                + "); this process goes on alone at its share of the account's rate and"
                + " concurrency (1/n, n the processes seen sharing it), trying Redis again every "
                + RETRY_INTERVAL.toSeconds()
                + " s"
            : "relent: Redis at " + event.uri() + " answers again; the account is shared again";
    synchronized (err) {
      err.println(line);
      err.flush();
    }
  }

  /**
   * Lettuce and Netty log through java.util.logging when SLF4J has no provider (the CLI ships
   * slf4j-nop, which Netty does not take): a lost connection would print "Reconnecting" notices on
   * stderr, which scripts read. What went wrong reaches each request's result instead. Kept here:
   * java.util.logging holds its loggers weakly, and a collected logger forgets its level.
   */
  private static final Logger[] DRIVER_LOGGERS = {
    Logger.getLogger("io.lettuce"), Logger.getLogger("io.netty")
  };

  private static void quietDriver() {
    for (Logger logger : DRIVER_LOGGERS) {
      logger.setLevel(Level.OFF);
    }
  }

  /** The innermost cause's message (the driver's outer ones repeat the URI), password scrubbed. */
  static String reason(Throwable e, String password) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message =
        root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return scrub(message, password).strip();
  }

  private static String withoutPrefix(String s, String prefix) {
    return s.startsWith(prefix) ? s.substring(prefix.length()) : s;
  }

  private static String scrub(String message, String password) {
    if (password != null) {
      message = message.replace(password, "***");
      String decoded = URLDecoder.decode(password, StandardCharsets.UTF_8);
      if (!decoded.isEmpty()) {
        message = message.replace(decoded, "***");
      }
    }
    return message;
  }
}
