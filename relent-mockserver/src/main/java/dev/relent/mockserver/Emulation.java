package dev.relent.mockserver;

/**
 * One running emulation of a server's limits, with its state: a {@link RateLimit}, a {@link
 * DailyQuota}, a {@link ConcurrentRequestLimit} or a {@link Latency}. Each of those settings starts
 * a fresh one per server, so that servers sharing a scenario never share counters.
 *
 * <p>Design: the engine calls {@link #admit} for every request that matched a route, server-wide
 * emulations before the route's own, in the order {@link EmulationSettings#inOrder} gives; the
 * first rejection answers the request. An emulation that counts a quota adds its state to the
 * answer's {@link RateLimitHeaders} whether it admits or rejects; one that holds a slot while the
 * request runs hands it to the {@link ServerExchange}, which gives it back when the answer is
 * complete or the connection closes. Implementations are thread-safe and never block: they run on
 * the event loops.
 */
interface Emulation {

  /**
   * Counts the request against this emulation.
   *
   * @param ex the request, planned from its line and headers
   * @param clock the server's clock
   * @param shown the rate-limit headers of the answer, to add this emulation's quota to
   * @return null to let the request through, else the answer that rejects it
   */
  Rejection admit(ServerExchange ex, MockClock clock, RateLimitHeaders shown);

  /** Starts over: forgets every count, except the slots of requests still being answered. */
  void reset();

  /**
   * The answer to a rejected request: a JSON body, and {@code Retry-After} if {@code retryAfter} is
   * 0 or more (whole seconds).
   */
  record Rejection(String outcome, int status, long retryAfter, String json) {

    /** Answers {@code ex} with this rejection, after the rate-limit headers already on it. */
    void answer(ServerExchange ex) {
      if (retryAfter >= 0) {
        ex.header("Retry-After", Long.toString(retryAfter));
      }
      ex.outcome = outcome;
      ex.json(status, json);
    }
  }

  /** The statuses an emulation may reject with. */
  IntRange REJECT_STATUS = new IntRange("status", 400, 599);

  /** {@code a / b} rounded up, for {@code b > 0}. */
  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /** Milliseconds as whole seconds, rounded up: a wait never ends earlier than announced. */
  static long ceilSeconds(long millis) {
    return ceilDiv(millis, 1000L);
  }
}
