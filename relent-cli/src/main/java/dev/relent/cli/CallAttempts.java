package dev.relent.cli;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.RelentListener;
import dev.relent.cli.common.Format;
import dev.relent.http.AttemptRecord;
import dev.relent.http.Idempotency;
import java.io.PrintWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The attempts of {@code relent call} as relent-http records them, one {@link AttemptRecord} each:
 * kept for {@code --report} ({@link CallReport}) and, with {@code --verbose}, written as one line
 * each on stderr. Everything in a record is already redacted; bodies are never read.
 *
 * <p>Design: the call's attempt listener hands over each record as its attempt is decided. A record
 * with a wait is followed by another attempt, and its line is written at once. The last record has
 * none; whether the executor gave up after it, and why, shows only in how the call ended, so its
 * line waits for {@link #finish}, which follows at once. Records come on the thread that calls
 * {@code send}, one at a time; not thread-safe otherwise, except {@link #starts}, whose listener
 * may run on any thread.
 */
final class CallAttempts implements Consumer<AttemptRecord> {
  private final String key;
  private final PrintWriter verbose;
  private final List<AttemptRecord> records = new ArrayList<>();
  private String gaveUp;

  /** Methods that change nothing: an interrupted one needs no word about its effect. */
  private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

  /** The number of the last attempt that began, from the executor's thread. */
  private volatile int started;

  /**
   * @param key the idempotency key, shown whole in the lines, or null
   * @param verbose where to write a line per attempt, or null for none
   */
  CallAttempts(String key, PrintWriter verbose) {
    this.key = key;
    this.verbose = verbose;
  }

  @Override
  public void accept(AttemptRecord record) {
    records.add(record);
    if (record.waitTime().isPresent()) {
      print(record, null);
    }
  }

  /** The call ended so: the last attempt learns why the executor gave up after it, if it did. */
  void finish() {
    if (records.isEmpty()) {
      return;
    }
    AttemptRecord last = records.get(records.size() - 1);
    if (last.waitTime().isPresent()) {
      // A give-up between attempts (no time left for the next one): the outcome reports it.
      return;
    }
    gaveUp = last.gaveUp().map(RelentException.Reason::slug).orElse(null);
    print(last, gaveUp);
  }

  /**
   * Returns the executor-wide listener that tells which attempt is on the wire: the records come
   * only once an attempt is decided, and an interrupt may come before.
   */
  RelentListener<HttpResponse<?>> starts() {
    return event -> {
      if (event.type() == RelentEvent.Type.ATTEMPT_STARTED) {
        started = event.attempt();
      }
    };
  }

  /**
   * What an interrupted call was doing, for its {@code relent:} line: the attempt on the wire or
   * the wait, how far into the call, and for a request that changes something whether it may have
   * been sent, with its key.
   *
   * @param method the request method
   * @param endpoint the endpoint, redacted
   * @param elapsedNanos time since the call began
   */
  String interrupted(String method, String endpoint, long elapsedNanos) {
    AttemptRecord last = records.isEmpty() ? null : records.get(records.size() - 1);
    boolean onTheWire =
        started > records.size()
            || (last != null
                && last.waitTime().isEmpty()
                && last.gaveUp().equals(Optional.of(RelentException.Reason.INTERRUPTED)));
    String into = Format.duration(Duration.ofNanos(elapsedNanos)) + " into the call";
    StringBuilder m = new StringBuilder(200).append("interrupted by Ctrl-C or SIGTERM ");
    if (onTheWire) {
      m.append("during attempt ").append(Math.max(started, 1)).append(", ").append(into);
    } else if (last == null) {
      return m.append("before the first attempt, ")
          .append(into)
          .append(": nothing was sent")
          .toString();
    } else {
      m.append("while waiting to send attempt ")
          .append(last.number() + 1)
          .append(", ")
          .append(into)
          .append(" (")
          .append(last.number())
          .append(last.number() == 1 ? " attempt made" : " attempts made")
          .append(", last: ")
          .append(last.outcome())
          .append(')');
    }
    boolean maybeSent = onTheWire;
    for (AttemptRecord r : records) {
      maybeSent |= r.ambiguous();
    }
    if (!maybeSent || READS.contains(method)) {
      return m.toString();
    }
    m.append(": ").append(method).append(' ').append(endpoint);
    if (key != null) {
      return m.append(" may have been sent and taken effect; it carries Idempotency-Key ")
          .append(key)
          .append(", so it is safe to send again with the same key (relent call --idempotency-key ")
          .append(key)
          .append(" …)")
          .toString();
    }
    if (Idempotency.isIdempotent(method)) {
      return m.append(" may have taken effect; it is idempotent, so it is safe to send again")
          .toString();
    }
    return m.append(
            " may have reached the server and carries no Idempotency-Key; check whether it took"
                + " effect before sending it again")
        .toString();
  }

  /** Returns the attempts recorded, in order. */
  List<AttemptRecord> records() {
    return List.copyOf(records);
  }

  /** Why the executor gave up after the last attempt ({@code retries-exhausted}, ...), or null. */
  String gaveUp() {
    return gaveUp;
  }

  private void print(AttemptRecord a, String gaveUp) {
    if (verbose != null) {
      verbose.println(line(a, gaveUp));
      verbose.flush();
    }
  }

  /** The {@code --verbose} line: key=value pairs like relent-http's log, quoted where free. */
  private String line(AttemptRecord a, String gaveUp) {
    StringBuilder s = new StringBuilder(200).append("relent: attempt=").append(a.number());
    s.append(" start=").append(Format.duration(a.start()));
    s.append(" method=").append(a.method());
    s.append(" endpoint=").append(a.endpoint());
    quoted(s, "idempotency-key", key);
    quoted(s, "outcome", a.outcome());
    quoted(s, "request-id", a.requestId().orElse(null));
    quoted(s, "wait-headers", a.waitHeaders().orElse(null));
    quoted(s, "via", a.via().orElse(null));
    String decision = verdict(a) + ": " + a.rule();
    quoted(s, "decision", gaveUp != null ? "give up: " + gaveUp + ", last " + decision : decision);
    a.waitTime().ifPresent(w -> s.append(" wait=").append(Format.duration(w)));
    quoted(s, "hint", a.serverHint().orElse(null));
    s.append(" took=").append(Format.duration(a.duration().orElse(Duration.ZERO)));
    return s.toString();
  }

  /** The verdict's kind: {@code success}, {@code retry} or {@code abort}. */
  static String verdict(AttemptRecord a) {
    return Format.slug(a.verdict().kind());
  }

  /** The network fault ({@code reset}, {@code read-timeout}, ...), or null when an answer came. */
  static String fault(AttemptRecord a) {
    return a.fault().map(Format::slug).orElse(a.status() < 0 ? "not-a-network-fault" : null);
  }

  private static void quoted(StringBuilder s, String name, String value) {
    if (value != null) {
      s.append(' ').append(name).append("=\"").append(value.replace('"', '\'')).append('"');
    }
  }
}
