package dev.relent.spring;

import dev.relent.Backoff;
import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.CircuitBreaker;
import dev.relent.guard.ConcurrencyLimit;
import dev.relent.guard.GuardRegistry;
import dev.relent.guard.Pacer;
import dev.relent.guard.RetryBudget;
import dev.relent.http.HttpScopes;
import dev.relent.http.adapter.HttpAdapterBuilder;
import dev.relent.time.TimeSource;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One named client of {@code relent.clients.<name>}: its retry policy and the guards every adapter
 * of that name shares (one breaker, one budget, one pacer, one concurrency limit, one scope
 * registry, whether the calls go through a RestClient, a RestTemplate or a WebClient). Built from
 * the properties at start-up, which is where a bad value fails, naming its property ({@link
 * RelentPropertyException}).
 *
 * <p>Immutable and thread-safe; the guards it holds are thread-safe.
 */
public final class RelentClient {
  private final String name;
  private final String prefix;
  private final URI baseUrl;
  private final RetryPolicy policy;
  private final boolean idempotencyKeys;
  private final CircuitBreaker breaker;
  private final RetryBudget budget;
  private final Pacer pacer;
  private final ConcurrencyLimit concurrencyLimit;
  private final HttpScopes scopes;
  private final GuardRegistry registry;
  private final TimeSource time;
  private final List<RelentClientCustomizer> customizers;
  private final RelentExecutor<Object> guards;

  private RelentClient(
      String name,
      String prefix,
      RelentProperties.Client p,
      TimeSource time,
      List<RelentClientCustomizer> customizers) {
    this.name = name;
    this.prefix = prefix;
    this.time = time;
    this.customizers = List.copyOf(customizers);
    this.baseUrl = p.getBaseUrl() == null ? null : baseUrl(p.getBaseUrl());
    this.policy = policy(p);
    this.idempotencyKeys = p.isIdempotencyKeys();
    this.breaker = p.getBreaker().isEnabled() ? breaker(p.getBreaker()) : null;
    this.budget = p.getBudget().isEnabled() ? budget(p.getBudget()) : null;
    this.pacer = pacer(p.getPacer());
    this.concurrencyLimit =
        p.getMaxConcurrent() == null
            ? null
            : check(
                "max-concurrent",
                p.getMaxConcurrent(),
                () -> ConcurrencyLimit.of(p.getMaxConcurrent()));
    RelentProperties.Scopes s = p.getScopes();
    if (s.isEnabled() || !s.getRoutes().isEmpty() || s.getKeyHeader() != null) {
      HttpScopes.Builder b = HttpScopes.builder();
      check(
          "scopes.routes", s.getRoutes(), () -> b.withRoutes(s.getRoutes().toArray(new String[0])));
      if (s.getKeyHeader() != null) {
        check("scopes.key-header", s.getKeyHeader(), () -> b.withKeyHeader(s.getKeyHeader()));
      }
      this.scopes = b.build();
      this.registry = GuardRegistry.builder().withTime(time).build();
    } else {
      this.scopes = null;
      this.registry = null;
    }
    RelentExecutor.Builder<Object> x = RelentExecutor.builder(policy).withTime(time);
    guardsOn(x);
    if (registry != null) {
      x.withScopes(registry);
    }
    this.guards = x.build();
  }

  /**
   * Builds a client from its properties.
   *
   * @param name the key under {@code relent.clients}
   * @param properties the client's properties
   * @param time the time source of its guards and adapters ({@link TimeSource#system()} unless the
   *     application declares a {@code TimeSource} bean, as tests do)
   * @param customizers what every adapter of the client gets after the properties
   * @return the client
   * @throws RelentPropertyException if a property is refused, naming it
   * @throws NullPointerException if an argument is null
   */
  public static RelentClient of(
      String name,
      RelentProperties.Client properties,
      TimeSource time,
      List<RelentClientCustomizer> customizers) {
    Objects.requireNonNull(name, "name cannot be null");
    Objects.requireNonNull(properties, "properties cannot be null");
    Objects.requireNonNull(time, "time cannot be null");
    Objects.requireNonNull(customizers, "customizers cannot be null");
    if (name.isBlank()) {
      throw new RelentPropertyException(
          "relent.clients", "\"" + name + "\"", "a client's name cannot be blank", null);
    }
    return new RelentClient(name, "relent.clients." + name + ".", properties, time, customizers);
  }

  /**
   * Checks the settings every client starts from, naming {@code relent.defaults.*} in a refusal.
   */
  static void checkDefaults(RelentProperties.Client defaults, TimeSource time) {
    new RelentClient("defaults", "relent.defaults.", defaults, time, List.of());
  }

  private URI baseUrl(String value) {
    String property = prefix + "base-url";
    URI uri;
    try {
      uri = new URI(value.trim());
    } catch (java.net.URISyntaxException e) {
      throw new RelentPropertyException(property, value, "not a URL: " + e.getReason(), e);
    }
    String scheme = uri.getScheme();
    if (!uri.isAbsolute()
        || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
        || uri.getHost() == null) {
      throw new RelentPropertyException(
          property,
          value,
          "an absolute http or https URL is needed, e.g. https://api.example.com",
          null);
    }
    if (uri.getRawUserInfo() != null) {
      // A password in the URL would reach the endpoint's JSON and the logs.
      throw new RelentPropertyException(
          property,
          uri.getScheme() + "://***@" + uri.getHost(),
          "credentials do not belong in the base URL: send them as a header",
          null);
    }
    return uri;
  }

  private RetryPolicy policy(RelentProperties.Client p) {
    RelentProperties.Backoff bp = p.getBackoff();
    Backoff.Builder bb = Backoff.builder();
    check("backoff.base", bp.getBase(), () -> bb.withBase(bp.getBase()));
    check("backoff.cap", bp.getCap(), () -> bb.withCap(bp.getCap()));
    check("backoff.jitter", bp.getJitter(), () -> bb.withJitter(bp.getJitter()));
    Backoff backoff = check("backoff.cap", bp.getCap(), bb::build);
    RetryPolicy.Builder b = RetryPolicy.builder().withBackoff(backoff);
    check("max-retries", p.getMaxRetries(), () -> b.withMaxRetries(p.getMaxRetries()));
    check("deadline", p.getDeadline(), () -> b.withDeadline(p.getDeadline()));
    check(
        "attempt-timeout",
        p.getAttemptTimeout(),
        () -> b.withAttemptTimeout(p.getAttemptTimeout()));
    if (p.getMaxServerWait() != null) {
      check(
          "max-server-wait", p.getMaxServerWait(), () -> b.withMaxServerWait(p.getMaxServerWait()));
    }
    return check(
        p.getMaxServerWait() != null ? "max-server-wait" : "deadline", p.getDeadline(), b::build);
  }

  private CircuitBreaker breaker(RelentProperties.Breaker p) {
    CircuitBreaker.Builder b = CircuitBreaker.builder().withTime(time);
    check(
        "breaker.failure-rate-threshold",
        p.getFailureRateThreshold(),
        () -> b.withFailureRateThreshold(p.getFailureRateThreshold()));
    check("breaker.count-window", p.getCountWindow(), () -> b.withCountWindow(p.getCountWindow()));
    check(
        "breaker.minimum-calls",
        p.getMinimumCalls(),
        () -> b.withMinimumCalls(p.getMinimumCalls()));
    check(
        "breaker.open-duration",
        p.getOpenDuration(),
        () -> b.withOpenDuration(p.getOpenDuration()));
    check(
        "breaker.half-open-probes",
        p.getHalfOpenProbes(),
        () -> b.withHalfOpenProbes(p.getHalfOpenProbes()));
    return check("breaker.minimum-calls", p.getMinimumCalls(), b::build);
  }

  private RetryBudget budget(RelentProperties.Budget p) {
    RetryBudget.Builder b = RetryBudget.builder().withTime(time);
    check("budget.ratio", p.getRatio(), () -> b.withRatio(p.getRatio()));
    check("budget.window", p.getWindow(), () -> b.withWindow(p.getWindow()));
    check(
        "budget.min-retries-per-second",
        p.getMinRetriesPerSecond(),
        () -> b.withMinRetriesPerSecond(p.getMinRetriesPerSecond()));
    return check("budget.window", p.getWindow(), b::build);
  }

  private Pacer pacer(RelentProperties.Pacer p) {
    if (p.getPermits() == null && !p.isAdaptive()) {
      return null;
    }
    Pacer.Builder b = Pacer.builder().withTime(time);
    if (p.getPermits() != null) {
      check("pacer.permits", p.getPermits(), () -> b.withRate(p.getPermits(), p.getPer()));
    }
    if (p.isAdaptive()) {
      b.adaptive(Pacer.Congestion.BRACKET);
    }
    return check("pacer.per", p.getPer(), b::build);
  }

  /** Runs one builder call, turning what it refuses into an error naming the property. */
  private <T> T check(String property, Object value, Supplier<T> call) {
    try {
      return call.get();
    } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
      throw new RelentPropertyException(
          prefix + property, value, String.valueOf(e.getMessage()), e);
    }
  }

  private <R> void guardsOn(RelentExecutor.Builder<R> x) {
    if (breaker != null) {
      x.withCircuitBreaker(breaker);
    }
    if (budget != null) {
      x.withRetryBudget(budget);
    }
    if (pacer != null) {
      x.withPacer(pacer);
    }
    if (concurrencyLimit != null) {
      x.withConcurrencyLimit(concurrencyLimit);
    }
  }

  /**
   * Sets this client's policy, idempotency keys, time source, guards and scopes on an adapter's
   * builder, then runs the customizers: how every adapter of the starter is configured, and how an
   * application configures an adapter of its own (an OkHttp interceptor) to share the same guards.
   *
   * @param builder the adapter's builder
   * @param <R> the adapter's response type
   * @param <B> the builder's type
   * @return the same builder
   * @throws NullPointerException if {@code builder} is null
   */
  public <R, B extends HttpAdapterBuilder<R, B>> B configure(B builder) {
    Objects.requireNonNull(builder, "builder cannot be null");
    builder
        .withPolicy(policy)
        .withIdempotencyKeys(idempotencyKeys)
        .withTime(time)
        .withExecutor(this::guardsOn);
    if (scopes != null) {
      builder.withScopes(scopes, registry);
    }
    for (RelentClientCustomizer c : customizers) {
      c.customize(name, builder);
    }
    return builder;
  }

  /**
   * Returns the client's name.
   *
   * @return the key under {@code relent.clients}
   */
  public String name() {
    return name;
  }

  /**
   * Returns the base URL relative paths are resolved against.
   *
   * @return the URL, empty when {@code base-url} is unset
   */
  public Optional<URI> baseUrl() {
    return Optional.ofNullable(baseUrl);
  }

  /**
   * Returns the retry policy: retries, backoff, deadline, attempt timeout, longest server wait.
   *
   * @return the policy
   */
  public RetryPolicy policy() {
    return policy;
  }

  /**
   * Returns whether every POST and PATCH gets an {@code Idempotency-Key}.
   *
   * @return true if writes are keyed
   */
  public boolean idempotencyKeys() {
    return idempotencyKeys;
  }

  /**
   * Returns the circuit breaker.
   *
   * @return the breaker, empty unless {@code breaker.enabled}
   */
  public Optional<CircuitBreaker> circuitBreaker() {
    return Optional.ofNullable(breaker);
  }

  /**
   * Returns the retry budget.
   *
   * @return the budget, empty unless {@code budget.enabled}
   */
  public Optional<RetryBudget> retryBudget() {
    return Optional.ofNullable(budget);
  }

  /**
   * Returns the pacer.
   *
   * @return the pacer, empty unless {@code pacer.permits} or {@code pacer.adaptive} is set
   */
  public Optional<Pacer> pacer() {
    return Optional.ofNullable(pacer);
  }

  /**
   * Returns the concurrency limit.
   *
   * @return the limit, empty unless {@code max-concurrent} is set
   */
  public Optional<ConcurrencyLimit> concurrencyLimit() {
    return Optional.ofNullable(concurrencyLimit);
  }

  /**
   * Returns the registry of the client's scopes and their pauses.
   *
   * @return the registry, empty unless scopes are on
   */
  public Optional<GuardRegistry> registry() {
    return Optional.ofNullable(registry);
  }

  /**
   * Returns the time source the client's guards read.
   *
   * @return the time source
   */
  public TimeSource time() {
    return time;
  }

  /** An executor holding the client's guards, through which no call runs: what metrics gauge. */
  RelentExecutor<Object> guards() {
    return guards;
  }

  @Override
  public String toString() {
    return "RelentClient[" + name + "]";
  }
}
