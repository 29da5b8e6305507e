package dev.relent.micrometer;

import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Scope;
import dev.relent.guard.ScopeGuards;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The meters of a {@link GuardRegistry}'s scopes, kept in line with the scopes it holds.
 *
 * <p>A {@link #refresh()} compares the scopes metered with those the registry holds now: a scope
 * the registry no longer holds, or holds as a new object (evicted, then made again), loses its
 * meters; a scope held and not metered gets them while fewer than {@code maxScopes} are. So the
 * meters are bounded by both the registry's bound and this one, and never read an evicted scope's
 * guards. Refreshes run under {@link RelentMetrics}'s monitor, one at a time; {@link #changed()} is
 * read by any thread.
 */
final class ScopeMeters {
  static final String SCOPE = "scope";
  static final String SCOPE_KIND = "scope.kind";

  private final MeterRegistry registry;
  private final Tags tags;

  /** Weakly, so that these meters never keep a registry (and its scopes' guards) alive. */
  private final WeakReference<GuardRegistry> scopes;

  private final int maxScopes;

  /** The scopes metered, with the guards object their meters read. Under the monitor. */
  private final Map<Scope, Metered> metered = new LinkedHashMap<>();

  /** The registry's size at the last refresh, so that a call can tell that it changed. */
  private volatile int seenSize = -1;

  ScopeMeters(MeterRegistry registry, Tags tags, GuardRegistry scopes, int maxScopes) {
    this.registry = registry;
    this.tags = tags;
    this.scopes = new WeakReference<>(scopes);
    this.maxScopes = maxScopes;
    Gauge.builder("relent.scopes", scopes, GuardRegistry::size)
        .description("Scopes the guard registry holds")
        .tags(tags)
        .register(registry);
    Gauge.builder("relent.scopes.paused", scopes, r -> r.paused().size())
        .description("Scopes paused now")
        .tags(tags)
        .register(registry);
  }

  /** Whether the registry holds more or fewer scopes than at the last refresh. */
  boolean changed() {
    GuardRegistry r = scopes.get();
    return r != null && r.size() != seenSize;
  }

  void refresh() {
    GuardRegistry r = scopes.get();
    List<ScopeGuards> held = r == null ? List.of() : r.scopes();
    seenSize = held.size();
    Map<Scope, ScopeGuards> now = new HashMap<>();
    for (ScopeGuards g : held) {
      now.put(g.scope(), g);
    }
    for (Iterator<Map.Entry<Scope, Metered>> it = metered.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Scope, Metered> e = it.next();
      if (now.get(e.getKey()) != e.getValue().guards) {
        for (Meter m : e.getValue().meters) {
          registry.remove(m);
        }
        it.remove();
      }
    }
    for (ScopeGuards g : held) {
      if (metered.size() >= maxScopes) {
        break;
      }
      if (!metered.containsKey(g.scope())) {
        metered.put(g.scope(), new Metered(g, register(g)));
      }
    }
  }

  private List<Meter> register(ScopeGuards g) {
    Tags scoped = tags.and(SCOPE_KIND, g.scope().kind().slug(), SCOPE, g.scope().name());
    List<Meter> meters =
        GuardGauges.register(
            registry,
            scoped,
            g.circuitBreaker().orElse(null),
            g.retryBudget().orElse(null),
            g.concurrencyLimit().orElse(null),
            g.pacer().orElse(null));
    meters.add(
        TimeGauge.builder(
                "relent.scope.pause", g, TimeUnit.NANOSECONDS, s -> s.pauseRemaining().toNanos())
            .description("How long the scope's pause lasts from now; 0 if not paused")
            .tags(scoped)
            .register(registry));
    meters.add(
        FunctionCounter.builder("relent.scope.pauses", g, s -> s.pauseCount())
            .description("How often the scope was paused, or a pause made longer")
            .baseUnit("pauses")
            .tags(scoped)
            .register(registry));
    return meters;
  }

  /** A scope's meters and the guards object they read. */
  private static final class Metered {
    final ScopeGuards guards;
    final List<Meter> meters;

    Metered(ScopeGuards guards, List<Meter> meters) {
      this.guards = guards;
      this.meters = meters;
    }
  }
}
