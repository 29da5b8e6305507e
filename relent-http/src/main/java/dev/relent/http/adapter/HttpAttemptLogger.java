package dev.relent.http.adapter;

import dev.relent.RelentEvent;
import dev.relent.RelentException;
import dev.relent.http.AttemptRecord;
import dev.relent.http.Redactor;
import dev.relent.time.Clock;
import dev.relent.time.Durations;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Writes one line per attempt from its {@link AttemptRecord} (see {@link HttpOutcomes#logger}),
 * with the same facts as SLF4J key-values beside the text.
 *
 * <p>Levels: a first attempt that succeeds at DEBUG, a retry and a success after retries at INFO,
 * giving up at WARN, a pacer wait at DEBUG; a write held back because it may have reached the
 * server is WARN whatever the attempt. Everything written comes from a record, whose values passed
 * the redactor or are sanitised headers from a fixed list, from the give-up's own fields, or from
 * the pauses of the call's scopes (scope names, which never hold a secret, and causes made of the
 * same redacted outcome and hint); bodies are never read. Stateless and thread-safe.
 */
record HttpAttemptLogger(Logger log, Clock clock, Redactor redactor) {

  /**
   * Writes the line for a SUCCESS, RETRY or FAILURE event; {@code record} null if no attempt;
   * {@code paused} the call's scopes paused now, with until when and by what, or null.
   */
  void write(AttemptRecord record, RelentEvent<?> event, String paused) {
    Level level = level(record, event);
    if (!log.isEnabledForLevel(level)) {
      return;
    }
    LoggingEventBuilder b = log.atLevel(level).addKeyValue("attempt", event.attempt());
    StringBuilder s = new StringBuilder(256);
    s.append("at=").append(clock.instant());
    s.append(" attempt=").append(event.attempt());
    if (record != null) {
      s.append(" method=").append(record.method());
      s.append(" endpoint=").append(record.endpoint());
      s.append(" outcome=\"").append(record.outcome()).append('"');
      record.requestId().ifPresent(v -> s.append(" request-id=\"").append(v).append('"'));
      record.waitHeaders().ifPresent(v -> s.append(" wait-headers=\"").append(v).append('"'));
      record.via().ifPresent(v -> s.append(" via=\"").append(v).append('"'));
      b =
          b.addKeyValue("method", record.method())
              .addKeyValue("endpoint", record.endpoint())
              .addKeyValue("outcome", record.outcome())
              .addKeyValue("rule", record.rule());
      if (record.status() >= 0) {
        b = b.addKeyValue("status", record.status());
      }
      if (record.fault().isPresent()) {
        b = b.addKeyValue("fault", record.fault().get().rule());
      }
      if (record.requestId().isPresent()) {
        b = b.addKeyValue("request_id", record.requestId().get());
      }
    }
    RelentException gaveUp = event.exception().orElse(null);
    String decision;
    RelentException.Reason reason = event.giveUpReason().orElse(null);
    if (reason != null) {
      // Spelled as the meters' reason tag and the span's relent.reason: one source.
      StringBuilder d = new StringBuilder("give up: ");
      d.append(reason.slug());
      event.verdict().ifPresent(verdict -> d.append(", last ").append(verdict));
      decision = d.toString();
    } else {
      decision = event.verdict().map(String::valueOf).orElse(null);
    }
    if (decision != null) {
      s.append(" decision=\"").append(decision).append('"');
      b = b.addKeyValue("decision", decision);
    }
    if (gaveUp != null && event.type() == RelentEvent.Type.FAILURE) {
      if (gaveUp.serverWait().isPresent()) {
        s.append(" server-wait=").append(Durations.format(gaveUp.serverWait().get().toNanos()));
        b = b.addKeyValue("server_wait_ms", gaveUp.serverWait().get().toMillis());
      }
      gaveUp.retryAt().ifPresent(at -> s.append(" retry-at=").append(at));
    }
    if (event.waitTime().isPresent()) {
      Duration wait = event.waitTime().get();
      s.append(" wait=").append(Durations.format(wait.toNanos()));
      b = b.addKeyValue("wait_ms", wait.toMillis());
    }
    if (event.hint().isPresent()) {
      String source = clean(event.hint().get().source());
      s.append(" hint=\"").append(source).append('"');
      b = b.addKeyValue("hint", source);
    }
    if (paused != null) {
      String text = clean(paused);
      s.append(" paused=\"").append(text).append('"');
      b = b.addKeyValue("paused", text);
    }
    if (record != null && record.key().isPresent()) {
      s.append(" key=").append(record.key().get());
      b = b.addKeyValue("key", record.key().get());
    }
    if (record != null && record.heldBack()) {
      s.append(" held-back=\"not re-sent: may have reached the server\"");
      b = b.addKeyValue("held_back", true);
    }
    s.append(" elapsed=").append(Durations.format(event.elapsed().toNanos()));
    b.addKeyValue("elapsed_ms", event.elapsed().toMillis()).log(s.toString());
  }

  /** Writes the DEBUG line for a pacer wait. */
  void paced(RelentEvent<?> event) {
    if (!log.isDebugEnabled()) {
      return;
    }
    Duration wait = event.waitTime().orElse(Duration.ZERO);
    log.atDebug()
        .addKeyValue("attempt", event.attempt() + 1)
        .addKeyValue("decision", "paced")
        .addKeyValue("wait_ms", wait.toMillis())
        .log(
            "at="
                + clock.instant()
                + " attempt="
                + (event.attempt() + 1)
                + " decision=paced wait="
                + Durations.format(wait.toNanos()));
  }

  private static Level level(AttemptRecord record, RelentEvent<?> event) {
    if (event.type() == RelentEvent.Type.FAILURE || (record != null && record.heldBack())) {
      return Level.WARN;
    }
    if (event.type() == RelentEvent.Type.SUCCESS && event.attempt() <= 1) {
      return Level.DEBUG;
    }
    return Level.INFO;
  }

  private String clean(String value) {
    return dev.relent.http.ResponseFacts.sanitize(redactor.text(value)).replace('"', '\'');
  }
}
