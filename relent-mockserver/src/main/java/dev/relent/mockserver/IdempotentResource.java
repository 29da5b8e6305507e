package dev.relent.mockserver;

import dev.relent.idempotency.IdempotencyHandler;
import dev.relent.idempotency.IdempotencyRequest;
import dev.relent.idempotency.IdempotencyResponse;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The running state of an idempotent resource endpoint, on relent-idempotency: {@code POST} creates
 * through the {@link IdempotencyHandler} (so a duplicate key replays the first answer), {@code GET}
 * lists or reads. The created resources are kept in memory, the newest {@value #MAX_RESOURCES}.
 * Thread-safe.
 */
final class IdempotentResource {

  private static final int MAX_RESOURCES = 10_000;

  private final Endpoint.ResourceSettings settings;
  private final String base;
  private final MockClock clock;
  private volatile IdempotencyHandler handler;
  private final AtomicLong created = new AtomicLong();
  private final ConcurrentHashMap<String, LongAdder> perKey = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, byte[]> byId = new ConcurrentHashMap<>();
  private final ArrayDeque<String> order = new ArrayDeque<>();

  IdempotentResource(Endpoint endpoint, MockClock clock) {
    this.settings = endpoint.resource();
    this.base = endpoint.path().source();
    this.clock = clock;
    this.handler = newHandler();
  }

  private IdempotencyHandler newHandler() {
    return IdempotencyHandler.builder()
        .withClock(clock::wallMillis)
        .withExpiry(settings.ttl())
        .withKeyRequired(settings.requireKey())
        .build();
  }

  long created() {
    return created.get();
  }

  Map<String, LongAdder> createdPerKey() {
    return perKey;
  }

  /** Whether {@code path} is the collection or one resource in it. */
  boolean matches(String path) {
    if (!path.startsWith(base)) {
      return false;
    }
    if (path.length() == base.length()) {
      return true;
    }
    if (path.charAt(base.length()) != '/' || path.length() == base.length() + 1) {
      return false;
    }
    return path.indexOf('/', base.length() + 1) < 0;
  }

  void reset() {
    handler = newHandler();
    created.set(0);
    perKey.clear();
    byId.clear();
    synchronized (order) {
      order.clear();
    }
  }

  void plan(ServerExchange ex) {
    boolean collection = ex.path.length() == base.length();
    boolean read = ex.method.equals("GET") || ex.method.equals("HEAD");
    if (collection && ex.method.equals("POST")) {
      CompiledStep s = ex.endpoint.nextStep(ex);
      ex.answerWith(s);
      if (s.creates && s.fault != InjectedFault.RESET_BEFORE_READ) {
        // Needs the body: the answer is finished in create() once it has arrived.
        ex.resourceCreate = true;
        ex.body = new ByteArrayOutputStream();
      } else {
        ex.outcome = "not-created";
      }
      return;
    }
    if (!read) {
      ex.outcome = "method-not-allowed";
      ex.header("Allow", collection ? "GET, HEAD, POST" : "GET, HEAD");
      ex.json(
          405, "{\"error\":\"method_not_allowed\",\"method\":" + JsonText.quote(ex.method) + "}");
      return;
    }
    if (collection) {
      ex.outcome = "listed";
      ex.status = 200;
      ex.contentType = "application/json";
      ex.responseBody = list();
      return;
    }
    String id = ex.path.substring(base.length() + 1);
    byte[] body = byId.get(id);
    if (body == null) {
      ex.outcome = "not-found";
      ex.json(404, "{\"error\":\"not_found\",\"id\":" + JsonText.quote(id) + "}");
      return;
    }
    ex.outcome = "read";
    ex.status = 200;
    ex.contentType = "application/json";
    ex.responseBody = body;
  }

  private byte[] list() {
    List<byte[]> items = new ArrayList<>();
    synchronized (order) {
      for (String id : order) {
        byte[] b = byId.get(id);
        if (b != null) {
          items.add(b);
        }
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write('[');
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(items.get(i));
    }
    out.write(']');
    return out.toByteArray();
  }

  void create(ServerExchange ex) {
    if (ex.tooLarge) {
      ex.outcome = "too-large";
      ex.renderStepHeaders = false;
      ex.fault = null;
      ex.json(413, "{\"error\":\"body_too_large\"}");
      return;
    }
    byte[] body = ex.body.toByteArray();
    ex.body = null;
    String rawKey = ex.request.headers().get(settings.keyHeader());
    IdempotencyRequest request =
        IdempotencyRequest.builder()
            .withScope(settings.scope().text + ":" + settings.scope().callerOf(ex))
            .withMethod(ex.method)
            .withPath(ex.path)
            .withKey(rawKey)
            .withBody(body)
            .build();
    AtomicBoolean ran = new AtomicBoolean();
    IdempotencyResponse response;
    try {
      response =
          handler.handle(
              request,
              r -> {
                ran.set(true);
                return create(rawKey, body, clock.wallMillis());
              });
    } catch (RuntimeException e) {
      ex.outcome = "error";
      ex.renderStepHeaders = false;
      ex.fault = null;
      ex.json(
          500, "{\"error\":\"internal\",\"type\":" + JsonText.quote(e.getClass().getName()) + "}");
      return;
    }
    boolean replayed = response.isReplayed();
    ex.outcome = ran.get() ? "created" : replayed ? "replayed" : "idempotency-problem";
    CompiledStep s = ex.step;
    if (s.fault != null || s.statusSet || s.hasBody) {
      // The step's fault or status hides the answer the resource gave: the work is done, the
      // client does not learn it (a 504 from a gateway, a reset connection).
      return;
    }
    ex.status = response.status();
    ex.responseBody = response.body();
    ex.contentType = null;
    for (Map.Entry<String, List<String>> h : response.headers().entrySet()) {
      for (String v : h.getValue()) {
        ex.header(h.getKey(), v);
      }
    }
  }

  private IdempotencyResponse create(String rawKey, byte[] requestBody, long nowMillis) {
    long n = created.incrementAndGet();
    String id = settings.idPrefix() + n;
    String key = unquote(rawKey);
    byte[] json =
        JsonText.bytes(
            128 + requestBody.length,
            g -> {
              g.writeStartObject();
              g.writeStringField("id", id);
              g.writeStringField("createdAt", Instant.ofEpochMilli(nowMillis).toString());
              JsonText.writeNullable(g, "idempotencyKey", key);
              g.writeStringField("requestBody", new String(requestBody, StandardCharsets.UTF_8));
              g.writeEndObject();
            });
    byId.put(id, json);
    synchronized (order) {
      order.addLast(id);
      if (order.size() > MAX_RESOURCES) {
        byId.remove(order.removeFirst());
      }
    }
    String countKey = key == null ? "" : key;
    LongAdder counter = perKey.get(countKey);
    if (counter == null) {
      counter =
          perKey.computeIfAbsent(
              perKey.size() >= PerCaller.MAX_KEYS ? "(other)" : countKey, k -> new LongAdder());
    }
    counter.increment();
    return IdempotencyResponse.builder(201)
        .withHeader("Content-Type", "application/json")
        .withHeader("Location", base + "/" + id)
        .withBody(json)
        .build();
  }

  private static String unquote(String key) {
    if (key == null) {
      return null;
    }
    String k = key.trim();
    if (k.length() >= 2 && k.startsWith("\"") && k.endsWith("\"")) {
      return k.substring(1, k.length() - 1);
    }
    return k;
  }
}
