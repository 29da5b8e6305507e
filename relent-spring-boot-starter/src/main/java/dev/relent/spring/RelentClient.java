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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
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
  /** Relent's own defaults, what a setting no property gave keeps. */
  private static final RelentProperties.Client BUILT_IN = new RelentProperties.Client();

  /** The settings whose values a refusal of two together reads, by key. */
  private static final Map<String, Function<RelentProperties.Client, Object>> PAIRED =
      Map.of(
          "deadline", RelentProperties.Client::getDeadline,
          "max-server-wait", RelentProperties.Client::getMaxServerWait,
          "backoff.base", c -> c.getBackoff().getBase(),
          "backoff.cap", c -> c.getBackoff().getCap(),
          "breaker.count-window", c -> c.getBreaker().getCountWindow(),
          "breaker.minimum-calls", c -> c.getBreaker().getMinimumCalls());

  private final String name;
  private final String prefix;
  private final URI baseUrl;
  private final RetryPolicy policy;
  private final boolean idempotencyKeys;
  private final int attemptBodyLimit;
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
      RelentProperties.Client start,
      TimeSource time,
      List<RelentClientCustomizer> customizers) {
    this.name = name;
    this.prefix = prefix;
    this.time = time;
    this.customizers = List.copyOf(customizers);
    if (p.getBaseUrl() == null && start != null) {
      throw new RelentPropertyException(
          prefix + "base-url",
          null,
          "every client needs the absolute http or https URL its relative paths resolve against,"
              + " e.g. "
              + prefix
              + "base-url=https://api.example.com (or relent.defaults.base-url for every client)",
          null);
    }
    this.baseUrl = p.getBaseUrl() == null ? null : baseUrl(p.getBaseUrl());
    Sources sources = new Sources(p, start);
    this.policy = policy(p, sources);
    this.idempotencyKeys = p.isIdempotencyKeys();
    this.attemptBodyLimit = attemptBodyLimit(p.getAttemptBodyLimit());
    this.breaker = p.getBreaker().isEnabled() ? breaker(p.getBreaker(), sources) : null;
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
    return of(name, properties, BUILT_IN, time, customizers);
  }

  /**
   * The same for a client whose properties were bound over {@code start} ({@code relent.defaults}),
   * so that a refusal of two settings together can tell which property gave each.
   */
  static RelentClient of(
      String name,
      RelentProperties.Client properties,
      RelentProperties.Client start,
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
    Objects.requireNonNull(start, "start cannot be null");
    return new RelentClient(
        name, "relent.clients." + name + ".", properties, start, time, customizers);
  }

  /**
   * Checks the settings every client starts from, naming {@code relent.defaults.*} in a refusal.
   */
  static void checkDefaults(RelentProperties.Client defaults, TimeSource time) {
    new RelentClient("defaults", "relent.defaults.", defaults, null, time, List.of());
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

  private int attemptBodyLimit(org.springframework.util.unit.DataSize size) {
    String property = prefix + "attempt-body-limit";
    if (size == null) {
      throw new RelentPropertyException(
          property, null, "give a size such as 1MB, or 0 to read no body in the attempt", null);
    }
    long bytes = size.toBytes();
    // A compile-time constant: reading it loads no Spring Web class into an application without.
    if (bytes < 0 || bytes > RelentRestInterceptor.MAX_ATTEMPT_BODY_LIMIT) {
      throw new RelentPropertyException(
          property,
          size,
          "attemptBodyLimit must be between 0 and 1 GiB: " + bytes + " bytes",
          null);
    }
    return (int) bytes;
  }

  private RetryPolicy policy(RelentProperties.Client p, Sources sources) {
    RelentProperties.Backoff bp = p.getBackoff();
    Backoff.Builder bb = Backoff.builder();
    check("backoff.base", bp.getBase(), () -> bb.withBase(bp.getBase()));
    check("backoff.cap", bp.getCap(), () -> bb.withCap(bp.getCap()));
    check("backoff.jitter", bp.getJitter(), () -> bb.withJitter(bp.getJitter()));
    Backoff backoff =
        atMost(
            sources,
            "backoff.base",
            "backoff.cap",
            "the cap is the longest wait between attempts, the base the first",
            bb::build);
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
    return atMost(
        sources, "max-server-wait", "deadline", "a wait past the deadline always fails", b::build);
  }

  private CircuitBreaker breaker(RelentProperties.Breaker p, Sources sources) {
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
    return atMost(
        sources,
        "breaker.minimum-calls",
        "breaker.count-window",
        "the breaker judges its failure rate only once its window holds minimum-calls calls, so it"
            + " could never open",
        b::build);
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

  /**
   * Runs a builder's {@code build()}, whose only refusal ({@code IllegalStateException}) is of
   * {@code low} above {@code high}, and turns it into an error naming the property of the two that
   * was set most specifically, with its own value: a client's own key before {@code
   * relent.defaults}, and that before Relent's default; {@code low} when they tie. The other is
   * named with its value and where that came from, so that a user who set one of them alone is
   * never told about the one they did not set.
   */
  private <T> T atMost(Sources sources, String low, String high, String why, Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalStateException e) {
      Object lowValue = sources.value(low);
      Object highValue = sources.value(high);
      if (sources.rank(high) > sources.rank(low)) {
        throw new RelentPropertyException(
            prefix + high,
            highValue,
            "it cannot be below "
                + prefix
                + low
                + ", which is "
                + lowValue
                + " ("
                + sources.origin(prefix, low)
                + "): "
                + why,
            "raise " + prefix + high + ", or set " + prefix + low + " to at most " + highValue,
            e);
      }
      throw new RelentPropertyException(
          prefix + low,
          lowValue,
          "it cannot exceed "
              + prefix
              + high
              + ", which is "
              + highValue
              + " ("
              + sources.origin(prefix, high)
              + "): "
              + why,
          "lower " + prefix + low + " or raise " + prefix + high,
          e);
    }
  }

  /**
   * Where each setting of a client being built came from, told by its value: the client's own key
   * when it differs from what the client started from ({@code relent.defaults}), {@code
   * relent.defaults} when that differs from Relent's default, else Relent's default. A key set to
   * the value it would have had anyway counts as not set, which a message may say without being
   * wrong. Used while the client is built, then dropped.
   */
  private static final class Sources {
    private final RelentProperties.Client properties;
    private final RelentProperties.Client start;

    /** {@code start} null: the properties are {@code relent.defaults} themselves. */
    Sources(RelentProperties.Client properties, RelentProperties.Client start) {
      this.properties = properties;
      this.start = start;
    }

    Object value(String key) {
      return PAIRED.get(key).apply(properties);
    }

    /** 2 the client's own key, 1 {@code relent.defaults}, 0 Relent's default. */
    int rank(String key) {
      Function<RelentProperties.Client, Object> get = PAIRED.get(key);
      Object value = get.apply(properties);
      if (!Objects.equals(value, get.apply(start == null ? BUILT_IN : start))) {
        return 2;
      }
      return start != null && !Objects.equals(value, get.apply(BUILT_IN)) ? 1 : 0;
    }

    String origin(String prefix, String key) {
      switch (rank(key)) {
        case 2:
          return "set by " + prefix + key;
        case 1:
          return "set by relent.defaults." + key;
        default:
          return "Relent's default";
      }
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
   * @return the URL; present for every client, since {@code base-url} is required at start-up
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
   * Returns the largest response body a RestClient or RestTemplate of the client reads inside the
   * attempt ({@code attempt-body-limit}, default 1 MB).
   *
   * @return bytes, 0 for none
   */
  public int attemptBodyLimit() {
    return attemptBodyLimit;
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
