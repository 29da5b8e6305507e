package dev.relent.sim;

import java.util.ArrayDeque;

/**
 * The real rate limiters of {@code bench/limiters.sh}, on virtual time: each decides a request at
 * the moment it reaches the limiter, in whole milliseconds as the real one counts, and says what
 * its answer carries. Not thread-safe: a trial is confined to one thread.
 */
interface Limiter {
  long MILLI = 1_000_000L;

  /**
   * Decides the request that reaches the limiter at {@code nowNanos} (virtual time from the trial's
   * start).
   *
   * @return the answer, its headers included
   */
  Answer decide(long nowNanos);

  /**
   * What an answer says: its status and the headers the batch reads ({@code -1} where absent).
   *
   * @param status 200 or 429
   * @param retryAfterSeconds {@code Retry-After} in seconds, or -1
   * @param limit {@code X-RateLimit-Limit}, or -1 (then none of the {@code X-RateLimit-*})
   * @param remaining {@code X-RateLimit-Remaining}
   * @param resetEpochSeconds {@code X-RateLimit-Reset}, epoch seconds rounded up
   * @param servedEpochMillis the server's wall clock when it decided, in epoch milliseconds: its
   *     {@code Date} is this rounded down to the second, and on loopback the batch's clock reads
   *     the same
   */
  record Answer(
      int status,
      long retryAfterSeconds,
      long limit,
      long remaining,
      long resetEpochSeconds,
      long servedEpochMillis) {
    static final Answer OK = new Answer(200, -1, -1, 0, 0, 0);
    static final Answer REFUSED = new Answer(429, -1, -1, 0, 0, 0);
    static final Answer REFUSED_RETRY_AFTER_1 = new Answer(429, 1, -1, 0, 0, 0);

    boolean accepted() {
      return status == 200;
    }
  }

  /** Whole milliseconds of virtual time, as nginx's and HAProxy's clocks count. */
  static long millis(long nanos) {
    return Math.floorDiv(nanos, MILLI);
  }

  /**
   * nginx {@code limit_req} (ngx_http_limit_req_module): a leaky bucket kept in thousandths of a
   * request and whole milliseconds. The zone's node starts with an excess of 0 at the first
   * request, which passes; a later request computes {@code excess = max(0, excess - rate * ms /
   * 1000 + 1000)}, {@code ms} the milliseconds since the last accepted request, and is refused when
   * that is above {@code burst * 1000}, changing nothing; an accepted one stores the excess and its
   * time. With burst 0 at 10 r/s a request passes only 100 ms or more after the last one that
   * passed; with {@code burst=20 nodelay}, 21 pass at once. A refusal is a bare 429, or one with
   * {@code Retry-After: 1} ({@code add_header ... always}).
   */
  final class TokenBucket implements Limiter {
    private final long ratePerSecond;
    private final long burst;
    private final Answer refused;
    private boolean seen;
    private long excess;
    private long lastMs;

    TokenBucket(long ratePerSecond, long burst, boolean retryAfter) {
      this.ratePerSecond = ratePerSecond;
      this.burst = burst;
      this.refused = retryAfter ? Answer.REFUSED_RETRY_AFTER_1 : Answer.REFUSED;
    }

    @Override
    public Answer decide(long nowNanos) {
      long now = millis(nowNanos);
      if (!seen) {
        seen = true;
        excess = 0;
        lastMs = now;
        return Answer.OK;
      }
      long ms = Math.max(0, now - lastMs);
      long next = Math.max(0, excess - ratePerSecond * 1000 * ms / 1000 + 1000);
      if (next > burst * 1000) {
        return refused;
      }
      excess = next;
      if (ms > 0) {
        lastMs = now;
      }
      return Answer.OK;
    }
  }

  /**
   * HAProxy's {@code http_req_rate(period)} on one stick-table entry (freq_ctr): the count of the
   * current period and of the previous one. The first request of the entry opens the first period
   * at its millisecond; a request in a later period rotates (previous = current, or 0 when a whole
   * period was skipped, the current then restarting at that request) and the periods stay aligned.
   * {@code track-sc0} counts the request first, refused ones included; the rule then reads {@code
   * current + floor(previous * (period - elapsed) / period)} ({@code read_freq_ctr_period}, with
   * its correction at very low rates: previous at most 1 and current 0 read as previous) and
   * answers 429 with {@code Retry-After: 1} when that is above the limit.
   */
  final class SlidingCounter implements Limiter {
    private final long limit;
    private final long periodMs;
    private boolean seen;
    private long tickMs;
    private long current;
    private long previous;

    SlidingCounter(long limit, long periodMs) {
      this.limit = limit;
      this.periodMs = periodMs;
    }

    @Override
    public Answer decide(long nowNanos) {
      long now = millis(nowNanos);
      count(now);
      return rate(now) > limit ? Answer.REFUSED_RETRY_AFTER_1 : Answer.OK;
    }

    /** update_freq_ctr_period: counts one request at {@code now}. */
    void count(long now) {
      if (!seen) {
        seen = true;
        tickMs = now;
        current = 1;
        previous = 0;
        return;
      }
      if (now - tickMs < periodMs) {
        current++;
        return;
      }
      previous = current;
      current = 1;
      tickMs += periodMs;
      if (now - tickMs >= periodMs) {
        previous = 0;
        tickMs = now;
      }
    }

    /** read_freq_ctr_period at {@code now}. */
    long rate(long now) {
      long curr = current;
      long past = previous;
      long elapsed = now - tickMs;
      if (elapsed >= periodMs) {
        elapsed -= periodMs;
        past = elapsed < periodMs ? curr : 0;
        curr = 0;
      }
      if (curr == 0 && past <= 1) {
        return past;
      }
      return curr + past * (periodMs - elapsed) / periodMs;
    }
  }

  /**
   * {@code bench/HeaderLimiter.java}: a fixed window that opens at the first request after the
   * previous one closed, or a moving window (a sliding log of the requests served); a refused
   * request is not counted. Every answer carries {@code X-RateLimit-Limit}, {@code -Remaining} (the
   * limit less the requests counted, this one included), {@code -Reset} (epoch seconds, rounded
   * up), {@code Retry-After} (seconds to the reset, rounded up, at least 1) and the JDK server's
   * {@code Date} (whole seconds). Its wall clock is the trial's virtual time plus {@code epochMs},
   * so that a window's reset falls at any point of a second.
   */
  final class HeaderWindow implements Limiter {
    private final boolean moving;
    private final int limit;
    private final long windowMs;
    private final long epochMs;
    private long windowStart = -1;
    private int inWindow;
    private final ArrayDeque<Long> served = new ArrayDeque<>();

    HeaderWindow(boolean moving, int limit, long windowMs, long epochMs) {
      this.moving = moving;
      this.limit = limit;
      this.windowMs = windowMs;
      this.epochMs = epochMs;
    }

    @Override
    public Answer decide(long nowNanos) {
      long now = epochMs + millis(nowNanos);
      boolean allowed;
      long reset;
      int count;
      if (moving) {
        while (!served.isEmpty() && served.peekFirst() <= now - windowMs) {
          served.pollFirst();
        }
        allowed = served.size() < limit;
        if (allowed) {
          served.addLast(now);
        }
        count = served.size();
        reset = served.isEmpty() ? now : served.peekFirst() + windowMs;
      } else {
        if (windowStart < 0 || now >= windowStart + windowMs) {
          windowStart = now;
          inWindow = 0;
        }
        allowed = inWindow < limit;
        if (allowed) {
          inWindow++;
        }
        count = inWindow;
        reset = windowStart + windowMs;
      }
      long retryAfter = Math.max(1, Math.floorDiv(reset - now + 999, 1000));
      return new Answer(
          allowed ? 200 : 429,
          retryAfter,
          limit,
          Math.max(0, limit - count),
          Math.floorDiv(reset + 999, 1000),
          now);
    }
  }
}
