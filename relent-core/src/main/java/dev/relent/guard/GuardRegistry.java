package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Hands out guards per {@link Scope}: one pacer, concurrency limit, retry budget and circuit
 * breaker per scope, each made by a factory for the scope's kind, and each scope's pause. An
 * executor built {@code withScopes(registry)} takes a start permit from the pacer of every scope a
 * request belongs to, waits out every scope's pause, and after a {@code 429} or quota answer pauses
 * the scope the answer belongs to, not everything.
 *
 * <p><b>Which scope pauses.</b> The executor names the target (by default the narrowest scope of
 * the request, usually its endpoint; the broadest of a kind when the server says the limit is that
 * kind's). When {@linkplain Builder#withEscalation several endpoints} governed by the same broader
 * scope (the account, a key) are paused within a window, the broader scope is paused too: the limit
 * is evidently the account's.
 *
 * <p><b>Bounded.</b> At most {@link Builder#withMaxScopes} scopes (default <b>1000</b>) are kept; a
 * scope unused for {@link Builder#withIdleExpiry} (default <b>10 min</b>) and not paused expires.
 * Expiry happens on access, with no thread of its own; when the registry is full a new scope evicts
 * the least recently used one that is not paused (the least recently used at all if every scope is
 * paused). A request still running keeps the guards it was given.
 *
 * <p>Defaults: no factories (a scope then has only its pause), escalation after <b>3</b> endpoints
 * within <b>60 s</b>, {@link TimeSource#system()}. Thread-safe.
 */
public interface GuardRegistry {

  /**
   * Returns a builder with every setting at its default.
   *
   * @return a new builder
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a registry with the defaults: pauses per scope, no guards of their own.
   *
   * @return a new registry
   */
  static GuardRegistry ofDefaults() {
    return builder().build();
  }

  /**
   * Returns the guards of a scope, made on first use; marks the scope used now (read with the
   * registry's time source).
   *
   * @param scope the scope
   * @return its guards
   * @throws NullPointerException if {@code scope} is null
   */
  ScopeGuards guards(Scope scope);

  /**
   * Returns the guards of a scope, made on first use, at the executor's ticker reading.
   *
   * @param scope the scope
   * @param nowNanos the executor's ticker reading
   * @return its guards
   * @throws NullPointerException if {@code scope} is null
   */
  ScopeGuards guards(Scope scope, long nowNanos);

  /**
   * Returns the guards of a scope if the registry holds it, without making or touching it.
   *
   * @param scope the scope
   * @return its guards, or empty
   * @throws NullPointerException if {@code scope} is null
   */
  Optional<ScopeGuards> find(Scope scope);

  /**
   * Returns every scope held now, in no particular order.
   *
   * @return a new list of their guards
   */
  List<ScopeGuards> scopes();

  /**
   * Returns every scope paused now.
   *
   * @return a new list of their guards
   */
  List<ScopeGuards> paused();

  /**
   * Ends a scope's pause now.
   *
   * @param scope the scope
   * @return whether it was paused
   * @throws NullPointerException if {@code scope} is null
   */
  boolean resume(Scope scope);

  /**
   * Pauses the scope an answer belongs to, and the broader scopes of the request when several of
   * their narrower scopes were paused within the escalation window. The executor's API.
   *
   * @param governing the request's scopes, broadest first
   * @param target the scope the answer belongs to, one of {@code governing}
   * @param untilNanos a reading of the executor's ticker
   * @param askedNanos how long the server asked for (the pause may be capped below it)
   * @param cause the request and the answer, never a secret
   * @param nowNanos the executor's ticker reading
   * @return the scopes paused by this call (the target first), empty if their pauses already lasted
   *     longer
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code target} is not one of {@code governing}
   */
  List<Scope> pause(
      List<Scope> governing,
      Scope target,
      long untilNanos,
      long askedNanos,
      String cause,
      long nowNanos);

  /**
   * Returns how many scopes the registry holds now.
   *
   * @return the count, at most {@link Builder#withMaxScopes}
   */
  int size();

  /** Builds a {@link GuardRegistry}. Mutable and not thread-safe. */
  final class Builder {
    final Map<Scope.Kind, Function<Scope, Pacer>> pacers = new EnumMap<>(Scope.Kind.class);
    final Map<Scope.Kind, Function<Scope, ConcurrencyLimit>> limits =
        new EnumMap<>(Scope.Kind.class);
    final Map<Scope.Kind, Function<Scope, RetryBudget>> budgets = new EnumMap<>(Scope.Kind.class);
    final Map<Scope.Kind, Function<Scope, CircuitBreaker>> breakers =
        new EnumMap<>(Scope.Kind.class);
    int maxScopes = 1000;
    long idleNanos = Duration.ofMinutes(10).toNanos();
    int escalateAfter = 3;
    long escalationWindowNanos = Duration.ofSeconds(60).toNanos();
    TimeSource time = TimeSource.system();

    Builder() {}

    /**
     * Gives every scope of a kind a pacer of its own, made by {@code factory} on the scope's first
     * use; a factory returning null gives that scope none. Give each pacer the executor's time
     * source. Default: none.
     *
     * @param kind the kind
     * @param factory makes a scope's pacer
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder withPacer(Scope.Kind kind, Function<Scope, Pacer> factory) {
      pacers.put(requireKind(kind), Objects.requireNonNull(factory, "factory cannot be null"));
      return this;
    }

    /**
     * Gives every scope of a kind a concurrency limit of its own; see {@link #withPacer}.
     *
     * @param kind the kind
     * @param factory makes a scope's limit
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder withConcurrencyLimit(
        Scope.Kind kind, Function<Scope, ConcurrencyLimit> factory) {
      limits.put(requireKind(kind), Objects.requireNonNull(factory, "factory cannot be null"));
      return this;
    }

    /**
     * Gives every scope of a kind a retry budget of its own; see {@link #withPacer}.
     *
     * @param kind the kind
     * @param factory makes a scope's budget
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder withRetryBudget(Scope.Kind kind, Function<Scope, RetryBudget> factory) {
      budgets.put(requireKind(kind), Objects.requireNonNull(factory, "factory cannot be null"));
      return this;
    }

    /**
     * Gives every scope of a kind a circuit breaker of its own; see {@link #withPacer}.
     *
     * @param kind the kind
     * @param factory makes a scope's breaker
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder withCircuitBreaker(Scope.Kind kind, Function<Scope, CircuitBreaker> factory) {
      breakers.put(requireKind(kind), Objects.requireNonNull(factory, "factory cannot be null"));
      return this;
    }

    private static Scope.Kind requireKind(Scope.Kind kind) {
      return Objects.requireNonNull(kind, "kind cannot be null");
    }

    /**
     * Sets how many scopes are kept at most. Default 1000.
     *
     * @param maxScopes 1 or more
     * @return this builder
     * @throws IllegalArgumentException if {@code maxScopes} &lt; 1
     */
    public Builder withMaxScopes(int maxScopes) {
      if (maxScopes < 1) {
        throw new IllegalArgumentException("maxScopes must be >= 1: " + maxScopes);
      }
      this.maxScopes = maxScopes;
      return this;
    }

    /**
     * Sets how long a scope that is neither used nor paused is kept. Default 10 min.
     *
     * @param idle more than zero
     * @return this builder
     * @throws NullPointerException if {@code idle} is null
     * @throws IllegalArgumentException if {@code idle} is not positive
     */
    public Builder withIdleExpiry(Duration idle) {
      this.idleNanos = Nanos.positiveNanos("idleExpiry", idle);
      return this;
    }

    /**
     * Pauses a broader scope (the account, a key) once {@code scopes} distinct narrower scopes it
     * governs were paused within {@code window}. Default 3 within 60 s.
     *
     * @param scopes 2 or more
     * @param window more than zero
     * @return this builder
     * @throws NullPointerException if {@code window} is null
     * @throws IllegalArgumentException if {@code scopes} &lt; 2 or {@code window} is not positive
     */
    public Builder withEscalation(int scopes, Duration window) {
      if (scopes < 2) {
        throw new IllegalArgumentException(
            "escalation needs at least 2 scopes: "
                + scopes
                + " (use withoutEscalation() to turn it off)");
      }
      this.escalationWindowNanos = Nanos.positiveNanos("window", window);
      this.escalateAfter = scopes;
      return this;
    }

    /**
     * Never pauses a broader scope because narrower ones were paused; only the scope an answer
     * belongs to pauses.
     *
     * @return this builder
     */
    public Builder withoutEscalation() {
      this.escalateAfter = 0;
      return this;
    }

    /**
     * Sets the time source of expiry and of the inspection methods; give it the executor's. Default
     * {@link TimeSource#system()}.
     *
     * @param time the time source
     * @return this builder
     * @throws NullPointerException if {@code time} is null
     */
    public Builder withTime(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time cannot be null");
      return this;
    }

    /**
     * Builds the registry.
     *
     * @return a new, empty registry
     */
    public GuardRegistry build() {
      return new GuardRegistryImpl(this);
    }
  }
}
