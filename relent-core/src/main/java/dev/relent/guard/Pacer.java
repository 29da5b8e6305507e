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
 */
public interface Pacer {

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
   * Builder#build()}.
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
   * Returns the interval between two starts, {@code ceil(per / permits)} in nanoseconds.
   *
   * @return at least 1 ns
   */
  Duration interval();

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
    private PacerState state;
    private TimeSource time = TimeSource.system();

    Builder() {}

    /**
     * Sets the rate: {@code permits} starts per {@code per}. Required.
     *
     * @param permits starts per period, &ge; 1
     * @param per the period, &gt; 0
     * @return this builder
     * @throws NullPointerException if {@code per} is null
     * @throws IllegalArgumentException if {@code permits} &lt; 1 or {@code per} is not positive
     */
    public Builder withRate(int permits, Duration per) {
      long perNanos = Nanos.positiveNanos("per", per);
      if (permits < 1) {
        throw new IllegalArgumentException("permits must be >= 1: " + permits);
      }
      // Round up: never start faster than asked.
      this.intervalNanos = perNanos / permits + (perNanos % permits == 0 ? 0 : 1);
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
     * @throws IllegalStateException if no rate was set, or if {@code (burst - 1) * interval} does
     *     not fit a long of nanoseconds
     */
    public Pacer build() {
      if (intervalNanos == 0) {
        throw new IllegalStateException("rate must be set: call withRate(permits, per)");
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
      return new PacerImpl(
          intervalNanos, burst, tolerance, state == null ? PacerState.inMemory() : state, time);
    }
  }
}
