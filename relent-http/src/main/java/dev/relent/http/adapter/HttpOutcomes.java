package dev.relent.http.adapter;

import dev.relent.HintExtractor;
import dev.relent.OutcomeClassifier;
import dev.relent.OutcomeDescriber;
import dev.relent.RelentExecutor;
import dev.relent.RelentListener;
import dev.relent.ServerHint;
import dev.relent.http.AttemptRecord;
import dev.relent.http.Decision;
import dev.relent.http.DecisionTable;
import dev.relent.http.Fault;
import dev.relent.http.HttpFaultException;
import dev.relent.http.NotRetriedWriteException;
import dev.relent.http.Redactor;
import dev.relent.http.ResponseFacts;
import dev.relent.http.ServerHints;
import dev.relent.time.Clock;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP semantics wired for the core executor, for any client whose responses a {@link
 * ResponseAccess} can read: a classifier backed by the {@link DecisionTable}, a hint extractor
 * backed by {@link ServerHints}, a describer that writes {@code "HTTP 503"} or {@code "read timeout
 * (HttpTimeoutException)"}, and an attempt logger; plus {@link #notRetried} to build the exception
 * for a held-back write.
 *
 * <p>Failures are judged from an {@link HttpFaultException} anywhere in the cause chain (it says
 * which request failed); a bare exception is judged as a request of unknown method, so only faults
 * where nothing was sent are retried.
 *
 * <pre>{@code
 * HttpOutcomes<HttpResponse<?>> http = HttpOutcomes.builder(ResponseAccess.jdk()).build();
 * RelentExecutor<HttpResponse<?>> executor =
 *     http.applyTo(RelentExecutor.<HttpResponse<?>>builder(RetryPolicy.ofDefaults())).build();
 * }</pre>
 *
 * <p><b>Headers that cannot be true.</b> A rate-limit statement that cannot be true ({@link
 * ServerHints.Doubt}: more remaining than the limit, an epoch reset already past, a reset more than
 * a year away) is bounded where it is used, and reported once per kind, not per response: one WARN
 * line to the logger (default {@code dev.relent.http}) the first time, and a count in {@link
 * #headerDoubts()}.
 *
 * <p>Defaults: {@link DecisionTable#ofDefaults()}, {@link ServerHints#ofDefaults()}, {@link
 * Redactor#ofDefaults()}, {@link Clock#system()}, the SLF4J logger {@code dev.relent.http}.
 * Thread-safe; its only state is the count of header doubts.
 *
 * @param <R> the client's response type
 */
public final class HttpOutcomes<R> {
  private final ResponseAccess<R> access;
  private final DecisionTable table;
  private final ServerHints hints;
  private final Redactor redactor;
  private final Clock clock;
  private final Logger doubtLogger;
  private final Map<ServerHints.Doubt, LongAdder> doubts = new ConcurrentHashMap<>();
  private final BiConsumer<ServerHints.Doubt, String> doubtSink = this::doubted;

  private HttpOutcomes(Builder<R> b) {
    this.access = b.access;
    this.table = b.table;
    this.hints = b.hints;
    this.redactor = b.redactor;
    this.clock = b.clock;
    this.doubtLogger = b.logger;
  }

  /**
   * Returns a builder for a client whose responses {@code access} reads.
   *
   * @param access reads the client's responses
   * @param <R> the response type
   * @return a new builder with every other setting at its default
   * @throws NullPointerException if {@code access} is null
   */
  public static <R> Builder<R> builder(ResponseAccess<R> access) {
    return new Builder<>(access);
  }

  /**
   * Returns the decision table used when a request has none of its own.
   *
   * @return the table
   */
  public DecisionTable table() {
    return table;
  }

  /**
   * Returns the hint reader.
   *
   * @return the reader
   */
  public ServerHints serverHints() {
    return hints;
  }

  /**
   * Returns the redactor.
   *
   * @return the redactor
   */
  public Redactor redactor() {
    return redactor;
  }

  /**
   * Returns the response access.
   *
   * @return the access
   */
  public ResponseAccess<R> access() {
    return access;
  }

  /**
   * Decides about an attempt's outcome.
   *
   * @param result the response, when {@code failure} is null
   * @param failure the failure, or null
   * @return the decision, never null
   */
  public Decision decide(R result, Throwable failure) {
    if (failure != null) {
      HttpFaultException fault = findFault(failure);
      if (fault != null) {
        DecisionTable t = fault.table() != null ? fault.table() : table;
        return t.decide(fault.method(), fault.keyed(), fault.fault());
      }
      return table.decide(null, false, failure);
    }
    DecisionTable own = access.table(result);
    return (own != null ? own : table)
        .decide(
            access.method(result),
            access.keyed(result),
            access.status(result),
            access.headers(result));
  }

  /**
   * Reads the server's hint from an outcome; failures carry none.
   *
   * @param result the response, when {@code failure} is null
   * @param failure the failure, or null
   * @return the hint, or null
   */
  public ServerHint hint(R result, Throwable failure) {
    if (failure != null || result == null) {
      return null;
    }
    return hints.read(access.status(result), access.headers(result), clock.instant(), doubtSink);
  }

  /**
   * Returns how many responses so far stated a limit that cannot be true, by kind; kinds never seen
   * are absent.
   *
   * @return a snapshot, unmodifiable
   */
  public Map<ServerHints.Doubt, Long> headerDoubts() {
    Map<ServerHints.Doubt, Long> out = new EnumMap<>(ServerHints.Doubt.class);
    doubts.forEach((kind, n) -> out.put(kind, n.sum()));
    return Collections.unmodifiableMap(out);
  }

  private void doubted(ServerHints.Doubt kind, String message) {
    LongAdder n = doubts.get(kind);
    if (n == null) {
      LongAdder fresh = new LongAdder();
      n = doubts.putIfAbsent(kind, fresh);
      if (n == null) {
        n = fresh;
        if (doubtLogger != null) {
          doubtLogger.warn(
              "the server's rate-limit headers cannot be true: {}; reported once per client,"
                  + " however often it comes",
              message);
        }
      }
    }
    n.increment();
  }

  /**
   * Describes an outcome without secrets: {@code "HTTP 503"}, {@code "read timeout
   * (HttpTimeoutException)"}, or the exception's type.
   *
   * @param result the response, when {@code failure} is null
   * @param failure the failure, or null
   * @return the description
   */
  public String describe(R result, Throwable failure) {
    if (failure == null) {
      return result == null ? "no response" : "HTTP " + access.status(result);
    }
    HttpFaultException wrapped = findFault(failure);
    Throwable cause = wrapped != null && wrapped.getCause() != null ? wrapped.getCause() : failure;
    Fault fault = wrapped != null ? wrapped.fault() : Fault.classify(failure);
    String type = cause.getClass().getSimpleName();
    return fault == null ? type : fault.description() + " (" + type + ")";
  }

  /**
   * Builds the exception for a write that was held back, when the decision says so.
   *
   * @param result the last response, when {@code failure} is null
   * @param failure the last failure, or null
   * @param attempts the attempts made
   * @return the exception, or null when the outcome is not a held-back write
   */
  public NotRetriedWriteException notRetried(R result, Throwable failure, int attempts) {
    return notRetried(result, failure, attempts, List.of());
  }

  /**
   * Builds the exception for a write that was held back, with the call's attempt records.
   *
   * @param result the last response, when {@code failure} is null
   * @param failure the last failure, or null
   * @param attempts the attempts made
   * @param records the call's attempt records, in order
   * @return the exception, or null when the outcome is not a held-back write
   * @throws NullPointerException if {@code records} is null
   */
  public NotRetriedWriteException notRetried(
      R result, Throwable failure, int attempts, List<AttemptRecord> records) {
    Objects.requireNonNull(records, "records cannot be null");
    Decision d = decide(result, failure);
    if (!d.notResent()) {
      return null;
    }
    if (failure != null) {
      HttpFaultException f = findFault(failure);
      String method = f != null ? f.method() : "request";
      String endpoint = f != null ? f.endpoint() : "-";
      Fault fault = f != null ? f.fault() : Fault.classify(failure);
      return new NotRetriedWriteException(
          method,
          endpoint,
          null,
          describe(null, failure),
          -1,
          fault,
          d.rule(),
          attempts,
          null,
          failure,
          records);
    }
    int status = access.status(result);
    return new NotRetriedWriteException(
        access.method(result),
        redactor.uri(access.uri(result)),
        ResponseFacts.requestId(access.headers(result)),
        "HTTP " + status,
        status,
        null,
        d.rule(),
        attempts,
        result,
        null,
        records);
  }

  /**
   * Returns the classifier for {@link RelentExecutor.Builder#withClassifier}.
   *
   * @return a classifier; it allocates nothing per call
   */
  public OutcomeClassifier<R> classifier() {
    return (result, failure) -> decide(result, failure).verdict();
  }

  /**
   * Returns the hint extractor for {@link RelentExecutor.Builder#withHintExtractor}.
   *
   * @return an extractor
   */
  public HintExtractor<R> hintExtractor() {
    return this::hint;
  }

  /**
   * Returns the describer for {@link RelentExecutor.Builder#withOutcomeDescriber}: the outcome as
   * {@link #describe} writes it and the request it answered, {@code "HTTP 503 from GET
   * http://api.example.com/v1/items"}, so that a give-up's message names the method and the
   * redacted endpoint.
   *
   * @return a describer
   */
  public OutcomeDescriber<R> describer() {
    return new OutcomeDescriber<>() {
      @Override
      public String describe(R result, Throwable failure) {
        String outcome = HttpOutcomes.this.describe(result, failure);
        String target = target(result, failure);
        return target == null ? outcome : outcome + " from " + target;
      }

      @Override
      public String outcomeClass(R result, Throwable failure) {
        return HttpOutcomes.this.outcomeClass(result, failure);
      }
    };
  }

  /**
   * Returns the class of an outcome, for meters ({@link OutcomeDescriber#outcomeClass}): the status
   * class {@code 1xx}, {@code 2xx}, {@code 3xx}, {@code 4xx} or {@code 5xx}, {@code 429} apart from
   * the other 4xx (the server paces the caller), {@code other} for a status outside 100-599; {@code
   * io} for a network fault, where no answer came; {@code none} for a failure that is not the
   * network's (a bug, an interrupt). Constants: it allocates nothing.
   *
   * @param result the response, when {@code failure} is null
   * @param failure the failure, or null
   * @return the class
   */
  public String outcomeClass(R result, Throwable failure) {
    if (failure != null) {
      return findFault(failure) != null || Fault.classify(failure) != null
          ? "io"
          : OutcomeDescriber.NO_CLASS;
    }
    if (result == null) {
      return OutcomeDescriber.NO_CLASS;
    }
    int status = access.status(result);
    if (status == 429) {
      return "429";
    }
    switch (status < 100 || status > 599 ? 0 : status / 100) {
      case 1:
        return "1xx";
      case 2:
        return "2xx";
      case 3:
        return "3xx";
      case 4:
        return "4xx";
      case 5:
        return "5xx";
      default:
        return "other";
    }
  }

  /** The method and redacted endpoint of the request an outcome answered, or null if unknown. */
  private String target(R result, Throwable failure) {
    if (failure != null) {
      HttpFaultException f = findFault(failure);
      return f == null ? null : ResponseFacts.sanitize(f.method() + " " + f.endpoint());
    }
    if (result == null) {
      return null;
    }
    return ResponseFacts.sanitize(access.method(result) + " " + redactor.uri(access.uri(result)));
  }

  /**
   * Installs the classifier, the hint extractor and the describer on an executor builder.
   *
   * @param builder the executor builder; it must have no retry or abort rules of its own
   * @return the same builder
   * @throws NullPointerException if {@code builder} is null
   */
  public RelentExecutor.Builder<R> applyTo(RelentExecutor.Builder<R> builder) {
    Objects.requireNonNull(builder, "builder cannot be null");
    return builder
        .withClassifier(classifier())
        .withHintExtractor(hintExtractor())
        .withOutcomeDescriber(describer());
  }

  /**
   * Returns a listener that writes one line per attempt to the SLF4J logger {@code
   * dev.relent.http}; see {@link #logger(Logger)}.
   *
   * @return a new listener
   */
  public RelentListener<R> logger() {
    return logger(LoggerFactory.getLogger("dev.relent.http"));
  }

  /**
   * Returns a listener that writes one line per attempt, for an executor used without an adapter's
   * loop (adapters log through {@link HttpCallLoop}, whose lines also carry the key's short form):
   * time, attempt number, method, endpoint (redacted), status or fault, request id, wait headers,
   * layers the response passed, decision with its rule, wait chosen; the same facts ride along as
   * SLF4J key-values ({@code attempt}, {@code method}, {@code endpoint}, {@code status}, {@code
   * rule}, {@code wait_ms}, …). Levels: a first attempt that succeeds at DEBUG, a retry and a
   * success after retries at INFO, giving up and a held-back write at WARN, a pacer wait at DEBUG.
   * Example:
   *
   * <pre>
   * at=2026-01-01T00:00:00Z attempt=1 method=GET endpoint=http://api.example.com/v1/items?key=REDACTED
   *   outcome="HTTP 503" request-id="X-Request-Id: 7f3a" wait-headers="Retry-After: 2"
   *   via="Cloudflare (CF-Ray)" decision="retry: http-503" wait=2.13 s elapsed=0.01 s
   * </pre>
   *
   * @param logger the logger
   * @return a new listener
   * @throws NullPointerException if {@code logger} is null
   */
  public RelentListener<R> logger(Logger logger) {
    return new AttemptRecorder<>(this, attemptLogger(logger), null, null);
  }

  HttpAttemptLogger attemptLogger(Logger logger) {
    return new HttpAttemptLogger(
        Objects.requireNonNull(logger, "logger cannot be null"), clock, redactor);
  }

  Clock clock() {
    return clock;
  }

  static HttpFaultException findFault(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof HttpFaultException) {
        return (HttpFaultException) t;
      }
      if (!(t instanceof CompletionException || t instanceof ExecutionException)) {
        // Only wrappers are looked through: a cause deeper inside is another exchange's.
        return null;
      }
    }
    return null;
  }

  /**
   * Builds {@link HttpOutcomes}. Mutable and not thread-safe.
   *
   * @param <R> the response type
   */
  public static final class Builder<R> {
    private final ResponseAccess<R> access;
    private DecisionTable table = DecisionTable.ofDefaults();
    private ServerHints hints = ServerHints.ofDefaults();
    private Redactor redactor = Redactor.ofDefaults();
    private Clock clock = Clock.system();
    private Logger logger = LoggerFactory.getLogger("dev.relent.http");

    Builder(ResponseAccess<R> access) {
      this.access = Objects.requireNonNull(access, "access cannot be null");
    }

    /**
     * Sets the decision table. Default {@link DecisionTable#ofDefaults()}.
     *
     * @param table the table
     * @return this builder
     * @throws NullPointerException if {@code table} is null
     */
    public Builder<R> withDecisionTable(DecisionTable table) {
      this.table = Objects.requireNonNull(table, "table cannot be null");
      return this;
    }

    /**
     * Sets the hint reader. Default {@link ServerHints#ofDefaults()}.
     *
     * @param hints the reader
     * @return this builder
     * @throws NullPointerException if {@code hints} is null
     */
    public Builder<R> withServerHints(ServerHints hints) {
      this.hints = Objects.requireNonNull(hints, "hints cannot be null");
      return this;
    }

    /**
     * Sets the redactor for logs and messages. Default {@link Redactor#ofDefaults()}.
     *
     * @param redactor the redactor
     * @return this builder
     * @throws NullPointerException if {@code redactor} is null
     */
    public Builder<R> withRedactor(Redactor redactor) {
      this.redactor = Objects.requireNonNull(redactor, "redactor cannot be null");
      return this;
    }

    /**
     * Sets the wall clock that measures {@code Retry-After} dates and rate-limit epochs, and stamps
     * log lines. Use the executor's clock. Default {@link Clock#system()}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder<R> withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock cannot be null");
      return this;
    }

    /**
     * Sets the logger told, once per kind, about rate-limit headers that cannot be true. Default
     * the SLF4J logger {@code dev.relent.http}.
     *
     * @param logger the logger
     * @return this builder
     * @throws NullPointerException if {@code logger} is null
     */
    public Builder<R> withLogger(Logger logger) {
      this.logger = Objects.requireNonNull(logger, "logger cannot be null");
      return this;
    }

    /**
     * Logs nothing; {@link HttpOutcomes#headerDoubts()} still counts.
     *
     * @return this builder
     */
    public Builder<R> withoutLogging() {
      this.logger = null;
      return this;
    }

    /**
     * Builds the outcomes.
     *
     * @return a new instance
     */
    public HttpOutcomes<R> build() {
      return new HttpOutcomes<>(this);
    }
  }
}
