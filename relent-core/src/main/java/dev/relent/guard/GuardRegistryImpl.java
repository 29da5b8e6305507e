package dev.relent.guard;

import dev.relent.time.Durations;
import dev.relent.time.TimeSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The {@link GuardRegistry}: a concurrent map from scope to {@link ScopeGuards}.
 *
 * <p>Concurrency: a lookup of a known scope is one map read and a volatile write of its last use.
 * Making a scope, evicting and sweeping hold this object's monitor, so that the size bound holds
 * (the map is only added to under it). A sweep of expired scopes runs on access at most once per
 * quarter of the idle expiry, under the same monitor, skipped if another thread is in it; it costs
 * one pass over at most {@code maxScopes} entries. No thread of its own.
 */
final class GuardRegistryImpl implements GuardRegistry {
  private final Map<Scope.Kind, Function<Scope, Pacer>> pacers;
  private final Map<Scope.Kind, Function<Scope, ConcurrencyLimit>> limits;
  private final Map<Scope.Kind, Function<Scope, RetryBudget>> budgets;
  private final Map<Scope.Kind, Function<Scope, CircuitBreaker>> breakers;
  private final int maxScopes;
  private final long idleNanos;
  private final int escalateAfter;
  private final long escalationWindowNanos;
  private final TimeSource time;

  private final ConcurrentHashMap<Scope, ScopeGuards> scopes = new ConcurrentHashMap<>();
  private volatile long nextSweep;

  GuardRegistryImpl(GuardRegistry.Builder b) {
    this.pacers = new EnumMap<>(b.pacers);
    this.limits = new EnumMap<>(b.limits);
    this.budgets = new EnumMap<>(b.budgets);
    this.breakers = new EnumMap<>(b.breakers);
    this.maxScopes = b.maxScopes;
    this.idleNanos = b.idleNanos;
    this.escalateAfter = b.escalateAfter;
    this.escalationWindowNanos = b.escalationWindowNanos;
    this.time = b.time;
    this.nextSweep = time.ticker().read() + idleNanos / 4;
  }

  @Override
  public ScopeGuards guards(Scope scope) {
    return guards(scope, time.ticker().read());
  }

  @Override
  public ScopeGuards guards(Scope scope, long nowNanos) {
    Objects.requireNonNull(scope, "scope cannot be null");
    if (nowNanos - nextSweep >= 0) {
      sweep(nowNanos);
    }
    ScopeGuards g = scopes.get(scope);
    if (g != null) {
      g.touch(nowNanos);
      return g;
    }
    return make(scope, nowNanos);
  }

  private synchronized ScopeGuards make(Scope scope, long nowNanos) {
    ScopeGuards g = scopes.get(scope);
    if (g != null) {
      g.touch(nowNanos);
      return g;
    }
    if (scopes.size() >= maxScopes) {
      expire(nowNanos);
    }
    if (scopes.size() >= maxScopes) {
      evictLeastRecentlyUsed(nowNanos);
    }
    g =
        new ScopeGuards(
            scope,
            make(pacers, scope),
            make(limits, scope),
            make(budgets, scope),
            make(breakers, scope),
            time,
            nowNanos);
    scopes.put(scope, g);
    return g;
  }

  private static <T> T make(Map<Scope.Kind, Function<Scope, T>> factories, Scope scope) {
    Function<Scope, T> factory = factories.get(scope.kind());
    return factory == null ? null : factory.apply(scope);
  }

  private void sweep(long nowNanos) {
    synchronized (this) {
      if (nowNanos - nextSweep < 0) {
        return;
      }
      nextSweep = nowNanos + Math.max(1L, idleNanos / 4);
      expire(nowNanos);
    }
  }

  /** Drops every scope unused for the idle expiry and not paused. Holds the monitor. */
  private void expire(long nowNanos) {
    scopes.values().removeIf(g -> nowNanos - g.lastUsed() >= idleNanos && !g.pausedAt(nowNanos));
  }

  /** Makes room for one: the least recently used scope not paused, else the least recently used. */
  private void evictLeastRecentlyUsed(long nowNanos) {
    ScopeGuards oldest = null;
    ScopeGuards oldestUnpaused = null;
    for (ScopeGuards g : scopes.values()) {
      if (oldest == null || g.lastUsed() - oldest.lastUsed() < 0) {
        oldest = g;
      }
      if (!g.pausedAt(nowNanos)
          && (oldestUnpaused == null || g.lastUsed() - oldestUnpaused.lastUsed() < 0)) {
        oldestUnpaused = g;
      }
    }
    ScopeGuards victim = oldestUnpaused != null ? oldestUnpaused : oldest;
    if (victim != null) {
      scopes.remove(victim.scope(), victim);
    }
  }

  @Override
  public Optional<ScopeGuards> find(Scope scope) {
    return Optional.ofNullable(scopes.get(Objects.requireNonNull(scope, "scope cannot be null")));
  }

  @Override
  public List<ScopeGuards> scopes() {
    return new ArrayList<>(scopes.values());
  }

  @Override
  public List<ScopeGuards> paused() {
    List<ScopeGuards> paused = new ArrayList<>();
    for (ScopeGuards g : scopes.values()) {
      if (g.isPaused()) {
        paused.add(g);
      }
    }
    return paused;
  }

  @Override
  public boolean resume(Scope scope) {
    ScopeGuards g = scopes.get(Objects.requireNonNull(scope, "scope cannot be null"));
    return g != null && g.resume();
  }

  @Override
  public List<Scope> pause(
      List<Scope> governing,
      Scope target,
      long untilNanos,
      long askedNanos,
      String cause,
      long nowNanos) {
    Objects.requireNonNull(governing, "governing cannot be null");
    Objects.requireNonNull(target, "target cannot be null");
    Objects.requireNonNull(cause, "cause cannot be null");
    int at = governing.indexOf(target);
    if (at < 0) {
      throw new IllegalArgumentException(
          "target " + target + " is not one of the request's scopes " + governing);
    }
    List<Scope> paused = new ArrayList<>(2);
    if (guards(target, nowNanos).pauseUntil(untilNanos, askedNanos, cause)) {
      paused.add(target);
    }
    if (escalateAfter == 0) {
      return paused;
    }
    for (int i = 0; i < at; i++) {
      Scope broader = governing.get(i);
      if (broader.kind() == target.kind()) {
        continue;
      }
      ScopeGuards g = guards(broader, nowNanos);
      List<Scope> recent = g.narrowerPaused(target, nowNanos, escalationWindowNanos);
      if (recent.size() >= escalateAfter
          && g.pauseUntil(
              untilNanos,
              askedNanos,
              recent.size()
                  + " narrower scopes paused within "
                  + Durations.format(escalationWindowNanos)
                  + " (the limit is evidently this scope's); the latest by "
                  + cause)) {
        paused.add(broader);
      }
    }
    return paused;
  }

  @Override
  public int size() {
    return scopes.size();
  }

  @Override
  public String toString() {
    return "GuardRegistry[scopes="
        + scopes.size()
        + "/"
        + maxScopes
        + ", idleExpiry="
        + Durations.format(idleNanos)
        + ", escalation="
        + (escalateAfter == 0
            ? "off"
            : escalateAfter + " within " + Durations.format(escalationWindowNanos))
        + "]";
  }
}
