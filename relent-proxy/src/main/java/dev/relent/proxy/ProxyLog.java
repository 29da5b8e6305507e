package dev.relent.proxy;

import dev.relent.http.AttemptRecord;
import dev.relent.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The proxy's log: one line per attempt sent upstream, one per give-up, one per request refused or
 * cut (bad input, a host not allowed, a timeout). Lines are {@code key=value} text, as
 * relent-http's attempt lines are; they are written from {@link AttemptRecord}s, whose endpoint is
 * redacted and whose key is in its short form, and never carry a header value besides the request
 * id and the wait headers: no {@code Authorization}, cookie or API key reaches them. Control
 * characters are removed, so no line can be forged.
 *
 * <p>Thread-safe if the sink is.
 */
final class ProxyLog {
  private final Consumer<String> sink;
  private final Clock clock;

  ProxyLog(Consumer<String> sink, Clock clock) {
    this.sink = sink;
    this.clock = clock;
  }

  void attempt(String listener, AttemptRecord r, boolean bodyOnce) {
    if (sink == null) {
      return;
    }
    StringBuilder b = start(listener);
    b.append(" attempt=").append(r.number());
    b.append(" method=").append(clean(r.method()));
    b.append(" endpoint=").append(clean(r.endpoint()));
    quoted(b, "outcome", r.outcome());
    quoted(b, "decision", String.valueOf(r.verdict()));
    r.waitTime().ifPresent(w -> b.append(" wait=").append(millis(w)));
    opt(b, "hint", r.serverHint());
    opt(b, "request-id", r.requestId());
    opt(b, "wait-headers", r.waitHeaders());
    opt(b, "via", r.via());
    r.duration().ifPresent(d -> b.append(" took=").append(millis(d)));
    r.key().ifPresent(k -> b.append(" key=").append(clean(k)));
    if (r.heldBack()) {
      b.append(" held-back=\"not re-sent: may have reached the upstream\"");
    }
    if (bodyOnce) {
      b.append(" body=streamed-once");
    }
    r.gaveUp().ifPresent(g -> b.append(" gave-up=").append(g.slug()));
    sink.accept(b.toString());
  }

  void giveUp(String listener, String method, String endpoint, GiveUp g, int attempts) {
    if (sink == null) {
      return;
    }
    StringBuilder b = start(listener);
    b.append(" give-up=").append(g.reason());
    b.append(" status=").append(g.passThrough() != null ? g.passThrough().status() : g.status());
    b.append(" method=").append(clean(method));
    b.append(" endpoint=").append(clean(endpoint));
    b.append(" attempts=").append(attempts);
    quoted(b, "detail", g.detail());
    sink.accept(b.toString());
  }

  void event(String listener, String event, String detail, String request) {
    if (sink == null) {
      return;
    }
    StringBuilder b = start(listener);
    b.append(" event=").append(event);
    if (request != null) {
      quoted(b, "request", request);
    }
    quoted(b, "detail", detail);
    sink.accept(b.toString());
  }

  private StringBuilder start(String listener) {
    StringBuilder b = new StringBuilder(200);
    b.append("relent-proxy at=").append(Instant.ofEpochMilli(clock.millis()));
    b.append(" listener=").append(listener);
    return b;
  }

  private static void opt(StringBuilder b, String name, Optional<String> value) {
    value.ifPresent(v -> quoted(b, name, v));
  }

  private static void quoted(StringBuilder b, String name, String value) {
    b.append(' ').append(name).append("=\"").append(clean(value).replace("\"", "'")).append('"');
  }

  static String millis(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    return String.format(Locale.ROOT, "%.2f s", d.toNanos() / 1e9);
  }

  /** Without control characters, at most 300 characters. */
  static String clean(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), 300));
    for (int i = 0; i < s.length() && b.length() < 300; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? ' ' : c);
    }
    return b.toString();
  }
}
