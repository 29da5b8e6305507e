package dev.relent.micrometer;

import dev.relent.RelentEvent;
import dev.relent.RelentExecutor;
import dev.relent.RelentListener;
import dev.relent.guard.GuardRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Meters for one Relent executor, its guards and the guards of every scope its calls name, in a
 * Micrometer {@link MeterRegistry}. Three steps: give the executor the {@linkplain #listener()
 * listener}, say whose guards to read ({@link #withGuardsOf}), and bind to a registry ({@link
 * #bindTo}, which also makes this a {@link MeterBinder} that Spring Boot binds by itself):
 *
 * <pre>{@code
 * RelentMetrics metrics = RelentMetrics.of("payments");
 * RelentExecutor<Receipt> executor =
 *     RelentExecutor.<Receipt>builder(policy).withCircuitBreaker(breaker).onEvent(metrics.listener()).build();
 * metrics.withGuardsOf(executor).bindTo(registry);
 * }</pre>
 *
 * <p><b>Meters.</b> From events, tagged {@code name} and the {@linkplain Builder#withTag common
 * tags}: the counters {@code relent.calls} ({@code outcome}, {@code reason} the give-up reason's
 * {@linkplain dev.relent.RelentException.Reason#slug() slug}, {@code retried}) and {@code
 * relent.attempts} ({@code kind}), which read as the executor's {@link RelentExecutor#counters()
 * counters} do; the timers {@code relent.call.duration}, {@code relent.attempt.duration} ({@code
 * kind}, {@code verdict}, {@code status}), {@code relent.retry.wait} ({@code source}) and {@code
 * relent.pacer.wait}. From the guards, tagged {@code name}, {@code scope.kind} and {@code scope}
 * ({@code none} for the executor's own): the breaker's state and failure rate, the retry budget,
 * the concurrency limit, the pacer's interval, rate and pause, each scope's pause, and the scopes
 * held. docs/micrometer.md lists every meter, tag and value.
 *
 * <p><b>Bounded.</b> Every tag has a fixed set of values but {@code name} and {@code scope}; the
 * scopes metered are at most {@link Builder#withMaxScopes} (default <b>100</b>), checked every
 * {@link Builder#withScopeRefresh} (default <b>10 s</b>) when a call ends, or now by {@link
 * #refreshScopes()}. No gauge of a live guard reads NaN.
 *
 * <p><b>References and cost.</b> Gauges hold their guard weakly: they never keep an executor alive,
 * and read NaN once the guard is collected. The listener allocates nothing per event; events before
 * {@link #bindTo} are not counted. Thread-safe.
 */
public final class RelentMetrics implements MeterBinder {
  /** The value of the {@code reason}, {@code scope} and {@code scope.kind} tags that have none. */
  public static final String NONE = "none";

  /** The tag keys this binder sets itself, which a common tag may not use. */
  static final Set<String> OWN_TAGS =
      Set.of(
          "name",
          "outcome",
          "reason",
          "retried",
          "kind",
          "verdict",
          "status",
          "source",
          "state",
          "scope",
          "scope.kind");

  private final String name;
  private final Tags tags;
  private final int maxScopes;
  private final long scopeRefreshNanos;
  private final Listener listener = new Listener();
  private final AtomicLong lastScopeRefresh = new AtomicLong();

  // Changed under this object's monitor; read by the listener through the volatile fields.
  private volatile EventMeters meters;
  private volatile ScopeMeters scopeMeters;
  private MeterRegistry registry;

  /** Whose guards to gauge, held only until bound, so that these metrics never keep it alive. */
  private RelentExecutor<?> pending;

  private boolean guardsGiven;

  private RelentMetrics(Builder b) {
    this.name = b.name;
    this.tags = Tags.of(b.tags).and("name", b.name);
    this.maxScopes = b.maxScopes;
    this.scopeRefreshNanos = b.scopeRefreshNanos;
  }

  /**
   * Returns meters named {@code name}, with the defaults: no common tag, at most 100 scopes
   * metered, checked every 10 s.
   *
   * @param name the {@code name} tag: the executor's name, such as the downstream it calls
   * @return new, unbound metrics
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is blank or longer than 100 characters
   */
  public static RelentMetrics of(String name) {
    return builder(name).build();
  }

  /**
   * Returns a builder for meters named {@code name}.
   *
   * @param name the {@code name} tag: the executor's name, such as the downstream it calls
   * @return a new builder
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is blank or longer than 100 characters
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /**
   * Returns the name, the value of every meter's {@code name} tag.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Returns the listener to give the executor ({@link RelentExecutor.Builder#onEvent}), whatever
   * its result type: it reads no result. The same object every time.
   *
   * @param <R> the executor's result type
   * @return the listener
   */
  @SuppressWarnings("unchecked")
  public <R> RelentListener<R> listener() {
    return (RelentListener<R>) (RelentListener<?>) listener;
  }

  /**
   * Gauges the guards of {@code executor}: its own breaker, budget, concurrency limit and pacer,
   * and, if it was built {@code withScopes(registry)}, the registry's scopes and their guards. Call
   * it once, before or after {@link #bindTo}.
   *
   * @param executor the executor given this object's {@link #listener()}
   * @return this
   * @throws NullPointerException if {@code executor} is null
   * @throws IllegalStateException if the guards of an executor are gauged already
   */
  public RelentMetrics withGuardsOf(RelentExecutor<?> executor) {
    Objects.requireNonNull(executor, "executor cannot be null");
    synchronized (this) {
      if (guardsGiven) {
        throw new IllegalStateException(
            "the metrics \""
                + name
                + "\" already gauge the guards of an executor: make one RelentMetrics per executor,"
                + " each with its own name");
      }
      guardsGiven = true;
      pending = executor;
      if (registry != null) {
        gaugeGuards();
      }
    }
    return this;
  }

  /**
   * Registers the meters in {@code registry}: the gauges at once, the event meters with their first
   * event. A second call with the same registry does nothing.
   *
   * @param registry the registry; for several, a {@code CompositeMeterRegistry}
   * @throws NullPointerException if {@code registry} is null
   * @throws IllegalStateException if bound to another registry already
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry cannot be null");
    synchronized (this) {
      if (this.registry == registry) {
        return;
      }
      if (this.registry != null) {
        throw new IllegalStateException(
            "the metrics \""
                + name
                + "\" are bound to a registry already: bind to one registry (a"
                + " CompositeMeterRegistry for several)");
      }
      this.registry = registry;
      this.meters = new EventMeters(registry, tags);
      if (pending != null) {
        gaugeGuards();
      }
    }
  }

  /**
   * Brings the scope meters in line with the scopes the executor's registry holds now: meters for a
   * new scope (up to {@link Builder#withMaxScopes}), none for one it no longer holds. Happens by
   * itself every {@link Builder#withScopeRefresh} as calls end; does nothing before {@link #bindTo}
   * and {@link #withGuardsOf}, or for an executor without scopes.
   */
  public void refreshScopes() {
    synchronized (this) {
      if (scopeMeters != null) {
        lastScopeRefresh.set(registry.config().clock().monotonicTime());
        scopeMeters.refresh();
      }
    }
  }

  /** Under the monitor, with both the registry and the executor known. */
  private void gaugeGuards() {
    RelentExecutor<?> executor = pending;
    pending = null;
    GuardGauges.register(
        registry,
        tags.and(ScopeMeters.SCOPE_KIND, NONE, ScopeMeters.SCOPE, NONE),
        executor.circuitBreaker().orElse(null),
        executor.retryBudget().orElse(null),
        executor.concurrencyLimit().orElse(null),
        executor.pacer().orElse(null));
    GuardRegistry scopes = executor.registry().orElse(null);
    if (scopes != null) {
      scopeMeters = new ScopeMeters(registry, tags, scopes, maxScopes);
      refreshScopes();
    }
  }

  /**
   * Called as a call ends: refreshes the scope meters when the registry holds more or fewer scopes
   * than at the last refresh (a new scope is metered with the call that made it), or when the
   * interval is up (a scope evicted for another leaves the count as it was).
   */
  private void maybeRefreshScopes(MeterRegistry registry, ScopeMeters scopes) {
    long now = registry.config().clock().monotonicTime();
    long last = lastScopeRefresh.get();
    boolean due = now - last >= scopeRefreshNanos;
    if ((due || scopes.changed()) && lastScopeRefresh.compareAndSet(last, now)) {
      refreshScopes();
    }
  }

  @Override
  public String toString() {
    return "RelentMetrics[name=" + name + ", tags=" + tags + "]";
  }

  /** Turns events into counter increments and timer records; ignores them until bound. */
  private final class Listener implements RelentListener<Object> {
    @Override
    public void onEvent(RelentEvent<Object> event) {
      EventMeters m = meters;
      if (m == null) {
        return;
      }
      ScopeMeters scopes = scopeMeters;
      if (m.record(event) && scopes != null) {
        maybeRefreshScopes(m.registry(), scopes);
      }
    }

    @Override
    public String toString() {
      return "RelentMetrics.listener[" + name + "]";
    }
  }

  /** Builds {@link RelentMetrics}. Mutable and not thread-safe. */
  public static final class Builder {
    /** The longest name accepted. */
    static final int MAX_NAME_LENGTH = 100;

    private final String name;
    private final List<Tag> tags = new ArrayList<>();
    private int maxScopes = 100;
    private long scopeRefreshNanos = Duration.ofSeconds(10).toNanos();

    Builder(String name) {
      Objects.requireNonNull(name, "name cannot be null");
      if (name.isBlank()) {
        throw new IllegalArgumentException(
            "name cannot be blank: name the executor, for example after the downstream it calls"
                + " (\"payments\")");
      }
      if (name.length() > MAX_NAME_LENGTH) {
        throw new IllegalArgumentException(
            "name must be at most "
                + MAX_NAME_LENGTH
                + " characters: "
                + name.length()
                + " (it is a tag value: name the executor, not a request)");
      }
      this.name = name;
    }

    /**
     * Adds a tag to every meter, such as the region or the tenant tier. Its values must be few:
     * never a URL, an id or a secret.
     *
     * @param key the tag key
     * @param value the tag value
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the key or value is blank, or the key is one this binder
     *     sets itself ({@code name}, {@code outcome}, {@code reason}, {@code retried}, {@code
     *     kind}, {@code verdict}, {@code state}, {@code scope}, {@code scope.kind})
     */
    public Builder withTag(String key, String value) {
      Objects.requireNonNull(key, "tag key cannot be null");
      Objects.requireNonNull(value, "tag value cannot be null");
      if (key.isBlank() || value.isBlank()) {
        throw new IllegalArgumentException(
            "tag key and value cannot be blank: \"" + key + "\"=\"" + value + "\"");
      }
      if (OWN_TAGS.contains(key)) {
        throw new IllegalArgumentException(
            "tag key \"" + key + "\" is set by RelentMetrics itself: choose another key");
      }
      tags.add(Tag.of(key, value));
      return this;
    }

    /**
     * Sets how many scopes get meters of their own at most. Default 100.
     *
     * @param maxScopes 0 (no scope meters, {@code relent.scopes} still counts them) or more
     * @return this builder
     * @throws IllegalArgumentException if {@code maxScopes} is negative
     */
    public Builder withMaxScopes(int maxScopes) {
      if (maxScopes < 0) {
        throw new IllegalArgumentException("maxScopes must be >= 0: " + maxScopes);
      }
      this.maxScopes = maxScopes;
      return this;
    }

    /**
     * Sets how often, at most, the scope meters are brought in line with the registry's scopes as
     * calls end, on the meter registry's clock. Default 10 s.
     *
     * @param interval more than zero
     * @return this builder
     * @throws NullPointerException if {@code interval} is null
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public Builder withScopeRefresh(Duration interval) {
      Objects.requireNonNull(interval, "interval cannot be null");
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("scopeRefresh must be > 0: " + interval);
      }
      this.scopeRefreshNanos = saturatedNanos(interval);
      return this;
    }

    private static long saturatedNanos(Duration d) {
      try {
        return d.toNanos();
      } catch (ArithmeticException e) {
        return Long.MAX_VALUE;
      }
    }

    /**
     * Builds the metrics, not yet bound to a registry.
     *
     * @return new metrics
     */
    public RelentMetrics build() {
      return new RelentMetrics(this);
    }
  }
}
