package dev.relent.mockserver;

import java.util.Map;

/**
 * A snapshot of a running server's counters since it started or was last reset. Endpoints are in
 * the scenario's order; outcomes and keys in alphabetical order. Immutable.
 *
 * <p>Outcomes are the words of {@link JournalEntry#outcome()}. Resource counts are per {@code
 * Idempotency-Key} value; requests without a key count under the empty string {@code ""}. Keys
 * beyond the first 100 000 of an endpoint count under {@code "(other)"}.
 */
public final class MockServerStats {

  private final long requests;
  private final int active;
  private final int peakActive;
  private final Map<String, Long> requestsPerEndpoint;
  private final Map<String, Map<String, Long>> outcomesPerEndpoint;
  private final Map<String, Long> resourcesCreated;
  private final Map<String, Map<String, Long>> resourcesCreatedPerKey;

  MockServerStats(
      long requests,
      int active,
      int peakActive,
      Map<String, Long> requestsPerEndpoint,
      Map<String, Map<String, Long>> outcomesPerEndpoint,
      Map<String, Long> resourcesCreated,
      Map<String, Map<String, Long>> resourcesCreatedPerKey) {
    this.requests = requests;
    this.active = active;
    this.peakActive = peakActive;
    this.requestsPerEndpoint = ordered(requestsPerEndpoint);
    this.outcomesPerEndpoint = ordered(outcomesPerEndpoint);
    this.resourcesCreated = ordered(resourcesCreated);
    this.resourcesCreatedPerKey = ordered(resourcesCreatedPerKey);
  }

  // Keeps the scenario's order, so that the JSON view reads like the file.
  private static <V> Map<String, V> ordered(Map<String, V> map) {
    return java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(map));
  }

  /**
   * Returns how many requests arrived (admin requests under {@code /__relent/} excluded).
   *
   * @return the request count
   */
  public long requests() {
    return requests;
  }

  /**
   * Returns how many requests are being answered right now (delayed and stalled ones included).
   *
   * @return the active request count
   */
  public int active() {
    return active;
  }

  /**
   * Returns the most requests that were being answered at once since the server started or was last
   * reset: the concurrency the clients actually produced.
   *
   * @return the peak active request count
   */
  public int peakActive() {
    return peakActive;
  }

  /**
   * Returns the requests each endpoint received, rejected ones included; unmatched requests count
   * under {@code "(no route)"}.
   *
   * @return endpoint name to request count
   */
  public Map<String, Long> requestsPerEndpoint() {
    return requestsPerEndpoint;
  }

  /**
   * Returns the requests an endpoint received.
   *
   * @param endpoint the endpoint name, such as {@code GET /flaky}
   * @return the count, 0 for an unknown name
   */
  public long requests(String endpoint) {
    return requestsPerEndpoint.getOrDefault(endpoint, 0L);
  }

  /**
   * Returns how an endpoint's requests were answered.
   *
   * @param endpoint the endpoint name
   * @return outcome to count; empty for an unknown name
   */
  public Map<String, Long> outcomes(String endpoint) {
    return outcomesPerEndpoint.getOrDefault(endpoint, Map.of());
  }

  /**
   * Returns how many resources an endpoint created.
   *
   * @param endpoint the resource endpoint's name, such as {@code /payments}
   * @return the count, 0 for an unknown name
   */
  public long resourcesCreated(String endpoint) {
    return resourcesCreated.getOrDefault(endpoint, 0L);
  }

  /**
   * Returns how many resources an endpoint created per {@code Idempotency-Key}: exactly one per key
   * when idempotency did its job.
   *
   * @param endpoint the resource endpoint's name
   * @return key to count ({@code ""} for requests without a key); empty for an unknown name
   */
  public Map<String, Long> resourcesCreatedPerKey(String endpoint) {
    return resourcesCreatedPerKey.getOrDefault(endpoint, Map.of());
  }

  /**
   * Returns whether {@code endpoint} names a resource endpoint.
   *
   * @param endpoint the endpoint name
   * @return true for a resource endpoint
   */
  public boolean isResource(String endpoint) {
    return resourcesCreated.containsKey(endpoint);
  }

  @Override
  public String toString() {
    return "MockServerStats{requests="
        + requests
        + ", active="
        + active
        + ", peakActive="
        + peakActive
        + ", perEndpoint="
        + requestsPerEndpoint
        + ", created="
        + resourcesCreated
        + "}";
  }
}
