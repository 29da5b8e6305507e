package dev.relent.cli;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import dev.relent.cli.common.CallOutcome;
import dev.relent.cli.common.Format;
import dev.relent.http.AttemptRecord;
import dev.relent.http.Redactor;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Writes the {@code --report} file of {@code relent call}: the request (method, redacted URL,
 * idempotency key, header names), the settings, every attempt and the outcome. Schema version
 * {@value #VERSION}, documented in docs/cli.md. Header values and bodies are never written; the URL
 * passes the {@link Redactor}, messages are built from redacted parts.
 */
final class CallReport {
  /** The schema version, the report's first field; bumped when a field changes meaning. */
  static final int VERSION = 1;

  private static final JsonFactory JSON =
      JsonFactory.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

  private CallReport() {}

  static void write(
      Path file,
      CallSettings settings,
      CallCommand flags,
      long startedAtMillis,
      long elapsedNanos,
      CallAttempts calls,
      CallOutcome outcome)
      throws IOException {
    try (OutputStream out = Files.newOutputStream(file);
        JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeNumberField("relent_report", VERSION);
      g.writeStringField("started_at", Instant.ofEpochMilli(startedAtMillis).toString());

      g.writeObjectFieldStart("request");
      g.writeStringField("method", settings.request().method());
      g.writeStringField("url", Redactor.ofDefaults().uri(settings.request().uri()));
      g.writeStringField("idempotency_key", settings.key());
      g.writeArrayFieldStart("headers");
      for (String name : settings.headerNames()) {
        g.writeString(name);
      }
      g.writeEndArray();
      g.writeFieldName("body_bytes");
      if (settings.bodyBytes() < 0) {
        g.writeNull();
      } else {
        g.writeNumber(settings.bodyBytes());
      }
      g.writeEndObject();

      g.writeObjectFieldStart("settings");
      g.writeNumberField("max_retries", flags.retry.maxRetries);
      millis(g, "base_ms", flags.retry.base.toNanos());
      millis(g, "cap_ms", flags.retry.cap.toNanos());
      g.writeStringField("jitter", Format.slug(flags.retry.jitter));
      millis(g, "timeout_ms", flags.retry.timeout.toNanos());
      millis(g, "deadline_ms", flags.retry.deadline.toNanos());
      millis(
          g,
          "max_wait_ms",
          (flags.retry.maxWait != null ? flags.retry.maxWait : flags.retry.deadline).toNanos());
      g.writeFieldName("seed");
      if (flags.retry.seed == null) {
        g.writeNull();
      } else {
        g.writeNumber(flags.retry.seed);
      }
      g.writeEndObject();

      List<AttemptRecord> attempts = calls.records();
      g.writeArrayFieldStart("attempts");
      for (AttemptRecord a : attempts) {
        g.writeStartObject();
        g.writeNumberField("attempt", a.number());
        millis(g, "start_ms", a.start().toNanos());
        millis(g, "duration_ms", a.duration().orElse(Duration.ZERO).toNanos());
        optionalInt(g, "status", a.status());
        g.writeStringField("fault", CallAttempts.fault(a));
        g.writeStringField("outcome", a.outcome());
        g.writeStringField("request_id", a.requestId().orElse(null));
        g.writeStringField("wait_headers", a.waitHeaders().orElse(null));
        g.writeStringField("via", a.via().orElse(null));
        g.writeStringField("verdict", CallAttempts.verdict(a));
        g.writeStringField("rule", a.rule());
        g.writeStringField("hint", a.serverHint().orElse(null));
        g.writeStringField("decision", a.waitTime().isPresent() ? "retry" : "stop");
        if (a.waitTime().isEmpty()) {
          g.writeNullField("wait_ms");
        } else {
          millis(g, "wait_ms", a.waitTime().get().toNanos());
        }
        boolean last = a.number() == attempts.get(attempts.size() - 1).number();
        g.writeStringField("gave_up", last ? calls.gaveUp() : null);
        g.writeEndObject();
      }
      g.writeEndArray();

      g.writeObjectFieldStart("outcome");
      g.writeNumberField("exit_code", outcome.exitCode());
      g.writeStringField("reason", outcome.reason());
      g.writeStringField("message", outcome.message());
      optionalInt(g, "status", outcome.status());
      g.writeNumberField(
          "attempts", outcome.attempts() >= 0 ? outcome.attempts() : attempts.size());
      millis(g, "elapsed_ms", elapsedNanos);
      Duration serverWait = outcome.serverWait();
      if (serverWait == null) {
        g.writeNullField("server_wait_ms");
      } else {
        millis(g, "server_wait_ms", serverWait.toNanos());
      }
      g.writeStringField(
          "retry_at", outcome.retryAt() == null ? null : outcome.retryAt().toString());
      g.writeEndObject();

      g.writeEndObject();
      g.writeRaw('\n');
    }
  }

  /** Milliseconds with at most three decimals (microseconds), no exponent, no trailing zeros. */
  private static void millis(JsonGenerator g, String field, long nanos) throws IOException {
    g.writeNumberField(field, Format.jsonMillis(nanos));
  }

  private static void optionalInt(JsonGenerator g, String field, int value) throws IOException {
    if (value < 0) {
      g.writeNullField(field);
    } else {
      g.writeNumberField(field, value);
    }
  }
}
