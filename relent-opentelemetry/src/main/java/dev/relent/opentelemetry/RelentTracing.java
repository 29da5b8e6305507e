package dev.relent.opentelemetry;

import dev.relent.http.adapter.CallObserver;
import dev.relent.http.adapter.HttpCall;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Objects;
import java.util.function.Function;

/**
 * OpenTelemetry tracing of the calls of a Relent HTTP adapter, following the semantic conventions
 * for HTTP clients that retry: the logical call is one span, each physical request a client span
 * beneath it, and the waits and decisions between them are events on the call's span. Give it to
 * any adapter's builder:
 *
 * <pre>{@code
 * RelentHttpClient http =
 *     RelentHttpClient.builder(HttpClient.newHttpClient())
 *         .withCallObserver(RelentTracing.of(openTelemetry))
 *         .build();
 * }</pre>
 *
 * <p><b>The call's span</b>, kind {@code INTERNAL}, named {@code relent GET} ({@code relent GET
 * /v1/payments/{id}} with a {@link Builder#withRoute route}), is a child of {@link
 * Context#current()} on the calling thread when the call starts, and carries the request's
 * attributes, {@code relent.attempts} and the outcome ({@code http.response.status_code}, or {@code
 * error.type} with the status {@code ERROR}). Its events {@code relent.retry}, {@code relent.paced}
 * and {@code relent.give_up} say what was decided, by which rule, and how long it waited, with the
 * give-up reason's {@linkplain dev.relent.RelentException.Reason#slug() slug} as the meters spell
 * it. <b>Each physical request's span</b>, kind {@code CLIENT}, carries {@code
 * http.request.resend_count} from the second request on, and the {@link
 * OpenTelemetry#getPropagators() propagators} inject its context ({@code traceparent}) into that
 * request's headers. docs/tracing.md lists every attribute and event.
 *
 * <p><b>No secrets.</b> {@code url.full} is the adapter's redacted endpoint, and the hint and
 * message texts pass the adapter's {@link dev.relent.http.Redactor}; no header but the propagated
 * context is read or written, and exception messages are not recorded.
 *
 * <p>Spans are started and ended explicitly, never made current (an asynchronous call's attempts
 * end on other threads). With the OpenTelemetry Java agent, turn its HTTP client instrumentation
 * off for clients traced here: it would add its own client spans and overwrite {@code traceparent}.
 *
 * <p>Immutable and thread-safe: one instance can serve many adapters.
 */
public final class RelentTracing implements CallObserver.Factory {
  /** The instrumentation scope name of the tracer: {@value}. */
  public static final String INSTRUMENTATION_NAME = "dev.relent.opentelemetry";

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final Function<HttpCall, String> route;

  private RelentTracing(Builder b) {
    this.tracer = b.openTelemetry.getTracer(INSTRUMENTATION_NAME);
    this.propagator = b.openTelemetry.getPropagators().getTextMapPropagator();
    this.route = b.route;
  }

  /**
   * Returns tracing through an {@code OpenTelemetry} instance, with every other setting at its
   * default.
   *
   * @param openTelemetry where the tracer and the propagators come from
   * @return the tracing
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static RelentTracing of(OpenTelemetry openTelemetry) {
    return builder(openTelemetry).build();
  }

  /**
   * Returns a builder of tracing through an {@code OpenTelemetry} instance.
   *
   * @param openTelemetry where the tracer and the propagators come from
   * @return a new builder
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(openTelemetry);
  }

  /**
   * Starts the span of one call; called by the adapter, before the call's first attempt.
   *
   * @param call the call
   * @return the call's observer, which ends the span when the call is over
   */
  @Override
  public CallObserver create(HttpCall call) {
    String template = null;
    if (route != null) {
      try {
        template = route.apply(call);
      } catch (RuntimeException e) {
        template = null; // a failing route function leaves the name without a route
      }
    }
    return new TracedCall(tracer, propagator, call, template, Context.current());
  }

  /** Builds a {@link RelentTracing}. Mutable and not thread-safe. */
  public static final class Builder {
    private final OpenTelemetry openTelemetry;
    private Function<HttpCall, String> route;

    Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry cannot be null");
    }

    /**
     * Sets how a call's route template is found (such as {@code /v1/payments/{id}}), for span names
     * of low cardinality and the {@code url.template} attribute. The function must return a
     * template, never a path with identifiers or secrets in it, or null when it knows none.
     * Default: none, and spans are named after the method alone.
     *
     * @param route the call's route template, or null
     * @return this builder
     * @throws NullPointerException if {@code route} is null
     */
    public Builder withRoute(Function<HttpCall, String> route) {
      this.route = Objects.requireNonNull(route, "route cannot be null");
      return this;
    }

    /**
     * Builds the tracing.
     *
     * @return a new tracing
     */
    public RelentTracing build() {
      return new RelentTracing(this);
    }
  }
}
