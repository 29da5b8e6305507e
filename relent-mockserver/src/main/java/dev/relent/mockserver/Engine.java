package dev.relent.mockserver;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The running scenario: routes with their step counters, the emulations' state, the resources, the
 * journal and the counters; decides the answer to each request.
 *
 * <p>Design: {@link #plan} runs when a request's line and headers arrive (so a reset before the
 * body, rate limits and arrival order all use the arrival time) and fills the {@link
 * ServerExchange}: CORS first ({@link Cors} answers a preflight itself), then the route, then its
 * {@link Emulation}s in the order {@link EmulationSettings#inOrder} gives, then the step or the
 * resource. {@link #complete} runs when the body has arrived, does what needs the body (creating a
 * resource), and journals the request. Both run on the connection's event loop and never block:
 * shared state is in atomics, concurrent maps and short {@code synchronized} sections per bucket.
 * Thread-safe.
 */
final class Engine {

  static final String NO_ROUTE = "(no route)";

  final MockClock clock;
  final Journal journal;
  private final Cors cors;
  private final EndpointState[] endpoints;
  private final Emulation[] serverEmulations;
  private final DateHeader dateHeader = new DateHeader();
  final AtomicInteger active = new AtomicInteger();
  private final AtomicInteger peakActive = new AtomicInteger();
  private final LongAdder requests = new LongAdder();
  private final LongAdder noRoute = new LongAdder();

  Engine(Scenario scenario, MockClock clock, int journalCapacity) {
    this.clock = clock;
    this.journal = new Journal(journalCapacity, clock == MockClock.system());
    this.cors = scenario.cors();
    this.serverEmulations = scenario.emulations().start();
    List<Endpoint> list = scenario.endpoints();
    this.endpoints = new EndpointState[list.size()];
    for (int i = 0; i < endpoints.length; i++) {
      endpoints[i] = new EndpointState(list.get(i), clock, serverEmulations);
    }
  }

  String dateHeader(long wallMillis) {
    return dateHeader.value(wallMillis);
  }

  // ---- deciding ------------------------------------------------------------------------------

  /** Decides the answer from the request line and headers. */
  void plan(ServerExchange ex) {
    requests.increment();
    int now = active.incrementAndGet();
    if (now > peakActive.get()) {
      peakActive.accumulateAndGet(now, Math::max);
    }
    ex.hold(active);
    if (cors.handle(ex)) {
      return;
    }
    EndpointState e = match(ex.method, ex.path);
    if (e == null) {
      noRoute.increment();
      ex.outcome = "no-route";
      ex.json(
          404,
          "{\"error\":\"no_route\",\"method\":"
              + JsonText.quote(ex.method)
              + ",\"path\":"
              + JsonText.quote(ex.path)
              + "}");
      return;
    }
    ex.endpoint = e;
    e.requests.increment();
    if (e.emulations != null && !admit(ex, e.emulations)) {
      return;
    }
    if (e.resource != null) {
      e.resource.plan(ex);
      return;
    }
    ex.outcome = "step";
    ex.answerWith(e.nextStep(ex));
  }

  private EndpointState match(String method, String path) {
    for (EndpointState e : endpoints) {
      if (e.matches(method, path)) {
        return e;
      }
    }
    return null;
  }

  /** Runs the emulations; returns false if one of them rejected the request. */
  private boolean admit(ServerExchange ex, Emulation[] emulations) {
    RateLimitHeaders shown = new RateLimitHeaders();
    for (Emulation emulation : emulations) {
      Emulation.Rejection rejection = emulation.admit(ex, clock, shown);
      if (rejection != null) {
        shown.write(ex);
        rejection.answer(ex);
        return false;
      }
    }
    shown.write(ex);
    return true;
  }

  /** Does what needs the body, then journals the request. */
  void complete(ServerExchange ex) {
    if (ex.resourceCreate) {
      ex.endpoint.resource.create(ex);
    }
    record(ex);
  }

  /** Journals a request whose answer is decided (called once per request). */
  void record(ServerExchange ex) {
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
            e == null ? null : e.endpoint.name(),
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
      String name = e.endpoint.name();
      perEndpoint.put(name, e.requests.sum());
      outcomes.put(name, sums(e.outcomes));
      if (e.resource != null) {
        created.put(name, e.resource.created());
        createdPerKey.put(name, sums(e.resource.createdPerKey()));
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

  private static Map<String, Long> sums(Map<String, LongAdder> counters) {
    Map<String, Long> out = new TreeMap<>();
    counters.forEach((k, v) -> out.put(k, v.sum()));
    return Collections.unmodifiableMap(out);
  }

  void reset() {
    journal.clear();
    requests.reset();
    peakActive.set(active.get());
    noRoute.reset();
    EmulationSettings.reset(serverEmulations);
    for (EndpointState e : endpoints) {
      e.reset();
    }
  }

  // ---- state ---------------------------------------------------------------------------------

  /** One route or resource with its counters. */
  static final class EndpointState {
    final Endpoint endpoint;
    final CompiledStep[] steps;
    final LongAdder requests = new LongAdder();
    final ConcurrentHashMap<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    final IdempotentResource resource;
    private final boolean matchHead;
    private final AtomicLong counter = new AtomicLong();
    private final ConcurrentHashMap<String, AtomicLong> perKey = new ConcurrentHashMap<>();
    private final Emulation[] own;
    // The server's and the endpoint's own emulations in the order they run, or null if none.
    final Emulation[] emulations;

    EndpointState(Endpoint endpoint, MockClock clock, Emulation[] serverEmulations) {
      this.endpoint = endpoint;
      List<Step> list = endpoint.steps();
      this.steps = new CompiledStep[list.size()];
      for (int i = 0; i < steps.length; i++) {
        steps[i] = new CompiledStep(i, list.get(i));
      }
      this.own = endpoint.emulations().start();
      this.emulations = EmulationSettings.inOrder(serverEmulations, own);
      this.resource = endpoint.resource() == null ? null : new IdempotentResource(endpoint, clock);
      this.matchHead = endpoint.methods() != null && endpoint.methods().contains("GET");
    }

    boolean matches(String method, String path) {
      if (resource != null) {
        return resource.matches(path);
      }
      if (endpoint.methods() != null
          && !endpoint.methods().contains(method)
          && !(matchHead && method.equals("HEAD"))) {
        return false;
      }
      return endpoint.path().matches(path);
    }

    CompiledStep nextStep(ServerExchange ex) {
      AtomicLong c =
          endpoint.sequencePer() == null
              ? counter
              : perKey.computeIfAbsent(endpoint.sequencePer().callerOf(ex), k -> new AtomicLong());
      long n = c.getAndIncrement();
      int i = endpoint.cycle() ? (int) (n % steps.length) : (int) Math.min(n, steps.length - 1);
      return steps[i];
    }

    void reset() {
      counter.set(0);
      perKey.clear();
      requests.reset();
      outcomes.clear();
      EmulationSettings.reset(own);
      if (resource != null) {
        resource.reset();
      }
    }
  }
}
