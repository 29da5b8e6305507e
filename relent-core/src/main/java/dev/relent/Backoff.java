package dev.relent;

import dev.relent.internal.Nanos;
import dev.relent.internal.exec.ExponentialBackoff;
import dev.relent.time.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff with jitter: how long to wait before a retry when the server gave no hint.
 *
 * <p>For retry number {@code n} (1 = the first retry) the <em>window</em> is {@code min(cap, base *
 * 2^(n-1))}: with the defaults 0.5, 1, 2, 4, 8, 16, 30, 30 ... seconds. The {@link Jitter} then
 * picks the delay inside the window:
 *
 * <ul>
 *   <li>{@link Jitter#NONE}: the window itself;
 *   <li>{@link Jitter#FULL}: uniform in {@code [0, window]};
 *   <li>{@link Jitter#EQUAL}: {@code window/2} plus uniform in {@code [0, window - window/2]};
 *   <li>{@link Jitter#DECORRELATED}: uniform in {@code [base, min(cap, 3 * max(base, previous))]},
 *       where {@code previous} is the delay chosen for the previous retry; the first retry starts
 *       from {@code previous = base}, so its window is {@code min(cap, 3 * base)}.
 * </ul>
 *
 * <p>The cap bounds the window <em>before</em> the jitter is applied, so a delay never exceeds the
 * cap and the jitter is not lost once the window reaches it: at the cap, {@code FULL} is still
 * uniform over {@code [0, cap]}. In particular {@code DECORRELATED} draws from {@code U(base,
 * min(cap, 3 * previous))}, not {@code min(cap, U(base, 3 * previous))} (the AWS formula), which
 * would put every draw above the cap exactly at the cap and so synchronise the clients again.
 *
 * <p>All arithmetic saturates at the cap: any retry number up to {@link Integer#MAX_VALUE} and any
 * previous delay (zero, negative, {@link Long#MAX_VALUE}) give a delay in {@code [0, cap]}.
 *
 * <p>Defaults ({@link #ofDefaults()}): base <b>500 ms</b>, cap <b>30 s</b>, jitter <b>{@link
 * Jitter#FULL}</b>.
 *
 * <p>Implementations are immutable and thread-safe; the functions are pure and take their random
 * draw as an argument, so the same inputs always give the same delay.
 */
public interface Backoff {

  /**
   * Returns the default backoff: base 500 ms, cap 30 s, full jitter.
   *
   * @return the shared default backoff
   */
  static Backoff ofDefaults() {
    return ExponentialBackoff.DEFAULTS;
  }

  /**
   * Returns a new builder that starts from the defaults.
   *
   * @return a new builder, not thread-safe
   */
  static Builder builder() {
    return new Builder(ExponentialBackoff.DEFAULTS);
  }

  /**
   * Returns a new builder that starts from the settings of the given backoff.
   *
   * @param backoff the settings to start from
   * @return a new builder, not thread-safe
   * @throws NullPointerException if {@code backoff} is null
   */
  static Builder builder(Backoff backoff) {
    Objects.requireNonNull(backoff, "backoff cannot be null");
    return new Builder(backoff);
  }

  /**
   * Returns the window of the first retry.
   *
   * @return the base delay, positive
   */
  Duration base();

  /**
   * Returns the largest delay this backoff ever returns.
   *
   * @return the cap, at least the base
   */
  Duration cap();

  /**
   * Returns how the delay is randomised inside its window.
   *
   * @return the jitter kind
   */
  Jitter jitter();

  /**
   * Returns the delay before the given retry. Pure: the same arguments give the same result.
   *
   * <p>The draw maps linearly onto {@code [minNanos, windowNanos]} (rounded down): {@code 0} gives
   * the lower bound, {@code 1} the upper bound. A {@link dev.relent.time.RandomSource} yields
   * values in {@code [0, 1)}; {@code 1} itself is accepted too so that a test can pin the upper
   * edge of the envelope. A draw outside {@code [0, 1]} or {@code NaN} is a broken random source
   * and is rejected rather than silently clamped.
   *
   * @param retry the retry number, 1 for the first retry
   * @param previousDelayNanos the delay chosen for the previous retry; used only by {@link
   *     Jitter#DECORRELATED}, and ignored for retry 1 (which starts from the base); values below
   *     the base count as the base
   * @param random a uniform draw in {@code [0, 1]}
   * @return the delay in nanoseconds, in {@code [minNanos(...), windowNanos(...)]}, never above the
   *     cap and never negative
   * @throws IllegalArgumentException if {@code retry < 1}, or {@code random} is {@code NaN} or
   *     outside {@code [0, 1]}
   */
  long delayNanos(int retry, long previousDelayNanos, double random);

  /**
   * Returns the upper bound of the delay for the given retry: {@code min(cap, base * 2^(retry-1))},
   * or for {@link Jitter#DECORRELATED} {@code min(cap, 3 * max(base, previous))} (with {@code
   * previous = base} for retry 1). Saturates at the cap for any retry number, without overflow.
   *
   * @param retry the retry number, 1 for the first retry
   * @param previousDelayNanos the delay chosen for the previous retry; see {@link #delayNanos}
   * @return the window in nanoseconds, in {@code [base, cap]}
   * @throws IllegalArgumentException if {@code retry < 1}
   */
  long windowNanos(int retry, long previousDelayNanos);

  /**
   * Returns the lower bound of the delay for the given retry: the window for {@link Jitter#NONE},
   * {@code 0} for {@link Jitter#FULL}, {@code window / 2} (rounded down) for {@link Jitter#EQUAL},
   * and the base for {@link Jitter#DECORRELATED}.
   *
   * @param retry the retry number, 1 for the first retry
   * @param previousDelayNanos the delay chosen for the previous retry; see {@link #delayNanos}
   * @return the lower bound in nanoseconds, in {@code [0, windowNanos(...)]}
   * @throws IllegalArgumentException if {@code retry < 1}
   */
  long minNanos(int retry, long previousDelayNanos);

  /**
   * Builds a {@link Backoff}. Starts from the defaults (base 500 ms, cap 30 s, full jitter).
   * Mutable and not thread-safe; {@link #build()} copies the settings, so the builder may be
   * reused.
   */
  final class Builder {
    private Duration base;
    private Duration cap;
    private Jitter jitter;

    private Builder(Backoff from) {
      this.base = from.base();
      this.cap = from.cap();
      this.jitter = from.jitter();
    }

    /**
     * Sets the window of the first retry.
     *
     * @param base positive, at most {@link Long#MAX_VALUE} nanoseconds (about 292 years); default
     *     500 ms
     * @return this builder
     * @throws NullPointerException if {@code base} is null
     * @throws IllegalArgumentException if {@code base} is zero, negative or too large
     */
    public Builder withBase(Duration base) {
      this.base = Nanos.requirePositive(base, "base");
      return this;
    }

    /**
     * Sets the largest delay ever returned.
     *
     * @param cap positive, at most {@link Long#MAX_VALUE} nanoseconds (about 292 years), and at
     *     least the base (checked by {@link #build()}); default 30 s
     * @return this builder
     * @throws NullPointerException if {@code cap} is null
     * @throws IllegalArgumentException if {@code cap} is zero, negative or too large
     */
    public Builder withCap(Duration cap) {
      this.cap = Nanos.requirePositive(cap, "cap");
      return this;
    }

    /**
     * Sets how the delay is randomised inside its window.
     *
     * @param jitter the jitter kind; default {@link Jitter#FULL}
     * @return this builder
     * @throws NullPointerException if {@code jitter} is null
     */
    public Builder withJitter(Jitter jitter) {
      this.jitter = Objects.requireNonNull(jitter, "jitter cannot be null");
      return this;
    }

    /**
     * Returns a new immutable backoff with the current settings.
     *
     * @return a new backoff, thread-safe
     * @throws IllegalStateException if the cap is smaller than the base
     */
    public Backoff build() {
      if (cap.compareTo(base) < 0) {
        throw new IllegalStateException(
            "cap must be >= base: cap " + Durations.exact(cap) + ", base " + Durations.exact(base));
      }
      return new ExponentialBackoff(base, cap, jitter);
    }
  }
}
