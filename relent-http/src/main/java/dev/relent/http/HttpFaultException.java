package dev.relent.http;

import java.io.IOException;
import java.util.Objects;

/**
 * One attempt of an HTTP exchange failed in the network: wraps the client's own exception (the
 * {@link #getCause() cause}) with what the decision table needs to judge it, since a bare {@code
 * IOException} does not say which request it belonged to: the method, the endpoint (redacted),
 * whether the request carried an {@code Idempotency-Key}, the {@link Fault}, and, optionally, the
 * decision table of that request.
 *
 * <p>Adapters throw it from an attempt; {@link HttpOutcomes} classifies it. A plain {@code
 * IOException} without this wrapper is judged as a request of unknown method, so only faults where
 * nothing was sent are retried.
 *
 * <p>The message names the fault, the method, the redacted endpoint and the cause's type and
 * (scrubbed) message; it never holds a secret the redactor recognises.
 */
public class HttpFaultException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String method;
  private final String endpoint;
  private final boolean keyed;
  private final Fault fault;
  private final transient DecisionTable table;

  /**
   * Creates the exception.
   *
   * @param method the request method
   * @param endpoint the endpoint, already redacted ({@link Redactor#uri(java.net.URI)})
   * @param keyed whether the request carried an {@code Idempotency-Key}
   * @param table the request's own decision table, or null for the client's
   * @param cause the client's exception
   * @param redactor scrubs the cause's message for this exception's message
   * @throws NullPointerException if {@code method}, {@code endpoint}, {@code cause} or {@code
   *     redactor} is null
   */
  public HttpFaultException(
      String method,
      String endpoint,
      boolean keyed,
      DecisionTable table,
      Throwable cause,
      Redactor redactor) {
    this(
        method,
        endpoint,
        keyed,
        table,
        Objects.requireNonNull(cause, "cause cannot be null"),
        Fault.classify(cause),
        Objects.requireNonNull(redactor, "redactor cannot be null"));
  }

  private HttpFaultException(
      String method,
      String endpoint,
      boolean keyed,
      DecisionTable table,
      Throwable cause,
      Fault fault,
      Redactor redactor) {
    super(
        (fault == null ? "failure" : fault.description())
            + ": "
            + Objects.requireNonNull(method, "method cannot be null")
            + " "
            + Objects.requireNonNull(endpoint, "endpoint cannot be null")
            + " ("
            + cause.getClass().getSimpleName()
            + (cause.getMessage() == null ? "" : ": " + redactor.text(cause.getMessage()))
            + ")",
        cause);
    this.method = method;
    this.endpoint = endpoint;
    this.keyed = keyed;
    this.fault = fault;
    this.table = table;
  }

  /**
   * Returns the request method.
   *
   * @return the method
   */
  public String method() {
    return method;
  }

  /**
   * Returns the endpoint, redacted.
   *
   * @return the endpoint
   */
  public String endpoint() {
    return endpoint;
  }

  /**
   * Returns whether the request carried an {@code Idempotency-Key}.
   *
   * @return true if keyed
   */
  public boolean keyed() {
    return keyed;
  }

  /**
   * Returns the fault, as {@link Fault#classify(Throwable)} read the cause.
   *
   * @return the fault, or null when the cause is not a network fault
   */
  public Fault fault() {
    return fault;
  }

  /**
   * Returns the request's own decision table, if it had one.
   *
   * @return the table, or null for the client's
   */
  public DecisionTable table() {
    return table;
  }
}
