package dev.relent.mockserver;

/**
 * The rate-limit headers of one answer, gathered from every rate limit and quota that counted the
 * request: {@code RateLimit-Policy} and {@code RateLimit} list them all (IETF httpapi draft,
 * structured-field form), the {@code X-RateLimit-*} headers show the one with the fewest requests
 * remaining. Not thread-safe: one per request, on its event loop.
 */
final class RateLimitHeaders {

  private StringBuilder policies;
  private StringBuilder states;
  private long limit;
  private long remaining;
  private long reset;

  /**
   * Adds one quota's state.
   *
   * @param policy its {@code RateLimit-Policy} item, such as {@code "default";q=10;w=60}
   * @param name its policy name
   * @param limit the requests it allows per window
   * @param remaining the requests left now
   * @param reset seconds until it is full again (or renews)
   */
  void add(String policy, String name, long limit, long remaining, long reset) {
    boolean first = policies == null;
    if (first) {
      policies = new StringBuilder();
      states = new StringBuilder();
    } else {
      policies.append(", ");
      states.append(", ");
    }
    policies.append(policy);
    states.append('"').append(name).append("\";r=").append(remaining).append(";t=").append(reset);
    if (first || remaining < this.remaining) {
      this.limit = limit;
      this.remaining = remaining;
      this.reset = reset;
    }
  }

  /** Writes the headers onto {@code ex}, if any quota counted the request. */
  void write(ServerExchange ex) {
    if (policies == null) {
      return;
    }
    ex.header("RateLimit-Policy", policies.toString());
    ex.header("RateLimit", states.toString());
    ex.header("X-RateLimit-Limit", Long.toString(limit));
    ex.header("X-RateLimit-Remaining", Long.toString(remaining));
    ex.header("X-RateLimit-Reset", Long.toString(reset));
  }
}
