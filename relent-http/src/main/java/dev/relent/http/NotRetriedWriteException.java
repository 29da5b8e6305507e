package dev.relent.http;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A non-idempotent request without an {@code Idempotency-Key} failed after it may have reached the
 * server, so it was <em>not</em> sent again: a retry could have charged the customer twice. It
 * carries what a person or a reconciliation job needs to find out whether the operation took
 * effect: the method, the endpoint (redacted), the server's request id, what the server answered,
 * the rule that decided, and how many attempts were made.
 *
 * <p>Example message: {@code POST http://api.example.com/v1/payments was not re-sent after HTTP 503
 * (rule http-503-unkeyed-write; 1 attempt; X-Request-Id: 7f3a): the request may have reached the
 * server and carries no Idempotency-Key, so sending it again could repeat its effect; check whether
 * it took effect before sending it again, or send it with an Idempotency-Key}.
 *
 * <p>An {@code IOException}, so that adapters whose interfaces throw only I/O exceptions (OkHttp
 * interceptors) can raise it, and so that {@code catch (IOException e)} around a send sees it.
 * Immutable once thrown; the response (when the server answered) and the attempt records are kept
 * but not serialised.
 */
public class NotRetriedWriteException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String method;
  private final String endpoint;
  private final String requestId;
  private final String outcome;
  private final int status;
  private final Fault fault;
  private final String rule;
  private final int attempts;
  private final transient Object response;
  private final transient List<AttemptRecord> attemptRecords;

  /**
   * Creates the exception.
   *
   * @param method the request method
   * @param endpoint the endpoint, already redacted
   * @param requestId the server's request id as {@code "Name: value"}, or null
   * @param outcome what happened, e.g. {@code "HTTP 503"} or {@code "read timeout"}
   * @param status the status code, or -1 when no response came
   * @param fault the network fault, or null when a response came
   * @param rule the rule that decided, e.g. {@code http-503-unkeyed-write}
   * @param attempts attempts made, 1 or more
   * @param response the client's response object, or null
   * @param cause the network failure, or null
   * @param attemptRecords the records of the attempts made, in order
   * @throws NullPointerException if {@code attemptRecords} is null
   */
  public NotRetriedWriteException(
      String method,
      String endpoint,
      String requestId,
      String outcome,
      int status,
      Fault fault,
      String rule,
      int attempts,
      Object response,
      Throwable cause,
      List<AttemptRecord> attemptRecords) {
    super(
        method
            + " "
            + endpoint
            + " was not re-sent after "
            + outcome
            + " (rule "
            + rule
            + "; "
            + attempts
            + (attempts == 1 ? " attempt" : " attempts")
            + (requestId == null ? "" : "; " + requestId)
            + "): the request may have reached the server and carries no Idempotency-Key, so"
            + " sending it again could repeat its effect; check whether it took effect before"
            + " sending it again, or send it with an Idempotency-Key",
        cause);
    this.method = method;
    this.endpoint = endpoint;
    this.requestId = requestId;
    this.outcome = outcome;
    this.status = status;
    this.fault = fault;
    this.rule = rule;
    this.attempts = attempts;
    this.response = response;
    this.attemptRecords = List.copyOf(attemptRecords);
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
   * Returns the server's request id, as {@code "Name: value"}, when the response had one.
   *
   * @return the request id, or empty
   */
  public Optional<String> requestId() {
    return Optional.ofNullable(requestId);
  }

  /**
   * Returns what happened, e.g. {@code "HTTP 503"} or {@code "read timeout"}.
   *
   * @return the outcome
   */
  public String outcome() {
    return outcome;
  }

  /**
   * Returns the status code the server answered.
   *
   * @return the status, or -1 when no response came
   */
  public int status() {
    return status;
  }

  /**
   * Returns the network fault, when no response came.
   *
   * @return the fault, or empty
   */
  public Optional<Fault> fault() {
    return Optional.ofNullable(fault);
  }

  /**
   * Returns the rule that decided, e.g. {@code http-504-unkeyed-write}.
   *
   * @return the rule
   */
  public String rule() {
    return rule;
  }

  /**
   * Returns the number of attempts made: network attempts, this last one included.
   *
   * @return 1 or more
   */
  public int attempts() {
    return attempts;
  }

  /**
   * Returns the client's response object when the server answered (for the JDK client a {@code
   * java.net.http.HttpResponse} with its body read into memory).
   *
   * @return the response, or empty
   */
  public Optional<Object> response() {
    return Optional.ofNullable(response);
  }

  /**
   * Returns the records of the attempts made, in order, the held-back one last.
   *
   * @return an immutable list; empty when the thrower had none
   */
  public List<AttemptRecord> attemptRecords() {
    return attemptRecords == null ? List.of() : attemptRecords;
  }
}
