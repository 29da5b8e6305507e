package dev.relent.mockserver;

import java.util.ArrayList;
import java.util.List;

/**
 * The emulations of one level, the whole server or one endpoint, as configured: each may be null.
 * Immutable; {@link #start()} makes the running state for one server.
 */
record EmulationSettings(
    Latency latency,
    RateLimit rateLimit,
    DailyQuota dailyQuota,
    ConcurrentRequestLimit concurrencyLimit) {

  /**
   * Starts this level's emulations for one server.
   *
   * @return latency, rate limit, daily quota and concurrency limit, in this order, null where unset
   */
  Emulation[] start() {
    return new Emulation[] {
      latency == null ? null : latency.start(),
      rateLimit == null ? null : rateLimit.start(),
      dailyQuota == null ? null : dailyQuota.start(),
      concurrencyLimit == null ? null : concurrencyLimit.start()
    };
  }

  /**
   * The order in which a request meets the emulations of the server and of its endpoint: latency
   * first (it never rejects, so rejections are delayed too), then rate limits, daily quotas and
   * concurrency limits, each server-wide before the endpoint's own. A request counts against a
   * quota only once it passed the rate limits, and takes a slot only once it passed everything
   * else.
   *
   * @param server the server's emulations, from {@link #start()}
   * @param endpoint the endpoint's, from {@link #start()}
   * @return the emulations, or null if there are none
   */
  static Emulation[] inOrder(Emulation[] server, Emulation[] endpoint) {
    List<Emulation> out = new ArrayList<>();
    for (int i = 0; i < server.length; i++) {
      if (server[i] != null) {
        out.add(server[i]);
      }
      if (endpoint[i] != null) {
        out.add(endpoint[i]);
      }
    }
    return out.isEmpty() ? null : out.toArray(new Emulation[0]);
  }

  /** Resets every emulation of a level started by {@link #start()}. */
  static void reset(Emulation[] level) {
    for (Emulation e : level) {
      if (e != null) {
        e.reset();
      }
    }
  }
}
