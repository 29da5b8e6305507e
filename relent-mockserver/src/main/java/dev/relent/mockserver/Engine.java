package dev.relent.mockserver;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.relent.idempotency.IdempotencyHandler;
import dev.relent.idempotency.IdempotencyRequest;
import dev.relent.idempotency.IdempotencyResponse;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The running scenario: routes with their step counters, the emulations' state, the resources, the
 * journal and the counters; decides the answer to each request.
 *
 * <p>Design: {@link #plan} runs when a request's line and headers arrive (so a reset before the
 * body, rate limits and arrival order all use the arrival time) and fills the {@link Exchange};
 * {@link #complete} runs when the body has arrived, does what needs the body (creating a resource),
 * and journals the request. Both run on the connection's event loop and never block: shared state
 * is in atomics, concurrent maps and short {@code synchronized} sections per bucket. Thread-safe.
 */
final class Engine {

  static final String NO_ROUTE = "(no route)";
  private static final int MAX_KEYS = 100_000;
  private static final int MAX_RESOURCES = 10_000;
  private static final long DAY_MILLIS = 86_400_000L;

  final MockClock clock;
  final Journal journal;
  private final Cors cors;
  private final String exposeHeaders;
  private final String allowMethods;
  private final String allowHeaders;
  private final EndpointState[] endpoints;
  private final GuardSet global;
  private final HttpDates.DateHeader dateHeader = new HttpDates.DateHeader();
  final AtomicInteger active = new AtomicInteger();
  private final AtomicInteger peakActive = new AtomicInteger();
  private final LongAdder requests = new LongAdder();
  private final LongAdder noRoute = new LongAdder();

  Engine(Scenario scenario, MockClock clock, int journalCapacity) {
    this.clock = clock;
    this.journal = new Journal(journalCapacity);
    this.cors = scenario.cors();
    this.exposeHeaders = String.join(", ", cors.exposeHeaders());
    this.allowMethods = String.join(", ", cors.allowMethods());
    this.allowHeaders = cors.allowHeaders() == null ? null : String.join(", ", cors.allowHeaders());
    this.global =
        new GuardSet(
            scenario.rateLimit(),
            scenario.dailyQuota(),
            scenario.concurrencyLimit(),
            scenario.latency());
    List<Endpoint> list = scenario.endpoints();
    this.endpoints = new EndpointState[list.size()];
    for (int i = 0; i < endpoints.length; i++) {
      endpoints[i] = new EndpointState(list.get(i), clock, global);
    }
  }

  String dateHeader(long wallMillis) {
    return dateHeader.value(wallMillis);
  }

  // ---- deciding ------------------------------------------------------------------------------

  /** Decides the answer from the request line and headers. */
  void plan(Exchange ex) {
    requests.increment();
    int now = active.incrementAndGet();
    if (now > peakActive.get()) {
      peakActive.accumulateAndGet(now, Math::max);
    }
    ex.hold(active);
    HttpHeaders headers = ex.request.headers();
    String allowOrigin = cors.allowOriginFor(ex.origin);
    if (cors.enabled()
        && ex.origin != null
        && ex.method.equals("OPTIONS")
        && headers.contains("Access-Control-Request-Method")) {
      preflight(ex, allowOrigin);
      return;
    }
    if (allowOrigin != null) {
      ex.header("Access-Control-Allow-Origin", allowOrigin);
      ex.header("Access-Control-Expose-Headers", exposeHeaders);
      ex.header("Vary", "Origin");
      if (cors.allowCredentials()) {
        ex.header("Access-Control-Allow-Credentials", "true");
      }
    }
    EndpointState e = match(ex.method, ex.path);
    if (e == null) {
      noRoute.increment();
      ex.outcome = "no-route";
      json(
          ex,
          404,
          "{\"error\":\"no_route\",\"method\":" + q(ex.method) + ",\"path\":" + q(ex.path) + "}");
      return;
    }
    ex.endpoint = e;
    e.requests.increment();
    ex.delayNanos += global.latencyNanos() + e.guards.latencyNanos();
    if (e.levels != null && !guards(ex, headers, e.levels)) {
      return;
    }
    if (e.resource != null) {
      e.resource.plan(ex, this);
      return;
    }
    ex.outcome = "step";
    ex.answerWith(e.nextStep(headers, ex.ip));
  }

  private void preflight(Exchange ex, String allowOrigin) {
    ex.outcome = "preflight";
    if (allowOrigin == null) {
      json(ex, 403, "{\"error\":\"origin_not_allowed\"}");
      return;
    }
    ex.status = 204;
    ex.responseBody = new byte[0];
    ex.header("Access-Control-Allow-Origin", allowOrigin);
    ex.header("Access-Control-Allow-Methods", allowMethods);
    String requested = ex.request.headers().get("Access-Control-Request-Headers");
    String allowed = allowHeaders != null ? allowHeaders : requested;
    if (allowed != null && !allowed.isEmpty()) {
      ex.header("Access-Control-Allow-Headers", allowed);
    }
    ex.header("Access-Control-Max-Age", Long.toString(cors.maxAge().getSeconds()));
    if (cors.allowCredentials()) {
      ex.header("Access-Control-Allow-Credentials", "true");
    }
    ex.header("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
  }

  private EndpointState match(String method, String path) {
    for (EndpointState e : endpoints) {
      if (e.matches(method, path)) {
        return e;
      }
    }
    return null;
  }

  /** Runs the emulations; returns false if one of them answered. */
  private boolean guards(Exchange ex, HttpHeaders headers, GuardSet[] sets) {
    List<RateInfo> infos = null;
    long nowNanos = 0;
    boolean haveNanos = false;
    for (GuardSet g : sets) {
      if (g.rate != null) {
        if (!haveNanos) {
          nowNanos = clock.monotonicNanos();
          haveNanos = true;
        }
        RateInfo info = g.rate.take(key(g.rate.cfg.key(), headers, ex.ip), nowNanos);
        infos = add(infos, info);
        if (info.retryAfter >= 0) {
          rateHeaders(ex, infos);
          ex.header("Retry-After", Long.toString(info.retryAfter));
          ex.outcome = "rate-limited";
          json(
              ex,
              g.rate.cfg.status(),
              "{\"error\":\"rate_limited\",\"policy\":"
                  + q(g.rate.cfg.name())
                  + ",\"retryAfterSeconds\":"
                  + info.retryAfter
                  + "}");
          return false;
        }
      }
    }
    for (GuardSet g : sets) {
      if (g.quota != null) {
        RateInfo info = g.quota.take(key(g.quota.cfg.key(), headers, ex.ip), clock.wallMillis());
        infos = add(infos, info);
        if (info.retryAfter >= 0) {
          rateHeaders(ex, infos);
          ex.header("Retry-After", Long.toString(info.retryAfter));
          ex.outcome = "quota-exceeded";
          json(
              ex,
              g.quota.cfg.status(),
              "{\"error\":\"daily_quota_exceeded\",\"limit\":"
                  + g.quota.cfg.limit()
                  + ",\"resetAt\":"
                  + q(Instant.ofEpochMilli(info.resetAtMillis).toString())
                  + "}");
          return false;
        }
      }
    }
    for (GuardSet g : sets) {
      if (g.concurrency != null) {
        AtomicInteger counter = g.concurrency.counter(key(g.concurrency.cfg.key(), headers, ex.ip));
        if (counter.incrementAndGet() > g.concurrency.cfg.max()) {
          counter.decrementAndGet();
          if (infos != null) {
            rateHeaders(ex, infos);
          }
          if (g.concurrency.cfg.retryAfter() != null) {
            ex.header(
                "Retry-After",
                Long.toString(ceilSeconds(g.concurrency.cfg.retryAfter().toMillis())));
          }
          ex.outcome = "concurrency-limited";
          json(
              ex,
              g.concurrency.cfg.status(),
              "{\"error\":\"too_many_concurrent_requests\",\"max\":"
                  + g.concurrency.cfg.max()
                  + "}");
          return false;
        }
        ex.hold(counter);
      }
    }
    if (infos != null) {
      rateHeaders(ex, infos);
    }
    return true;
  }

  private static List<RateInfo> add(List<RateInfo> infos, RateInfo info) {
    List<RateInfo> out = infos == null ? new ArrayList<>(2) : infos;
    out.add(info);
    return out;
  }

  private static void rateHeaders(Exchange ex, List<RateInfo> infos) {
    StringBuilder policy = new StringBuilder();
    StringBuilder state = new StringBuilder();
    RateInfo tightest = null;
    for (RateInfo i : infos) {
      if (policy.length() > 0) {
        policy.append(", ");
        state.append(", ");
      }
      policy.append(i.policy);
      state
          .append('"')
          .append(i.name)
          .append("\";r=")
          .append(i.remaining)
          .append(";t=")
          .append(i.reset);
      if (tightest == null || i.remaining < tightest.remaining) {
        tightest = i;
      }
    }
    ex.header("RateLimit-Policy", policy.toString());
    ex.header("RateLimit", state.toString());
    ex.header("X-RateLimit-Limit", Long.toString(tightest.limit));
    ex.header("X-RateLimit-Remaining", Long.toString(tightest.remaining));
    ex.header("X-RateLimit-Reset", Long.toString(tightest.reset));
  }

  static String key(KeySpec spec, HttpHeaders headers, String ip) {
    switch (spec.kind) {
      case IP:
        return ip;
      case TOKEN:
        String auth = headers.get("Authorization");
        if (auth == null) {
          return "";
        }
        int space = auth.indexOf(' ');
        return space < 0 ? auth : auth.substring(space + 1).trim();
      case HEADER:
        String v = headers.get(spec.header);
        return v == null ? "" : v;
      default:
        return "";
    }
  }

  static void json(Exchange ex, int status, String json) {
    ex.status = status;
    ex.responseBody = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ex.contentType = "application/json";
  }

  static String q(String s) {
    return Json.quote(s);
  }

  static long ceilSeconds(long millis) {
    return Math.floorDiv(millis + 999L, 1000L);
  }

  /** Does what needs the body, then journals the request. */
  void complete(Exchange ex) {
    if (ex.resourceCreate) {
      ex.endpoint.resource.create(ex, this);
    }
    record(ex);
  }

  /** Journals a request whose answer is decided (called once per request). */
  void record(Exchange ex) {
    EndpointState e = ex.endpoint;
    if (e != null && ex.outcome != null) {
      e.outcomes.computeIfAbsent(ex.outcome, k -> new LongAdder()).increment();
    }
    journal.add(
        new Journal.Record(
            ex.seq,
            ex.arrivedMillis,
            ex.remote,
            ex.method,
            ex.uri,
            ex.request.headers(),
            ex.bodyBytes,
            ex.bodyDigest,
            e == null ? null : e.endpoint.name,
            ex.step == null ? -1 : ex.step.index,
            ex.fault == null ? ex.status : 0,
            ex.fault,
            ex.outcome));
  }

  // ---- views ---------------------------------------------------------------------------------

  MockServerStats stats() {
    Map<String, Long> perEndpoint = new LinkedHashMap<>();
    Map<String, Map<String, Long>> outcomes = new LinkedHashMap<>();
    Map<String, Long> created = new LinkedHashMap<>();
    Map<String, Map<String, Long>> createdPerKey = new LinkedHashMap<>();
    for (EndpointState e : endpoints) {
      perEndpoint.put(e.endpoint.name, e.requests.sum());
      Map<String, Long> o = new java.util.TreeMap<>();
      e.outcomes.forEach((k, v) -> o.put(k, v.sum()));
      outcomes.put(e.endpoint.name, java.util.Collections.unmodifiableMap(o));
      if (e.resource != null) {
        created.put(e.endpoint.name, e.resource.created.get());
        Map<String, Long> perKey = new java.util.TreeMap<>();
        e.resource.perKey.forEach((k, v) -> perKey.put(k, v.sum()));
        createdPerKey.put(e.endpoint.name, java.util.Collections.unmodifiableMap(perKey));
      }
    }
    long unmatched = noRoute.sum();
    if (unmatched > 0) {
      perEndpoint.put(NO_ROUTE, unmatched);
    }
    return new MockServerStats(
        requests.sum(),
        active.get(),
        peakActive.get(),
        perEndpoint,
        outcomes,
        created,
        createdPerKey);
  }

  void reset() {
    journal.clear();
    requests.reset();
    peakActive.set(active.get());
    noRoute.reset();
    global.reset();
    for (EndpointState e : endpoints) {
      e.reset(clock);
    }
  }

  // ---- state ---------------------------------------------------------------------------------

  /** One route or resource with its counters. */
  static final class EndpointState {
    final Endpoint endpoint;
    final CompiledStep[] steps;
    final GuardSet guards;
    final LongAdder requests = new LongAdder();
    final ConcurrentHashMap<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    final ResourceState resource;
    private final boolean matchHead;
    private final AtomicLong counter = new AtomicLong();
    private final ConcurrentHashMap<String, AtomicLong> perKey = new ConcurrentHashMap<>();

    // The server-wide and the endpoint's own emulations, or null when neither has any.
    final GuardSet[] levels;

    EndpointState(Endpoint endpoint, MockClock clock, GuardSet global) {
      this.endpoint = endpoint;
      List<Step> list = endpoint.steps;
      this.steps = new CompiledStep[list.size()];
      for (int i = 0; i < steps.length; i++) {
        steps[i] = new CompiledStep(i, list.get(i));
      }
      this.guards =
          new GuardSet(
              endpoint.rateLimit, endpoint.dailyQuota, endpoint.concurrencyLimit, endpoint.latency);
      this.resource = endpoint.resource == null ? null : new ResourceState(endpoint, clock);
      this.levels = global.isEmpty() && guards.isEmpty() ? null : new GuardSet[] {global, guards};
      this.matchHead = endpoint.methods != null && endpoint.methods.contains("GET");
    }

    boolean matches(String method, String path) {
      if (resource != null) {
        String base = endpoint.path.source();
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
      if (endpoint.methods != null
          && !endpoint.methods.contains(method)
          && !(matchHead && method.equals("HEAD"))) {
        return false;
      }
      return endpoint.path.matches(path);
    }

    CompiledStep nextStep(HttpHeaders headers, String ip) {
      AtomicLong c =
          endpoint.sequencePer == null
              ? counter
              : perKey.computeIfAbsent(
                  key(endpoint.sequencePer, headers, ip), k -> new AtomicLong());
      long n = c.getAndIncrement();
      int i = endpoint.cycle ? (int) (n % steps.length) : (int) Math.min(n, steps.length - 1);
      return steps[i];
    }

    void reset(MockClock clock) {
      counter.set(0);
      perKey.clear();
      requests.reset();
      outcomes.clear();
      guards.reset();
      if (resource != null) {
        resource.reset(clock);
      }
    }
  }

  /** The emulations at one level (server-wide or one endpoint). */
  static final class GuardSet {
    final RateState rate;
    final QuotaState quota;
    final ConcurrencyState concurrency;
    final Latency latency;
    private final AtomicLong latencyCount = new AtomicLong();

    GuardSet(RateLimit rate, DailyQuota quota, ConcurrencyLimit concurrency, Latency latency) {
      this.rate = rate == null ? null : new RateState(rate);
      this.quota = quota == null ? null : new QuotaState(quota);
      this.concurrency = concurrency == null ? null : new ConcurrencyState(concurrency);
      this.latency = latency;
    }

    boolean isEmpty() {
      return rate == null && quota == null && concurrency == null;
    }

    long latencyNanos() {
      return latency == null ? 0 : latency.nanosFor(latencyCount.getAndIncrement());
    }

    void reset() {
      latencyCount.set(0);
      if (rate != null) {
        rate.buckets.clear();
      }
      if (quota != null) {
        quota.counters.clear();
      }
      // Active requests keep their concurrency permits: they are still running.
    }
  }

  /** What one rate limit or quota says about one request. */
  static final class RateInfo {
    final String policy;
    final String name;
    final long limit;
    final long remaining;
    final long reset;
    // Whole seconds to wait when rejected, else -1.
    final long retryAfter;
    final long resetAtMillis;

    RateInfo(
        String policy,
        String name,
        long limit,
        long remaining,
        long reset,
        long retryAfter,
        long resetAtMillis) {
      this.policy = policy;
      this.name = name;
      this.limit = limit;
      this.remaining = remaining;
      this.reset = reset;
      this.retryAfter = retryAfter;
      this.resetAtMillis = resetAtMillis;
    }
  }

  /**
   * A token bucket per key, in integer units so that tests get exact numbers: one token is {@code
   * windowNanos} units and every nanosecond adds {@code limit} units, so {@code limit} tokens
   * refill per window exactly.
   */
  static final class RateState {
    final RateLimit cfg;
    final String policy;
    private final long perToken;
    private final long capacity;
    private final long limit;
    final ConcurrentHashMap<String, long[]> buckets = new ConcurrentHashMap<>();

    RateState(RateLimit cfg) {
      this.cfg = cfg;
      this.limit = cfg.limit();
      this.perToken = cfg.window().toNanos();
      long cap;
      try {
        cap = Math.multiplyExact(perToken, (long) cfg.burst());
      } catch (ArithmeticException e) {
        cap = Long.MAX_VALUE / 2;
      }
      this.capacity = cap;
      this.policy =
          "\"" + cfg.name() + "\";q=" + cfg.limit() + ";w=" + ceilSeconds(cfg.window().toMillis());
    }

    RateInfo take(String key, long now) {
      long[] b = buckets.get(key);
      if (b == null) {
        if (buckets.size() >= MAX_KEYS) {
          buckets.clear();
        }
        b = buckets.computeIfAbsent(key, k -> new long[] {capacity, now});
      }
      long units;
      long retryAfter = -1;
      synchronized (b) {
        long elapsed = now - b[1];
        if (elapsed > 0) {
          long add = elapsed > capacity / limit ? capacity : elapsed * limit;
          b[0] = Math.min(capacity, b[0] + add);
          b[1] = now;
        }
        if (b[0] >= perToken) {
          b[0] -= perToken;
        } else {
          long waitNanos = ceilDiv(perToken - b[0], limit);
          retryAfter = Math.max(1, ceilDiv(waitNanos, 1_000_000_000L));
        }
        units = b[0];
      }
      long remaining = units / perToken;
      long reset = ceilDiv(ceilDiv(capacity - units, limit), 1_000_000_000L);
      return new RateInfo(policy, cfg.name(), cfg.limit(), remaining, reset, retryAfter, 0);
    }
  }

  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /** A counter per key and per quota day. */
  static final class QuotaState {
    final DailyQuota cfg;
    final String policy;
    private final long offsetMillis;
    final ConcurrentHashMap<String, long[]> counters = new ConcurrentHashMap<>();

    QuotaState(DailyQuota cfg) {
      this.cfg = cfg;
      this.offsetMillis = cfg.resetAt().toSecondOfDay() * 1000L;
      this.policy = "\"daily\";q=" + cfg.limit() + ";w=86400";
    }

    RateInfo take(String key, long wallMillis) {
      long day = Math.floorDiv(wallMillis - offsetMillis, DAY_MILLIS);
      long resetAt = (day + 1) * DAY_MILLIS + offsetMillis;
      long[] c = counters.get(key);
      if (c == null) {
        if (counters.size() >= MAX_KEYS) {
          counters.clear();
        }
        c = counters.computeIfAbsent(key, k -> new long[] {day, 0});
      }
      long used;
      boolean rejected;
      synchronized (c) {
        if (c[0] != day) {
          c[0] = day;
          c[1] = 0;
        }
        rejected = c[1] >= cfg.limit();
        if (!rejected) {
          c[1]++;
        }
        used = c[1];
      }
      long secondsToReset = ceilSeconds(resetAt - wallMillis);
      return new RateInfo(
          policy,
          "daily",
          cfg.limit(),
          cfg.limit() - used,
          secondsToReset,
          rejected ? Math.max(1, secondsToReset) : -1,
          resetAt);
    }
  }

  /** Active-request counters per key. */
  static final class ConcurrencyState {
    final ConcurrencyLimit cfg;
    private final AtomicInteger single = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> perKey = new ConcurrentHashMap<>();

    ConcurrencyState(ConcurrencyLimit cfg) {
      this.cfg = cfg;
    }

    AtomicInteger counter(String key) {
      if (cfg.key().kind == KeySpec.Kind.GLOBAL) {
        return single;
      }
      // Entries stay (a key's counter must outlive its requests); bounded by the keys seen.
      return perKey.computeIfAbsent(key, k -> new AtomicInteger());
    }
  }

  /**
   * An idempotent resource collection on relent-idempotency: {@code POST} creates through the
   * {@link IdempotencyHandler} (so a duplicate key replays the first answer), {@code GET} lists or
   * reads. The created resources are kept in memory, the newest {@value #MAX_RESOURCES}.
   */
  static final class ResourceState {
    private final Endpoint endpoint;
    private final Endpoint.ResourceSettings settings;
    private volatile IdempotencyHandler handler;
    final AtomicLong created = new AtomicLong();
    final ConcurrentHashMap<String, LongAdder> perKey = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, byte[]> byId = new ConcurrentHashMap<>();
    private final ArrayDeque<String> order = new ArrayDeque<>();

    ResourceState(Endpoint endpoint, MockClock clock) {
      this.endpoint = endpoint;
      this.settings = endpoint.resource;
      this.handler = newHandler(clock);
    }

    private IdempotencyHandler newHandler(MockClock clock) {
      return IdempotencyHandler.builder()
          .withClock(clock::wallMillis)
          .withExpiry(settings.ttl)
          .withKeyRequired(settings.requireKey)
          .build();
    }

    void reset(MockClock clock) {
      handler = newHandler(clock);
      created.set(0);
      perKey.clear();
      byId.clear();
      synchronized (order) {
        order.clear();
      }
    }

    void plan(Exchange ex, Engine engine) {
      String base = endpoint.path.source();
      boolean collection = ex.path.length() == base.length();
      boolean read = ex.method.equals("GET") || ex.method.equals("HEAD");
      if (collection && ex.method.equals("POST")) {
        CompiledStep s = ex.endpoint.nextStep(ex.request.headers(), ex.ip);
        ex.answerWith(s);
        if (s.creates && s.fault != Fault.RESET_BEFORE_READ) {
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
        json(ex, 405, "{\"error\":\"method_not_allowed\",\"method\":" + q(ex.method) + "}");
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
        json(ex, 404, "{\"error\":\"not_found\",\"id\":" + q(id) + "}");
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

    void create(Exchange ex, Engine engine) {
      if (ex.tooLarge) {
        ex.outcome = "too-large";
        ex.renderStepHeaders = false;
        ex.fault = null;
        json(ex, 413, "{\"error\":\"body_too_large\"}");
        return;
      }
      byte[] body = ex.body.toByteArray();
      ex.body = null;
      String rawKey = ex.request.headers().get(settings.keyHeader);
      IdempotencyRequest request =
          IdempotencyRequest.builder()
              .withScope(
                  settings.scope.text + ":" + key(settings.scope, ex.request.headers(), ex.ip))
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
                  return create(rawKey, body, engine.clock.wallMillis());
                });
      } catch (RuntimeException e) {
        ex.outcome = "error";
        ex.renderStepHeaders = false;
        ex.fault = null;
        json(ex, 500, "{\"error\":\"internal\",\"type\":" + q(e.getClass().getName()) + "}");
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
      String id = settings.idPrefix + n;
      String key = unquote(rawKey);
      ByteArrayOutputStream out = new ByteArrayOutputStream(128 + requestBody.length);
      try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
        g.writeStartObject();
        g.writeStringField("id", id);
        g.writeStringField("createdAt", Instant.ofEpochMilli(nowMillis).toString());
        if (rawKey == null) {
          g.writeNullField("idempotencyKey");
        } else {
          g.writeStringField("idempotencyKey", key);
        }
        g.writeStringField(
            "requestBody", new String(requestBody, java.nio.charset.StandardCharsets.UTF_8));
        g.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] json = out.toByteArray();
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
                perKey.size() >= MAX_KEYS ? "(other)" : countKey, k -> new LongAdder());
      }
      counter.increment();
      return IdempotencyResponse.builder(201)
          .withHeader("Content-Type", "application/json")
          .withHeader("Location", endpoint.path.source() + "/" + id)
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
}
