package dev.relent.guard;

import dev.relent.internal.Nanos;
import dev.relent.spi.PacerState;
import dev.relent.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Limits how often operations <em>start</em>, for every caller that shares it: at {@code 90} per
 * minute, one start every 666.67 ms. Retries draw from the same pacer as first attempts, and a
 * server's "slow down" ({@code 429}, {@code Retry-After}, rate-limit headers) pauses it for every
 * caller through {@link #pauseUntil(long)}.
 *
 * <p>Algorithm: GCRA, the generic cell rate algorithm in its virtual-scheduling form (ITU-T I.371;
 * also Brandur Leach, "Rate limiting, cells, and GCRA"). One number, the theoretical arrival time
 * {@code tat}, holds the schedule; a caller arriving at {@code now} may start at {@code max(now,
 * pausedUntil, tat - tau)}, and reserving that start moves {@code tat} to {@code max(tat, start) +
 * T}, where {@code T} is the interval and {@code tau = (burst - 1) * T} the burst tolerance. The
 * pacer reserves a start and says how long to wait for it; it never waits itself.
 *
 * <p>Rounding: {@code T = ceil(per / permits)} in nanoseconds, so the pacer is never faster than
 * asked: 90 per minute gives {@code T = 666 666 667 ns}, and 600 starts from {@code t = 0} end at
 * {@code 599 * T}, 400 ns more than the exact 399.333 s.
 *
 * <p>Defaults: burst <b>1</b> (strictly spaced starts); the rate has no default. Thread-safe; the
 * schedule lives in a {@link PacerState}, in memory by default, or in a shared store.
 *
 * <p>Time: the decision methods ({@link #tryAcquire}, {@link #refund}, {@link #pauseUntil}) are the
 * executor's API: they take readings of the executor's ticker, read once per attempt and handed to
 * every guard, and never read time themselves. The inspection methods ({@link #pausedUntil()},
 * {@link #pauseRemaining()}) read the pacer's own {@linkplain Builder#withTime time source}; give
 * the pacer and the executor the same one.
 *
 * <p><b>Adaptive pacing.</b> {@link #adaptive()} (or {@link Builder#adaptive()}) learns the rate
 * instead of being told it; a rate set with {@link Builder#withRate} becomes a ceiling the pacer
 * may go below. The executor feeds it what every attempt said: {@link #observeQuota} (the server's
 * remaining requests and the time to their reset, used first: {@code remaining} starts before the
 * reset and the next at it, {@code (remaining + 1) / reset}, is the rate the server allows), {@link
 * #onThrottled} (a 429 or another "slow down") and {@link #onAccepted} (an answer that was not a
 * throttle), from which a congestion controller ({@link Congestion}) finds the rate when the server
 * says nothing about its quota. A fixed-rate pacer ignores all three.
 */
public interface Pacer {

  /**
   * The congestion controller of an {@linkplain Builder#adaptive adaptive} pacer: how the rate
   * falls on a throttled answer and grows while none comes.
   */
  enum Congestion {
    /**
     * CUBIC (Ha, Rhee and Xu, 2008), as the AWS SDKs' adaptive retry mode applies it to a request
     * rate: on a throttle the rate at that moment becomes {@code wMax} and the rate drops to {@code
     * beta * wMax}; afterwards it follows {@code C * (t - K)^3 + wMax} with {@code K = cbrt(wMax *
     * (1 - beta) / C)}, t in seconds since the throttle: a quick return to {@code wMax}, a plateau
     * there, then a probe above it. beta 0.7, C 0.4 (starts per second per second cubed).
     */
    CUBIC,
    /**
     * Multiplicative decrease with a memory of the rate refused: on a throttle the rate drops to
     * {@code beta} (0.9) times the rate the refused round was sent at, times the share of that
     * round not refused; that refused rate is {@code wMax}. While answers come the rate climbs back
     * to 98 % of {@code wMax} by 1 % of it per answer, then probes above it, slowly at first and
     * faster the longer no throttle comes; the longer the round that set {@code wMax}, the more
     * patient the probe. Counted in answers, so the same at 2 requests a second as at 200. Gentler
     * than CUBIC at the few requests per second of a web API's quota.
     */
    AIMD,
    /**
     * Brackets the limit: a refused start came less than one limiter interval after the accepted
     * start before it (true of every token bucket, whatever its burst), so the slowest refused gap
     * is a lower bound of the interval, and a pace at which 3 starts in a row are accepted is an
     * upper bound. The first refusal sets the pace to the rate of starts accepted over the last
     * second, never below it (one start every 250 ms if none was); each pace that holds is followed
     * by a faster one (half the interval while the refused bound is far, halfway to it when near),
     * down to 3 % above the refused bound; a faster pace that is refused goes back to the one that
     * held, a pace refused before it held doubles, and a pace that held and then sees one refusal
     * slows by 3 %. After 128 accepts in a row it probes 3 % below the bound, twice as patiently
     * after each probe refused; a bound that only unpaced starts gave is probed after 8 and dropped
     * if the probe holds. On a real limiter it finds the interval within a few percent in about a
     * dozen starts and a few refusals. On a state shared by processes that keeps a controller
     * ({@link dev.relent.spi.PacerState#updateControl}, Redis's does) the fleet learns one interval
     * from all of its answers.
     */
    BRACKET
  }

  /**
   * Returns a new adaptive pacer without a ceiling: it does not pace until the server first answers
   * with a quota or a throttle, then paces at the rate it learns. The default {@link Congestion
   * controller} is {@link Congestion#AIMD}; the slowest rate is 1 start per 2 s.
   *
   * @return a new adaptive pacer with its own in-memory schedule
   */
  static Pacer adaptive() {
    return builder().adaptive().build();
  }

  /**
   * Returns a new pacer allowing {@code permits} starts per {@code per}, strictly spaced (burst 1).
   *
   * @param permits starts per period, &ge; 1
   * @param per the period, &gt; 0
   * @return a new pacer with its own in-memory schedule
   * @throws NullPointerException if {@code per} is null
   * @throws IllegalArgumentException if {@code permits} &lt; 1 or {@code per} is not positive
   */
  static Pacer of(int permits, Duration per) {
    return builder().withRate(permits, per).build();
  }

  /**
   * Returns a builder; {@link Builder#withRate(int, Duration)} must be called before {@link
   * Builder#build()} unless the pacer is {@linkplain Builder#adaptive() adaptive}.
   *
   * @return a new builder
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Reserves one start.
   *
   * @param nowNanos the executor's ticker reading
   * @param maxWaitNanos the longest wait the caller accepts, for example the deadline left
   * @return {@code >= 0}: a start is reserved at {@code now + result} (0 = go now; more = wait that
   *     long first); {@code < 0}: refused because the wait would exceed {@code maxWaitNanos},
   *     {@code -result} is the wait that would have been needed (&gt; 0), and nothing is reserved
   * @throws IllegalArgumentException if {@code maxWaitNanos} is negative
   */
  long tryAcquire(long nowNanos, long maxWaitNanos);

  /**
   * Gives back a reserved start that will not be used, for example because the caller was cancelled
   * while waiting for it. Best effort: the schedule moves back by one interval only if {@code
   * reservedAtNanos} is the newest reserved start (or shares its time with it); otherwise nothing
   * changes. Refund each reservation at most once.
   *
   * @param reservedAtNanos the reserved start: {@code now + result} of {@link #tryAcquire}
   */
  void refund(long reservedAtNanos);

  /**
   * Pauses every caller that shares this pacer: no start is reserved before {@code untilNanos}.
   * Never shortens an existing pause; starts reserved before this call keep their time.
   *
   * @param untilNanos a reading of the same ticker as {@code now}
   */
  void pauseUntil(long untilNanos);

  /**
   * Returns the interval between two starts, {@code ceil(per / permits)} in nanoseconds; for an
   * adaptive pacer, the interval it has learned by now (1 ns while it does not pace yet).
   *
   * @return at least 1 ns
   */
  Duration interval();

  /**
   * Returns how long a caller about to reserve a start should wait before it reserves, so that the
   * pacer books one start at a time: while another caller's booked start is still to come, a start
   * booked now would be spaced at today's interval, and an interval learned before that start comes
   * would miss it. The executor waits that long without a reservation, then asks again. Reads no
   * time and reserves nothing.
   *
   * @param nowNanos the executor's ticker reading
   * @return the wait before reserving, 0 to reserve now (the default)
   */
  default long deferNanos(long nowNanos) {
    return 0;
  }

  /**
   * Returns whether starts reserved before a pause wait for it too: the executor checks, when a
   * reserved start comes, whether a pause has begun since ({@link #pausedUntilNanos()}) and if so
   * reserves a new start after it. True for an adaptive pacer; a fixed-rate pacer keeps the
   * reserved starts' times.
   *
   * @return false unless the pacer is adaptive
   */
  default boolean holdsReservedStarts() {
    return false;
  }

  /**
   * Returns whether the answer this pacer read last ({@link #observeQuota}) said none of a window
   * of the server's quota is left, and the pacer holds its starts until the window lets the next
   * one go: it learns the window's length, so it may let a start go before a reset stated in whole
   * seconds. A success that says so (but for a quota exhausted for long) then pauses nothing; the
   * pacer alone decides when the next start goes.
   *
   * @return false unless the pacer is adaptive with {@link Congestion#BRACKET} and holds so
   */
  default boolean holdsEmptyWindows() {
    return false;
  }

  /**
   * Returns the current pause as a reading of the executor's ticker, for the executor's check of
   * {@link #holdsReservedStarts()}; reads no time.
   *
   * @return the ticker reading before which nothing starts, {@link Long#MIN_VALUE} if never paused
   *     (or if the pacer does not say)
   */
  default long pausedUntilNanos() {
    return Long.MIN_VALUE;
  }

  /**
   * Returns whether this pacer's state is shared with other processes ({@link
   * PacerState#isShared()}): a scope that owns it then writes its pauses into it as well, so that
   * the pause holds for every process.
   *
   * @return false for a pacer whose state is this process's alone, the default
   */
  default boolean sharesState() {
    return false;
  }

  /**
   * Returns whether this pacer learns its rate from what the server says ({@link
   * Builder#adaptive()}).
   *
   * @return false for a fixed-rate pacer
   */
  default boolean isAdaptive() {
    return false;
  }

  /**
   * Tells the pacer what the server said about its quota: {@code remaining} more requests are
   * allowed before the window resets, {@code resetNanos} after the attempt sent at {@code
   * sentAtNanos}, and the next at the reset. An adaptive pacer spaces its starts so that no more
   * than that many start before the reset, counting the starts it reserved since {@code
   * sentAtNanos} against {@code remaining} (the server had not seen them yet): at most {@code
   * (remaining + 1) / reset} until then. Values that cannot be true are ignored: a negative {@code
   * remaining}, a reset of zero or less (in the past). Whatever they say, the pacer never goes
   * faster than its ceiling or slower than its slowest rate. A fixed-rate pacer ignores this. Never
   * allocates.
   *
   * @param sentAtNanos the executor's ticker reading when the attempt that carried it began
   * @param remaining requests the server still allows in the window
   * @param resetNanos the time from {@code sentAtNanos} until the window resets
   */
  default void observeQuota(long sentAtNanos, long remaining, long resetNanos) {}

  /**
   * Tells the pacer what the server said about its quota, as {@link #observeQuota(long, long,
   * long)} does, and its policy: {@code quota} requests per {@code windowNanos}. An adaptive pacer
   * whose schedule is its own compares the policy with its own starts: when the server counts more
   * of the quota spent than this pacer started in the window (the window widened by the attempt's
   * time in flight, since the server may count a start a little earlier or later than it was made),
   * or refuses a start before this pacer started {@code quota} in it, another caller spends the
   * account, and the pacer leaves it room as after a refused start within the quota. A pacer whose
   * schedule is shared with other processes cannot tell their starts from a stranger's, and uses
   * the quota only. The default passes the quota to {@link #observeQuota(long, long, long)}. Never
   * allocates.
   *
   * @param sentAtNanos the executor's ticker reading when the attempt that carried it began
   * @param remaining requests the server still allows in the window; negative when not stated
   * @param resetNanos the time from {@code sentAtNanos} until the window resets; negative when not
   *     stated
   * @param quota the requests the policy allows per window; negative when not stated
   * @param windowNanos the policy's window; negative when not stated
   */
  default void observeQuota(
      long sentAtNanos, long remaining, long resetNanos, long quota, long windowNanos) {
    if (remaining >= 0) {
      observeQuota(sentAtNanos, remaining, resetNanos);
    }
  }

  /**
   * Tells the pacer that the server answered an attempt without throttling it (any answer but a 429
   * or another "slow down"). An adaptive pacer's congestion controller grows the rate. A fixed-rate
   * pacer ignores this. Never allocates and reads no time.
   *
   * @param sentAtNanos the executor's ticker reading when the attempt began
   */
  default void onAccepted(long sentAtNanos) {}

  /**
   * Tells the pacer that the server throttled an attempt (a 429, or a 503 the caller's classifier
   * calls a rate limit). An adaptive pacer lowers its rate once per round: throttles of attempts
   * sent before its last decrease were sent at the old rate and lower it no further. A fixed-rate
   * pacer ignores this; a {@link #pauseUntil pause} is separate.
   *
   * @param sentAtNanos the executor's ticker reading when the throttled attempt began
   * @param nowNanos the executor's ticker reading now
   */
  default void onThrottled(long sentAtNanos, long nowNanos) {}

  /**
   * Returns how many starts may go at once after a quiet period.
   *
   * @return the burst, &ge; 1
   */
  int burst();

  /**
   * Returns when the current pause ends, read with the {@linkplain Builder#withTime time source}.
   *
   * @return the instant before which nothing starts; empty if the pacer is not paused now
   */
  Optional<Instant> pausedUntil();

  /**
   * Returns how long the current pause lasts from now, read with the {@linkplain Builder#withTime
   * time source}.
   *
   * @return the time left; {@link Duration#ZERO} if the pacer is not paused now
   */
  Duration pauseRemaining();

  /**
   * Builds a {@link Pacer}. Mutable and not thread-safe; {@link #build()} may be called repeatedly.
   */
  final class Builder {
    private long intervalNanos;
    private int burst = 1;
    private Congestion congestion;
    private long slowestIntervalNanos = 2_000_000_000L;
    private PacerState state;
    private TimeSource time = TimeSource.system();

    Builder() {}

    /**
     * Sets the rate: {@code permits} starts per {@code per}. Required for a fixed-rate pacer; for
     * an {@linkplain #adaptive() adaptive} one, the ceiling it never exceeds and the rate it starts
     * at (default: no ceiling).
     *
     * @param permits starts per period, &ge; 1
     * @param per the period, &gt; 0
     * @return this builder
     * @throws NullPointerException if {@code per} is null
     * @throws IllegalArgumentException if {@code permits} &lt; 1 or {@code per} is not positive
     */
    public Builder withRate(int permits, Duration per) {
      this.intervalNanos = intervalOf(permits, per, "rate");
      return this;
    }

    /** {@code ceil(per / permits)}, refusing what is not a rate. */
    private static long intervalOf(int permits, Duration per, String what) {
      long perNanos = Nanos.positiveNanos("per", per);
      if (permits < 1) {
        throw new IllegalArgumentException(
            "permits must be >= 1 (a "
                + what
                + " of "
                + permits
                + " would start nothing; for an adaptive pacer without a ceiling, leave the rate"
                + " unset): "
                + permits);
      }
      // Round up: never start faster than asked.
      return perNanos / permits + (perNanos % permits == 0 ? 0 : 1);
    }

    /**
     * Makes the pacer learn its rate, with the default congestion controller ({@link
     * Congestion#AIMD}, chosen by measurement in the simulator's queue model): see {@link Pacer}. A
     * rate set with {@link #withRate} becomes the ceiling.
     *
     * @return this builder
     */
    public Builder adaptive() {
      return adaptive(Congestion.AIMD);
    }

    /**
     * Makes the pacer learn its rate with the given congestion controller.
     *
     * @param congestion how the rate reacts to throttles
     * @return this builder
     * @throws NullPointerException if {@code congestion} is null
     */
    public Builder adaptive(Congestion congestion) {
      this.congestion = Objects.requireNonNull(congestion, "congestion cannot be null");
      return this;
    }

    /**
     * Sets the slowest rate an adaptive pacer goes down to, whatever the server says; default 1
     * start per 2 s (the AWS SDKs' floor). A server that wants less says so with a pause ({@code
     * Retry-After}), which still applies.
     *
     * @param permits starts per period, &ge; 1
     * @param per the period, &gt; 0
     * @return this builder
     * @throws NullPointerException if {@code per} is null
     * @throws IllegalArgumentException if {@code permits} &lt; 1 or {@code per} is not positive
     */
    public Builder withSlowestRate(int permits, Duration per) {
      this.slowestIntervalNanos = intervalOf(permits, per, "slowest rate");
      return this;
    }

    /**
     * Sets how many starts may go at once after a quiet period; default 1 (strictly spaced). The
     * long-run rate stays the same.
     *
     * @param burst &ge; 1
     * @return this builder
     * @throws IllegalArgumentException if {@code burst} &lt; 1
     */
    public Builder withBurst(int burst) {
      if (burst < 1) {
        throw new IllegalArgumentException("burst must be >= 1: " + burst);
      }
      this.burst = burst;
      return this;
    }

    /**
     * Keeps the schedule in the given state, for example one shared through Redis; default: a new
     * in-memory state for each pacer built. Pacers built with the same state share one schedule and
     * must have the same rate and burst.
     *
     * @param state where the schedule lives
     * @return this builder
     * @throws NullPointerException if {@code state} is null
     */
    public Builder withState(PacerState state) {
      this.state = Objects.requireNonNull(state, "state cannot be null");
      return this;
    }

    /**
     * Sets the time source the inspection methods read ({@link Pacer#pausedUntil()}, {@link
     * Pacer#pauseRemaining()}); default {@link TimeSource#system()}. Give it the executor's time
     * source, so that both read the same ticker: the decision methods the executor calls take the
     * executor's ticker reading instead of reading one themselves.
     *
     * @param time the time source
     * @return this builder
     * @throws NullPointerException if {@code time} is null
     */
    public Builder withTime(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time cannot be null");
      return this;
    }

    /**
     * Builds the pacer.
     *
     * @return a new pacer
     * @throws IllegalStateException if no rate was set on a fixed-rate pacer, or if {@code (burst -
     *     1) * interval} does not fit a long of nanoseconds
     */
    public Pacer build() {
      PacerState schedule = state == null ? PacerState.inMemory() : state;
      if (congestion != null) {
        return new AdaptivePacer(
            congestion,
            intervalNanos == 0 ? 1 : intervalNanos,
            Math.max(slowestIntervalNanos, intervalNanos),
            burst,
            schedule,
            time);
      }
      if (intervalNanos == 0) {
        throw new IllegalStateException(
            "rate must be set: call withRate(permits, per), or adaptive() to learn it");
      }
      long tolerance;
      try {
        tolerance = Math.multiplyExact(burst - 1L, intervalNanos);
      } catch (ArithmeticException overflow) {
        throw new IllegalStateException(
            "burst ("
                + burst
                + ") times interval ("
                + intervalNanos
                + " ns) must fit a long of nanoseconds",
            overflow);
      }
      return new PacerImpl(intervalNanos, burst, tolerance, schedule, time);
    }
  }
}
