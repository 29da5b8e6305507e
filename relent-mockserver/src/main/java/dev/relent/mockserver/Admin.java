package dev.relent.mockserver;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The admin endpoints under {@code /__relent/}: {@code GET journal}, {@code GET stats}, {@code POST
 * reset} and {@code GET health}. They are answered at once, never journaled, counted or limited.
 * Thread-safe.
 */
final class Admin {

  static final String PREFIX = "/__relent/";

  private final Engine engine;

  Admin(Engine engine) {
    this.engine = engine;
  }

  void answer(ServerExchange ex) {
    String what = ex.path.substring(PREFIX.length());
    boolean get = ex.method.equals("GET") || ex.method.equals("HEAD");
    switch (what) {
      case "journal":
        if (get) {
          ok(
              ex,
              journalJson(
                  engine.journal.entries(), engine.journal.capacity(), engine.journal.total()));
          return;
        }
        break;
      case "stats":
        if (get) {
          ok(ex, statsJson(engine.stats()));
          return;
        }
        break;
      case "health":
        if (get) {
          ok(ex, "{\"status\":\"ok\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
          return;
        }
        break;
      case "reset":
        if (ex.method.equals("POST")) {
          engine.reset();
          ex.status = 204;
          ex.responseBody = new byte[0];
          return;
        }
        ex.header("Allow", "POST");
        ex.json(405, "{\"error\":\"method_not_allowed\",\"allow\":\"POST\"}");
        return;
      default:
        ex.json(
            404,
            "{\"error\":\"no_admin_endpoint\",\"known\":[\"journal\",\"stats\",\"reset\",\"health\"]}");
        return;
    }
    ex.header("Allow", "GET, HEAD");
    ex.json(405, "{\"error\":\"method_not_allowed\",\"allow\":\"GET, HEAD\"}");
  }

  private static void ok(ServerExchange ex, byte[] json) {
    ex.status = 200;
    ex.contentType = "application/json";
    ex.responseBody = json;
  }

  static byte[] journalJson(List<JournalEntry> entries, int capacity, long total) {
    return JsonText.bytes(
        256 + entries.size() * 256, g -> writeJournal(g, entries, capacity, total));
  }

  private static void writeJournal(
      JsonGenerator g, List<JournalEntry> entries, int capacity, long total) throws IOException {
    g.writeStartObject();
    g.writeNumberField("capacity", capacity);
    g.writeNumberField("total", total);
    g.writeNumberField("dropped", Math.max(0, total - entries.size()));
    g.writeArrayFieldStart("entries");
    for (JournalEntry e : entries) {
      g.writeStartObject();
      g.writeNumberField("sequence", e.sequence());
      g.writeStringField("arrivedAt", e.arrivedAt().toString());
      g.writeStringField("remoteAddress", e.remoteAddress());
      g.writeStringField("method", e.method());
      g.writeStringField("target", e.target());
      g.writeObjectFieldStart("headers");
      for (Map.Entry<String, List<String>> h : e.headers().entrySet()) {
        g.writeArrayFieldStart(h.getKey());
        for (String v : h.getValue()) {
          g.writeString(v);
        }
        g.writeEndArray();
      }
      g.writeEndObject();
      g.writeNumberField("bodyBytes", e.bodyBytes());
      JsonText.writeNullable(g, "bodySha256", e.bodySha256());
      JsonText.writeNullable(g, "endpoint", e.endpoint());
      g.writeNumberField("step", e.step());
      g.writeNumberField("status", e.status());
      JsonText.writeNullable(g, "fault", e.fault());
      JsonText.writeNullable(g, "outcome", e.outcome());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  static byte[] statsJson(MockServerStats s) {
    return JsonText.bytes(512, g -> writeStats(g, s));
  }

  private static void writeStats(JsonGenerator g, MockServerStats s) throws IOException {
    g.writeStartObject();
    g.writeNumberField("requests", s.requests());
    g.writeNumberField("active", s.active());
    g.writeNumberField("peakActive", s.peakActive());
    g.writeObjectFieldStart("endpoints");
    for (Map.Entry<String, Long> e : s.requestsPerEndpoint().entrySet()) {
      g.writeObjectFieldStart(e.getKey());
      g.writeNumberField("requests", e.getValue());
      g.writeObjectFieldStart("outcomes");
      for (Map.Entry<String, Long> o : s.outcomes(e.getKey()).entrySet()) {
        g.writeNumberField(o.getKey(), o.getValue());
      }
      g.writeEndObject();
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeObjectFieldStart("resources");
    for (String name : s.requestsPerEndpoint().keySet()) {
      if (!s.isResource(name)) {
        continue;
      }
      Map<String, Long> perKey = s.resourcesCreatedPerKey(name);
      g.writeObjectFieldStart(name);
      g.writeNumberField("created", s.resourcesCreated(name));
      g.writeObjectFieldStart("createdPerKey");
      for (Map.Entry<String, Long> k : perKey.entrySet()) {
        g.writeNumberField(k.getKey(), k.getValue());
      }
      g.writeEndObject();
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeEndObject();
  }
}
