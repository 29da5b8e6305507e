package dev.relent.http.adapter;

import dev.relent.http.DecisionTable;
import dev.relent.http.HeaderLookup;

/**
 * How {@link HttpOutcomes} reads a client's response type: the request's method, URI and key, the
 * status and the headers. One implementation per client library (the JDK client's is {@code
 * RelentHttpClient.responseAccess()}); this is what makes the decision table, the hint reader and
 * the log line reusable by every adapter.
 *
 * <p>Implementations must be thread-safe and must not throw.
 *
 * @param <R> the client's response type
 */
public interface ResponseAccess<R> {

  /**
   * Returns the method of the request that produced the response.
   *
   * @param response the response
   * @return the method, e.g. {@code "POST"}
   */
  String method(R response);

  /**
   * Returns the URI of the request, unredacted; it is redacted before anything writes it down.
   *
   * @param response the response
   * @return the URI as a string
   */
  String uri(R response);

  /**
   * Returns whether the request carried an {@code Idempotency-Key}.
   *
   * @param response the response
   * @return true if keyed
   */
  boolean keyed(R response);

  /**
   * Returns the status code.
   *
   * @param response the response
   * @return the status
   */
  int status(R response);

  /**
   * Returns the response headers.
   *
   * @param response the response
   * @return the headers, never null
   */
  HeaderLookup headers(R response);

  /**
   * Returns the request's own decision table, when the adapter supports per-request tables.
   *
   * @param response the response
   * @return the table, or null for the client's (the default)
   */
  default DecisionTable table(R response) {
    return null;
  }
}
