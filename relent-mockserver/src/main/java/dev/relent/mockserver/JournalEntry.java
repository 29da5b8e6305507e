package dev.relent.mockserver;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One request as the server saw and answered it. Credentials never appear: the values of {@code
 * Authorization}, {@code Cookie}, API-key and token headers and of credential-like query parameters
 * ({@code api_key}, {@code token}...) read {@value #REDACTED}; the body is kept only as its size
 * and SHA-256 digest.
 *
 * @param sequence 1 for the first request since the server started or was reset, then 2, 3...
 * @param arrivedAt when the request line arrived, by the server's {@link MockClock}
 * @param remoteAddress the client's {@code ip:port}
 * @param method the request method
 * @param target the request target (path and query), credentials redacted
 * @param headers the request headers in arrival order, credentials redacted
 * @param bodyBytes the size of the request body
 * @param bodySha256 the lowercase hex SHA-256 of the body, or null if it was empty or not read
 * @param endpoint the name of the route or resource that answered, or null if none matched
 * @param step the 0-based index of the step that answered, or -1 if no step did
 * @param status the status sent (or about to be sent after a delay), or 0 if a fault meant none
 * @param fault the fault's file name ({@code reset}, {@code stall}...), or null
 * @param outcome what answered: {@code step}, {@code rate-limited}, {@code quota-exceeded}, {@code
 *     concurrency-limited}, {@code preflight}, {@code no-route}, {@code created}, {@code replayed},
 *     {@code not-created}, {@code idempotency-problem}, {@code listed}, {@code read}, {@code
 *     not-found}, {@code method-not-allowed}, {@code too-large} or {@code bad-request}
 * @param onSystemClock whether {@code arrivedAt} was read from the system clock, so that the gaps
 *     between entries are whatever the machine took, not a test's exact virtual time
 */
public record JournalEntry(
    long sequence,
    Instant arrivedAt,
    String remoteAddress,
    String method,
    String target,
    Map<String, List<String>> headers,
    long bodyBytes,
    String bodySha256,
    String endpoint,
    int step,
    int status,
    String fault,
    String outcome,
    boolean onSystemClock) {

  /**
   * The text that stands in the journal instead of a credential: {@code REDACTED}, the marker the
   * Relent clients' log lines use too, so that a test looks for one marker everywhere.
   */
  public static final String REDACTED = "REDACTED";

  /**
   * Returns the first value of a header (names compared ignoring case), redacted if secret.
   *
   * @param name the header name
   * @return the value, or null if absent
   */
  public String header(String name) {
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
        return e.getValue().get(0);
      }
    }
    return null;
  }
}
