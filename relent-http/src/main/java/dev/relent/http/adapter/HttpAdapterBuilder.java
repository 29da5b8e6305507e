package dev.relent.http.adapter;

import dev.relent.RelentExecutor;
import dev.relent.RetryPolicy;
import dev.relent.guard.GuardRegistry;
import dev.relent.http.DecisionTable;
import dev.relent.http.HttpScopes;
import dev.relent.http.Redactor;
import dev.relent.http.ServerHints;
import dev.relent.time.TimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings every Relent HTTP adapter shares (the JDK client wrapper, the OkHttp interceptor,
 * the HttpClient 5 handlers), and how they become one {@link HttpCallLoop}: so that the adapters
 * are configured, and behave, the same way. The HTTP settings are this builder's; the executor's
 * guards and listeners are set on the executor's own builder, through {@link #withExecutor}.
 *
 * <p>Mutable and not thread-safe, like every builder.
 *
 * @param <R> the adapter's response type
 * @param <B> the adapter's own builder, returned by every setter
 */
public abstract class HttpAdapterBuilder<R, B extends HttpAdapterBuilder<R, B>> {
  /** How much of a retried response's body is kept in memory unless set otherwise: 64 KiB. */
  public static final int DEFAULT_MAX_BUFFERED_BODY = 64 * 1024;

  private RetryPolicy policy = RetryPolicy.ofDefaults();
  private DecisionTable table = DecisionTable.ofDefaults();
  private ServerHints hints = ServerHints.ofDefaults();
  private Redactor redactor = Redactor.ofDefaults();
  private TimeSource time = TimeSource.system();
  private Logger logger = LoggerFactory.getLogger("dev.relent.http");
  private final List<Consumer<RelentExecutor.Builder<R>>> executorSettings = new ArrayList<>();
  private boolean keyWrites;
  private HttpScopes scopes;
  private GuardRegistry registry;
  private int maxBufferedBody = DEFAULT_MAX_BUFFERED_BODY;
  private final List<CallObserver.Factory> observers = new ArrayList<>();

  /** Creates a builder with every setting at its default. */
  protected HttpAdapterBuilder() {}

  /**
   * Sets the retries, backoff, deadline, attempt timeout and longest server wait; which outcomes
   * are retried is the decision table's business. One policy can serve every adapter. Default
   * {@link RetryPolicy#ofDefaults()}: 5 retries, 500 ms base, 30 s cap, full jitter, 30 s deadline,
   * 10 s per attempt.
   *
   * @param policy the policy
   * @return this builder
   * @throws NullPointerException if {@code policy} is null
   */
  public B withPolicy(RetryPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy cannot be null");
    return self();
  }

  /**
   * Sets the decision table for every request without one of its own. Default {@link
   * DecisionTable#ofDefaults()}.
   *
   * @param table the table
   * @return this builder
   * @throws NullPointerException if {@code table} is null
   */
  public B withDecisionTable(DecisionTable table) {
    this.table = Objects.requireNonNull(table, "table cannot be null");
    return self();
  }

  /**
   * Sets the hint reader. Default {@link ServerHints#ofDefaults()}.
   *
   * @param hints the reader
   * @return this builder
   * @throws NullPointerException if {@code hints} is null
   */
  public B withServerHints(ServerHints hints) {
    this.hints = Objects.requireNonNull(hints, "hints cannot be null");
    return self();
  }

  /**
   * Sets the redactor for logs and messages. Default {@link Redactor#ofDefaults()}.
   *
   * @param redactor the redactor
   * @return this builder
   * @throws NullPointerException if {@code redactor} is null
   */
  public B withRedactor(Redactor redactor) {
    this.redactor = Objects.requireNonNull(redactor, "redactor cannot be null");
    return self();
  }

  /**
   * Gives every POST and PATCH without a key a new {@code Idempotency-Key}, so that they are
   * retried like idempotent requests. Turn it on only for servers that deduplicate by key. Default
   * false.
   *
   * @param enabled whether writes get keys
   * @return this builder
   */
  public B withIdempotencyKeys(boolean enabled) {
    this.keyWrites = enabled;
    return self();
  }

  /**
   * Sets how much of a retried response's body is kept in memory. Default 64 KiB.
   *
   * @param bytes 0 or more
   * @return this builder
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public B withMaxBufferedBody(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("maxBufferedBody must be >= 0: " + bytes + " bytes");
    }
    this.maxBufferedBody = bytes;
    return self();
  }

  /**
   * Sets every source of time and chance: the ticker for deadlines and guards, the wall clock for
   * {@code Retry-After} dates, rate-limit epochs and log times, the sleeper and scheduler calls
   * wait with, and the randomness for jitter and spread. Default {@link TimeSource#system()}; tests
   * pass relent-testing's {@code FakeTime}.
   *
   * @param time the time source
   * @return this builder
   * @throws NullPointerException if {@code time} is null
   */
  public B withTime(TimeSource time) {
    this.time = Objects.requireNonNull(time, "time cannot be null");
    return self();
  }

  /**
   * Sets the logger for the per-attempt lines. Default the SLF4J logger {@code dev.relent.http}.
   *
   * @param logger the logger
   * @return this builder
   * @throws NullPointerException if {@code logger} is null
   */
  public B withLogger(Logger logger) {
    this.logger = Objects.requireNonNull(logger, "logger cannot be null");
    return self();
  }

  /**
   * Turns the per-attempt lines off.
   *
   * @return this builder
   */
  public B withoutLogging() {
    this.logger = null;
    return self();
  }

  /**
   * Configures the executor every call of the adapter shares: its guards ({@code
   * withCircuitBreaker}, {@code withRetryBudget}, {@code withPacer}, {@code withConcurrencyLimit})
   * and its executor-wide listeners ({@code onEvent}), as {@link RelentExecutor.Builder} states
   * them. Each call adds a configurer; they run in order at {@code build()}, after the policy and
   * {@link #withTime time} are set, and before the decision table's classification, hint reader and
   * describer are installed, which are the adapter's: set those through this builder's {@link
   * #withDecisionTable} and {@link #withServerHints}. Default: no guards, no listeners.
   *
   * <pre>{@code
   * RelentInterceptor.builder()
   *     .withExecutor(x -> x.withPacer(Pacer.of(90, Duration.ofMinutes(1))).onEvent(metrics))
   *     .build();
   * }</pre>
   *
   * @param configurer sets what it needs on the executor builder
   * @return this builder
   * @throws NullPointerException if {@code configurer} is null
   */
  public B withExecutor(Consumer<RelentExecutor.Builder<R>> configurer) {
    executorSettings.add(Objects.requireNonNull(configurer, "configurer cannot be null"));
    return self();
  }

  /**
   * Governs each request by the guards of its scopes (its account, key, endpoint, custom scope, as
   * {@code scopes} derives them), which {@code registry} holds: a {@code 429}, {@code Retry-After}
   * or quota answer pauses the scope it belongs to (by default the endpoint's, the account's when
   * the server says so), not every request of the adapter; a request to a paused scope waits, or
   * fails at once when the pause outlasts its deadline, with a message naming the scope, the
   * request and the answer that paused it, and when the pause ends. A pause is capped at the
   * policy's longest server wait; {@link GuardRegistry#resume} ends it early. Give the registry the
   * adapter's {@link #withTime time source}. Default: no scopes (a rate-limit answer pauses the
   * executor's pacer, if there is one).
   *
   * <pre>{@code
   * GuardRegistry registry = GuardRegistry.ofDefaults();
   * RelentInterceptor.builder()
   *     .withScopes(HttpScopes.builder().withRoutes("/v1/payments/{id}").build(), registry)
   *     .build();
   * }</pre>
   *
   * @param scopes how a request's scopes are derived
   * @param registry where their guards and pauses live
   * @return this builder
   * @throws NullPointerException if an argument is null
   */
  public B withScopes(HttpScopes scopes, GuardRegistry registry) {
    this.scopes = Objects.requireNonNull(scopes, "scopes cannot be null");
    this.registry = Objects.requireNonNull(registry, "registry cannot be null");
    return self();
  }

  /**
   * Adds an observer of every call and of each physical request it sends, which may also add
   * headers to each request ({@link CallObserver}): how tracing sees each attempt and puts its
   * {@code traceparent} on it. The factory makes one observer per call; each call adds a factory,
   * and every call gets an observer from each, in the order added. Default: none, and a call then
   * pays a null check per attempt and per event for the hook, no allocation.
   *
   * @param factory makes the observer of each call
   * @return this builder
   * @throws NullPointerException if {@code factory} is null
   */
  public B withCallObserver(CallObserver.Factory factory) {
    observers.add(Objects.requireNonNull(factory, "factory cannot be null"));
    return self();
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * Builds the loop every call of the adapter runs through: the HTTP semantics of these settings
   * for the adapter's responses, and the executor every call shares (the policy, the outcomes'
   * classification, the time source, and what {@link #withExecutor} configured); the log lines are
   * the loop's.
   *
   * @param access how the adapter reads its responses
   * @return the loop
   * @throws NullPointerException if {@code access} is null
   */
  protected final HttpCallLoop<R> buildLoop(ResponseAccess<R> access) {
    HttpOutcomes.Builder<R> outcomesBuilder =
        HttpOutcomes.builder(access)
            .withDecisionTable(table)
            .withServerHints(hints)
            .withRedactor(redactor)
            .withClock(time.clock());
    HttpOutcomes<R> outcomes =
        (logger == null ? outcomesBuilder.withoutLogging() : outcomesBuilder.withLogger(logger))
            .build();
    RelentExecutor.Builder<R> x = RelentExecutor.<R>builder(policy).withTime(time);
    for (Consumer<RelentExecutor.Builder<R>> configurer : executorSettings) {
      configurer.accept(x);
    }
    outcomes.applyTo(x);
    if (scopes != null) {
      HttpScopes derived = scopes;
      x.withScopes(registry)
          .withPauseTarget(
              (result, failure, hint) ->
                  result == null
                      ? null
                      : derived.pauses(access.status(result), access.headers(result)));
    }
    return new HttpCallLoop<>(
        outcomes,
        x.build(),
        keyWrites,
        maxBufferedBody,
        logger == null ? null : outcomes.attemptLogger(logger),
        scopes,
        registry,
        List.copyOf(observers));
  }
}
