package dev.relent.spring;

import dev.relent.Backoff;
import dev.relent.RetryPolicyConfig;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.guard.ScopeGuards;
import dev.relent.http.Redactor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the health contributor and the {@code relent} endpoint show of one client: its settings, the
 * state of each guard and its paused scopes, as maps of strings and numbers that any JSON writer
 * renders. Never a secret: the base URL is redacted as log lines are, a key scope is named by a
 * hash of the key, and a pause's cause is the redacted request and answer.
 *
 * <p>Also what the health status is made of: an open breaker is {@link Level#DOWN}, a paused scope
 * or pacer (a 429, a quota answer) {@link Level#OUT_OF_SERVICE}. Stateless.
 */
final class ClientState {
  private static final Redactor REDACTOR = Redactor.ofDefaults();

  /** How bad a client's state is, worst last. */
  enum Level {
    UP,
    OUT_OF_SERVICE,
    DOWN
  }

  private ClientState() {}

  /** The guards' state, for health details. */
  static Map<String, Object> guards(RelentClient client) {
    Map<String, Object> out = new LinkedHashMap<>();
    client.circuitBreaker().ifPresent(b -> out.put("circuitBreaker", breaker(b)));
    client.retryBudget().ifPresent(b -> out.put("retryBudget", budget(b)));
    client.pacer().ifPresent(p -> out.put("pacer", pacer(p)));
    client.concurrencyLimit().ifPresent(l -> out.put("concurrencyLimit", limit(l)));
    client.registry().ifPresent(r -> out.put("pausedScopes", paused(r)));
    return out;
  }

  /** Settings and guards, for the endpoint. */
  static Map<String, Object> describe(RelentClient client) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", level(client).name());
    client.baseUrl().ifPresent(u -> out.put("baseUrl", REDACTOR.uri(u)));
    RetryPolicyConfig c = client.policy().config();
    Map<String, Object> policy = new LinkedHashMap<>();
    policy.put("maxRetries", c.maxRetries());
    policy.put("deadline", c.deadline().toString());
    policy.put("attemptTimeout", c.attemptTimeout().toString());
    policy.put("maxServerWait", c.maxServerWait().orElse(c.deadline()).toString());
    policy.put("backoff", backoff(c.backoff()));
    out.put("policy", policy);
    out.put("idempotencyKeys", client.idempotencyKeys());
    out.putAll(guards(client));
    client.registry().ifPresent(r -> out.put("scopes", r.size()));
    return out;
  }

  /** The worst of the client's guards. */
  static Level level(RelentClient client) {
    if (client.circuitBreaker().map(b -> b.state() == CircuitBreaker.State.OPEN).orElse(false)) {
      return Level.DOWN;
    }
    boolean paused =
        client.pacer().map(p -> p.pausedUntil().isPresent()).orElse(false)
            || client.registry().map(r -> !r.paused().isEmpty()).orElse(false);
    return paused ? Level.OUT_OF_SERVICE : Level.UP;
  }

  private static Object backoff(Backoff e) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("base", e.base().toString());
    out.put("cap", e.cap().toString());
    out.put("jitter", e.jitter().name().toLowerCase(Locale.ROOT));
    return out;
  }

  private static Map<String, Object> breaker(CircuitBreaker breaker) {
    CircuitBreaker.Metrics m = breaker.metrics();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("state", slug(m.state().name()));
    out.put("calls", m.calls());
    out.put("failures", m.failures());
    out.put("failureRate", m.failureRate());
    breaker.openUntil().ifPresent(t -> out.put("openUntil", t.toString()));
    breaker.nextProbeIn().ifPresent(d -> out.put("nextProbeIn", d.toString()));
    return out;
  }

  private static Map<String, Object> budget(RetryBudget budget) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("available", budget.available());
    out.put("limit", budget.limit());
    return out;
  }

  /**
   * A pacer's state: {@code adaptive}; {@code interval}, the spacing kept between starts, except
   * while an adaptive pacer does not pace, when it reports 1 ns, which is no spacing at all: then
   * {@code learning} is true instead.
   */
  private static Map<String, Object> pacer(Pacer pacer) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("adaptive", pacer.isAdaptive());
    Duration interval = pacer.interval();
    if (pacer.isAdaptive() && interval.toNanos() <= 1) {
      out.put("learning", true);
    } else {
      out.put("interval", interval.toString());
    }
    out.put("burst", pacer.burst());
    pacer.pausedUntil().ifPresent(t -> out.put("pausedUntil", t.toString()));
    return out;
  }

  private static Map<String, Object> limit(ConcurrencyLimit limit) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("maxConcurrent", limit.maxConcurrent());
    out.put("available", limit.available());
    out.put("waiting", limit.waiting());
    return out;
  }

  private static List<Map<String, Object>> paused(GuardRegistry registry) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ScopeGuards guards : registry.paused()) {
      Map<String, Object> scope = new LinkedHashMap<>();
      scope.put("scope", guards.scope().toString());
      guards.pausedUntil().ifPresent(t -> scope.put("pausedUntil", t.toString()));
      guards.pauseCause().ifPresent(c -> scope.put("cause", c));
      out.add(scope);
    }
    return out;
  }

  private static String slug(String name) {
    return name.toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
