package dev.relent.mockserver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a {@link MockServer} answers: routes with scripted {@link Step} sequences, idempotent
 * resource endpoints, server-wide emulations (rate limit, concurrency limit, daily quota, latency)
 * and CORS. Built in Java with {@link #builder()} or read from a JSON or YAML file with {@link
 * #parse(Path)}; the file format is described in {@code docs/mockserver.md}.
 *
 * <p>Routes are tried in order; the first whose method and path match answers. Immutable and
 * thread-safe; one scenario may back several servers (each keeps its own counters).
 */
public final class Scenario {

  private final List<Endpoint> endpoints;
  private final Cors cors;
  private final EmulationSettings emulations;
  private final int journalCapacity;
  private final String host;
  private final Integer port;

  private Scenario(Builder b) {
    this.endpoints = List.copyOf(b.endpoints);
    this.cors = b.cors;
    this.emulations = b.emulations();
    this.journalCapacity = b.journalCapacity;
    this.host = b.host;
    this.port = b.port;
  }

  /**
   * Reads a scenario file: YAML if its name ends in {@code .yaml} or {@code .yml}, else JSON.
   *
   * @param file the scenario file
   * @return the scenario
   * @throws IOException if the file cannot be read
   * @throws ScenarioException if the file is not a valid scenario; the message names the file, the
   *     line, the field and what was expected
   */
  public static Scenario parse(Path file) throws IOException {
    Objects.requireNonNull(file, "file cannot be null");
    String text = Files.readString(file, StandardCharsets.UTF_8);
    return parse(text, file.toString());
  }

  /**
   * Reads a scenario from JSON text; messages name the source {@code <string>}.
   *
   * @param json the scenario as JSON
   * @return the scenario
   * @throws ScenarioException if the text is not a valid scenario
   */
  public static Scenario parse(String json) {
    return parse(json, "<string>");
  }

  /**
   * Reads a scenario from text whose format follows {@code sourceName}'s extension (YAML for {@code
   * .yaml} and {@code .yml}, else JSON); messages name {@code sourceName}.
   *
   * @param text the scenario
   * @param sourceName the name messages use, such as {@code scenario.json}
   * @return the scenario
   * @throws ScenarioException if the text is not a valid scenario
   */
  public static Scenario parse(String text, String sourceName) {
    Objects.requireNonNull(text, "text cannot be null");
    Objects.requireNonNull(sourceName, "sourceName cannot be null");
    String lower = sourceName.toLowerCase(Locale.ROOT);
    boolean yaml = lower.endsWith(".yaml") || lower.endsWith(".yml");
    return new ScenarioParser(sourceName, yaml).parse(text);
  }

  /**
   * Returns a builder for a scenario with no routes, CORS allowing any origin, no emulations and a
   * journal of 10 000 entries.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the names of the routes and resources, in matching order.
   *
   * @return the names, such as {@code GET /flaky}
   */
  public List<String> endpointNames() {
    List<String> names = new ArrayList<>();
    for (Endpoint e : endpoints) {
      names.add(e.name());
    }
    return List.copyOf(names);
  }

  List<Endpoint> endpoints() {
    return endpoints;
  }

  Cors cors() {
    return cors;
  }

  EmulationSettings emulations() {
    return emulations;
  }

  int journalCapacity() {
    return journalCapacity;
  }

  /** The file's {@code server.host}, or null. */
  String host() {
    return host;
  }

  /** The file's {@code server.port}, or null. */
  Integer port() {
    return port;
  }

  /**
   * The emulation settings that a scenario and each of its endpoints take. On the {@link Builder}
   * they apply to every route and resource, before the endpoint's own; on an endpoint's builder, to
   * that endpoint alone. Default: none. Mutable and not thread-safe.
   *
   * @param <B> the concrete builder, returned by every setter
   */
  public abstract static class EmulationBuilder<B extends EmulationBuilder<B>> {
    private RateLimit rateLimit;
    private ConcurrentRequestLimit concurrencyLimit;
    private DailyQuota dailyQuota;
    private Latency latency;

    EmulationBuilder() {}

    abstract B self();

    /**
     * Limits the request rate.
     *
     * @param rateLimit the limit
     * @return this builder
     * @throws NullPointerException if {@code rateLimit} is null
     */
    public B withRateLimit(RateLimit rateLimit) {
      this.rateLimit = Objects.requireNonNull(rateLimit, "rateLimit cannot be null");
      return self();
    }

    /**
     * Limits the requests answered at once.
     *
     * @param limit the limit
     * @return this builder
     * @throws NullPointerException if {@code limit} is null
     */
    public B withConcurrencyLimit(ConcurrentRequestLimit limit) {
      this.concurrencyLimit = Objects.requireNonNull(limit, "concurrencyLimit cannot be null");
      return self();
    }

    /**
     * Limits the requests per day.
     *
     * @param quota the quota
     * @return this builder
     * @throws NullPointerException if {@code quota} is null
     */
    public B withDailyQuota(DailyQuota quota) {
      this.dailyQuota = Objects.requireNonNull(quota, "dailyQuota cannot be null");
      return self();
    }

    /**
     * Adds latency to the answers (on the scenario, on top of an endpoint's own).
     *
     * @param latency the latency
     * @return this builder
     * @throws NullPointerException if {@code latency} is null
     */
    public B withLatency(Latency latency) {
      this.latency = Objects.requireNonNull(latency, "latency cannot be null");
      return self();
    }

    EmulationSettings emulations() {
      return new EmulationSettings(latency, rateLimit, dailyQuota, concurrencyLimit);
    }
  }

  /**
   * Builds a {@link Scenario}. Mutable and not thread-safe; {@link #build()} copies.
   *
   * <pre>{@code
   * Scenario s = Scenario.builder()
   *     .route("GET", "/flaky").steps(Step.status(503), Step.status(503), Step.ok("ok"))
   *     .route("/limited")
   *         .steps(Step.status(429).withHeader("Retry-After", "{{http-date:+5s}}"), Step.status(200))
   *     .resource("/payments").steps(Step.status(504), Step.normal())
   *     .build();
   * }</pre>
   */
  public static final class Builder extends EmulationBuilder<Builder> {
    private final List<Endpoint> endpoints = new ArrayList<>();
    private Cors cors = Cors.allowAll();
    private int journalCapacity = Journal.DEFAULT_CAPACITY;
    private String host;
    private Integer port;
    private EndpointBuilder<?> open;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** The file's {@code server.host}; the server's own builder setting wins over it. */
    Builder withHost(String host) {
      this.host = MockServer.checkHost(host);
      return this;
    }

    /** The file's {@code server.port}; the server's own builder setting wins over it. */
    Builder withPort(int port) {
      this.port = MockServer.PORT.check(port);
      return this;
    }

    /**
     * Starts a route for {@code method} requests to {@code path}.
     *
     * @param method an HTTP method token such as {@code GET}, or {@code *} for any
     * @param path a path pattern: literal segments, {@code *} or {@code {name}} for one segment, a
     *     trailing {@code **} for any rest
     * @return the route's builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code method} is not a token or {@code path} is not a
     *     pattern
     */
    public RouteBuilder route(String method, String path) {
      Objects.requireNonNull(method, "method cannot be null");
      PathPattern p = compile(path);
      RouteBuilder r = new RouteBuilder(this, p);
      if (!method.equals("*")) {
        r.method(method);
      }
      return open(r);
    }

    /**
     * Starts a route for requests to {@code path} with any method.
     *
     * @param path a path pattern
     * @return the route's builder
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalArgumentException if {@code path} is not a pattern
     */
    public RouteBuilder route(String path) {
      return open(new RouteBuilder(this, compile(path)));
    }

    /**
     * Starts an idempotent resource endpoint: {@code POST path} creates a resource (once per {@code
     * Idempotency-Key}), {@code GET path} lists them, {@code GET path/{id}} reads one. Its steps
     * happen <em>after</em> the creation unless a step says {@link Step#withoutCreating()}.
     *
     * @param path the collection path, a literal such as {@code /payments}
     * @return the resource's builder
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalArgumentException if {@code path} is not a literal path
     */
    public ResourceBuilder resource(String path) {
      PathPattern p = compile(path);
      if (p.source().contains("*") || p.source().contains("{") || p.source().endsWith("/")) {
        throw new IllegalArgumentException(
            "path of a resource must be a literal path without a trailing /: "
                + JsonText.quote(path));
      }
      return open(new ResourceBuilder(this, p));
    }

    /**
     * Sets the CORS behaviour (default {@link Cors#allowAll()}).
     *
     * @param cors the settings
     * @return this builder
     * @throws NullPointerException if {@code cors} is null
     */
    public Builder withCors(Cors cors) {
      this.cors = Objects.requireNonNull(cors, "cors cannot be null");
      return this;
    }

    /**
     * Sets how many journal entries the server keeps; older ones are dropped (default 10 000).
     *
     * @param capacity the number of entries, 1 to 10 000 000
     * @return this builder
     * @throws IllegalArgumentException if {@code capacity} is outside 1..10 000 000
     */
    public Builder withJournalCapacity(int capacity) {
      this.journalCapacity = Journal.CAPACITY.check(capacity);
      return this;
    }

    /**
     * Builds the scenario.
     *
     * @return the scenario
     * @throws IllegalStateException if a route has no steps or two endpoints share a name
     */
    public Scenario build() {
      closeOpen();
      return new Scenario(this);
    }

    private <B extends EndpointBuilder<B>> B open(B b) {
      closeOpen();
      open = b;
      return b;
    }

    /**
     * Finishes the endpoint being built.
     *
     * @throws IllegalStateException if it is incomplete or its name is taken
     */
    void closeOpen() {
      if (open == null) {
        return;
      }
      Endpoint e = open.toEndpoint();
      open = null;
      for (Endpoint other : endpoints) {
        if (other.name().equals(e.name())) {
          throw new IllegalStateException(
              "two endpoints are named "
                  + JsonText.quote(e.name())
                  + "; give one a different name");
        }
      }
      endpoints.add(e);
    }

    /** Drops the endpoint being built (the file's way with an endpoint that has problems). */
    void discardOpen() {
      open = null;
    }

    private static PathPattern compile(String path) {
      Objects.requireNonNull(path, "path cannot be null");
      try {
        return PathPattern.compile(path);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("path: " + e.getMessage(), e);
      }
    }
  }

  /**
   * The settings a route and a resource share. Mutable and not thread-safe.
   *
   * @param <B> the concrete builder, returned by every setter
   */
  public abstract static class EndpointBuilder<B extends EndpointBuilder<B>>
      extends EmulationBuilder<B> {
    final Builder parent;
    final PathPattern path;
    String name;
    // Null until set.
    List<Step> steps;
    boolean cycle;
    KeySpec sequencePer;

    EndpointBuilder(Builder parent, PathPattern path) {
      this.parent = parent;
      this.path = path;
    }

    abstract Endpoint toEndpoint();

    /** Whether this endpoint is a resource, where a step may answer without creating. */
    abstract boolean isResource();

    /**
     * Sets the steps, answered in order; the last one repeats (unless {@link #cycling()}).
     *
     * @param steps one or more steps
     * @return this builder
     * @throws NullPointerException if {@code steps} or an element is null
     * @throws IllegalArgumentException if {@code steps} is empty, or a step's settings contradict
     *     each other (the message names the step and both settings)
     */
    public B steps(Step... steps) {
      if (steps.length == 0) {
        throw new IllegalArgumentException("steps must not be empty");
      }
      List<Step> list = new ArrayList<>(steps.length);
      for (int i = 0; i < steps.length; i++) {
        try {
          list.add(checked(steps[i]));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("step " + i + ": " + e.getMessage(), e);
        }
      }
      this.steps = list;
      return self();
    }

    /**
     * Adds one step after those set so far: the scenario file's way, so that a problem names the
     * step's own line.
     *
     * @throws IllegalArgumentException if the step's settings contradict each other
     */
    B addStep(Step step) {
      Step s = checked(step);
      if (steps == null) {
        steps = new ArrayList<>();
      }
      steps.add(s);
      return self();
    }

    private Step checked(Step step) {
      Objects.requireNonNull(step, "step cannot be null");
      String conflict = step.conflict(isResource());
      if (conflict != null) {
        throw new IllegalArgumentException(conflict);
      }
      return step;
    }

    /**
     * Names this endpoint in the journal and stats (default: {@code METHOD path}, or the path alone
     * for any method).
     *
     * @param name the name
     * @return this builder
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public B named(String name) {
      Objects.requireNonNull(name, "name cannot be null");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
      this.name = name;
      return self();
    }

    /**
     * Starts again at the first step after the last one, instead of repeating the last.
     *
     * @return this builder
     */
    public B cycling() {
      this.cycle = true;
      return self();
    }

    /**
     * Keeps one step counter per {@code key} instead of one for the endpoint, so that parallel
     * tests (each with its own {@code header:X-Test-Id}, say) each see the whole sequence.
     *
     * @param key {@code ip}, {@code token}, {@code global} or {@code header:NAME}
     * @return this builder
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code key} is not a key spec
     */
    public B withSequencePer(String key) {
      this.sequencePer = KeySpec.of("sequencePer", key);
      return self();
    }

    /**
     * Finishes this endpoint and starts a route (see {@link Builder#route(String, String)}).
     *
     * @param method the method token, or {@code *}
     * @param path the path pattern
     * @return the new route's builder
     * @throws IllegalStateException if this endpoint is incomplete
     */
    public RouteBuilder route(String method, String path) {
      return parent.route(method, path);
    }

    /**
     * Finishes this endpoint and starts a route for any method.
     *
     * @param path the path pattern
     * @return the new route's builder
     * @throws IllegalStateException if this endpoint is incomplete
     */
    public RouteBuilder route(String path) {
      return parent.route(path);
    }

    /**
     * Finishes this endpoint and starts a resource (see {@link Builder#resource(String)}).
     *
     * @param path the collection path
     * @return the new resource's builder
     * @throws IllegalStateException if this endpoint is incomplete
     */
    public ResourceBuilder resource(String path) {
      return parent.resource(path);
    }

    /**
     * Finishes this endpoint and returns the scenario builder.
     *
     * @return the scenario builder
     * @throws IllegalStateException if this endpoint is incomplete
     */
    public Builder and() {
      parent.closeOpen();
      return parent;
    }

    /**
     * Finishes this endpoint and builds the scenario.
     *
     * @return the scenario
     * @throws IllegalStateException see {@link Builder#build()}
     */
    public Scenario build() {
      return parent.build();
    }

    Endpoint endpoint(Set<String> methods, List<Step> steps, Endpoint.ResourceSettings resource) {
      List<Step> expanded = new ArrayList<>();
      for (Step s : steps) {
        for (int i = 0; i < s.times(); i++) {
          expanded.add(s);
        }
      }
      return new Endpoint(
          name, methods, path, List.copyOf(expanded), cycle, sequencePer, emulations(), resource);
    }
  }

  /** Builds a route: method, path pattern and steps. Mutable and not thread-safe. */
  public static final class RouteBuilder extends EndpointBuilder<RouteBuilder> {
    // Null means any method.
    private Set<String> methods;

    RouteBuilder(Builder parent, PathPattern path) {
      super(parent, path);
    }

    /**
     * Also matches {@code method} (a route may answer several methods).
     *
     * @param method a method token
     * @return this builder
     * @throws IllegalArgumentException if {@code method} is not a token
     * @throws IllegalStateException if the route matches any method
     */
    public RouteBuilder orMethod(String method) {
      if (methods == null) {
        throw new IllegalStateException("route " + path + " already matches any method");
      }
      return method(method);
    }

    /** Matches {@code method}, as the only one so far or besides those already set. */
    RouteBuilder method(String method) {
      Objects.requireNonNull(method, "method cannot be null");
      if (!Http.isToken(method)) {
        throw new IllegalArgumentException(
            "method must be an HTTP method token like GET: " + JsonText.quote(method));
      }
      Set<String> more = methods == null ? new LinkedHashSet<>() : new LinkedHashSet<>(methods);
      more.add(method.toUpperCase(Locale.ROOT));
      methods = Set.copyOf(more);
      return this;
    }

    @Override
    RouteBuilder self() {
      return this;
    }

    @Override
    boolean isResource() {
      return false;
    }

    @Override
    Endpoint toEndpoint() {
      if (name == null) {
        name =
            methods == null
                ? path.source()
                : String.join("|", new TreeSet<>(methods)) + " " + path.source();
      }
      if (steps == null) {
        throw new IllegalStateException("route " + name + " has no steps");
      }
      return endpoint(methods, steps, null);
    }
  }

  /**
   * Builds an idempotent resource endpoint. Mutable and not thread-safe.
   *
   * <p>Defaults: key header {@code Idempotency-Key}, key optional, one key space for all callers
   * ({@code global}), keys kept 24 hours, ids {@code res_1}, {@code res_2}..., one normal step.
   */
  public static final class ResourceBuilder extends EndpointBuilder<ResourceBuilder> {
    private String idPrefix = "res_";
    private String keyHeader = "Idempotency-Key";
    private boolean requireKey;
    private KeySpec scope = KeySpec.GLOBAL;
    private Duration ttl = Duration.ofHours(24);

    ResourceBuilder(Builder parent, PathPattern path) {
      super(parent, path);
    }

    /**
     * Sets the prefix of created ids (default {@code res_}; {@code pay_} gives {@code pay_1}).
     *
     * @param prefix the prefix, letters, digits, {@code _} or {@code -}
     * @return this builder
     * @throws NullPointerException if {@code prefix} is null
     * @throws IllegalArgumentException if {@code prefix} holds another character
     */
    public ResourceBuilder withIdPrefix(String prefix) {
      Objects.requireNonNull(prefix, "idPrefix cannot be null");
      if (!prefix.matches("[A-Za-z0-9_-]*")) {
        throw new IllegalArgumentException(
            "idPrefix must hold only letters, digits, _ or -: " + JsonText.quote(prefix));
      }
      this.idPrefix = prefix;
      return this;
    }

    /**
     * Sets the header that carries the idempotency key (default {@code Idempotency-Key}).
     *
     * @param header a header name
     * @return this builder
     * @throws NullPointerException if {@code header} is null
     * @throws IllegalArgumentException if {@code header} is not a token
     */
    public ResourceBuilder withKeyHeader(String header) {
      Objects.requireNonNull(header, "keyHeader cannot be null");
      if (!Http.isToken(header)) {
        throw new IllegalArgumentException(
            "keyHeader must be an HTTP token: " + JsonText.quote(header));
      }
      this.keyHeader = header;
      return this;
    }

    /**
     * Sets whether a create without a key is rejected with 400 (default false: it creates a new
     * resource every time, which is how a retried POST charges twice).
     *
     * @param require whether the key is required
     * @return this builder
     */
    public ResourceBuilder requireKey(boolean require) {
      this.requireKey = require;
      return this;
    }

    /**
     * Scopes keys per caller (default {@code global}: one key space).
     *
     * @param key {@code ip}, {@code token}, {@code global} or {@code header:NAME}
     * @return this builder
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code key} is not a key spec
     */
    public ResourceBuilder withScope(String key) {
      this.scope = KeySpec.of("scope", key);
      return this;
    }

    /**
     * Sets how long a key is remembered after its first use (default 24 hours).
     *
     * @param ttl the time to live, at least 1 second
     * @return this builder
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is shorter than 1 second
     */
    public ResourceBuilder withTtl(Duration ttl) {
      Objects.requireNonNull(ttl, "ttl cannot be null");
      if (ttl.getSeconds() < 1) {
        throw new IllegalArgumentException("ttl must be >= 1 s: " + ttl.toMillis() + " ms");
      }
      this.ttl = ttl;
      return this;
    }

    @Override
    ResourceBuilder self() {
      return this;
    }

    @Override
    boolean isResource() {
      return true;
    }

    @Override
    Endpoint toEndpoint() {
      if (name == null) {
        name = path.source();
      }
      return endpoint(
          null,
          steps == null ? List.of(Step.normal()) : steps,
          new Endpoint.ResourceSettings(idPrefix, keyHeader, requireKey, scope, ttl));
    }
  }
}
