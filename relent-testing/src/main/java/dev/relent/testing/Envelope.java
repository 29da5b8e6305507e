package dev.relent.testing;

import dev.relent.Backoff;
import dev.relent.Jitter;
import java.time.Duration;
import java.util.Objects;

/**
 * The range a gap between two attempts may fall in, for each retry: what {@link
 * JournalAssert#spacedWithin(Envelope)} checks. Built from a {@link Backoff}: retry {@code n} may
 * wait between the backoff's lower bound and its window ({@code [0, window)} for full jitter,
 * {@code [window/2, window]} for equal, exactly the window for none, {@code [base, cap]} for
 * decorrelated, which depends on the previous draw), plus a tolerance for what the wait does not
 * cover: the attempt's own latency and the clock's resolution.
 *
 * <p>With full jitter the lower bound is zero, so a client that never waits stays inside the
 * envelope; {@link JournalAssert#gapsLookJittered(Envelope)} catches it by where the gaps fall
 * inside their ranges.
 *
 * <p>Immutable and thread-safe.
 */
public final class Envelope {
  /** The tolerance of {@link #of(Backoff)}: the journal stamps arrivals to the millisecond. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMillis(1);

  private final Backoff backoff;
  private final long toleranceNanos;

  private Envelope(Backoff backoff, Duration tolerance) {
    this.backoff = backoff;
    this.toleranceNanos = tolerance.toNanos();
  }

  /**
   * Returns the envelope of a backoff with a tolerance of 1 ms.
   *
   * @param backoff the client's backoff
   * @return the envelope
   * @throws NullPointerException if {@code backoff} is null
   */
  public static Envelope of(Backoff backoff) {
    return of(backoff, DEFAULT_TOLERANCE);
  }

  /**
   * Returns the envelope of a backoff with a tolerance: a gap may exceed the window by this much
   * (latency) and fall short of the lower bound by the clock's resolution.
   *
   * @param backoff the client's backoff
   * @param tolerance zero or more
   * @return the envelope
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code tolerance} is negative
   */
  public static Envelope of(Backoff backoff, Duration tolerance) {
    Objects.requireNonNull(backoff, "backoff cannot be null");
    Objects.requireNonNull(tolerance, "tolerance cannot be null");
    if (tolerance.isNegative()) {
      throw new IllegalArgumentException("tolerance must be >= 0: " + tolerance);
    }
    return new Envelope(backoff, tolerance);
  }

  /**
   * Returns the shortest gap allowed before the given retry.
   *
   * @param retry 1 for the gap between the first and second attempt
   * @return nanoseconds
   */
  public long minNanos(int retry) {
    long min =
        backoff.jitter() == Jitter.DECORRELATED
            ? backoff.base().toNanos()
            : backoff.minNanos(retry, 0);
    return Math.max(0L, min - toleranceNanos);
  }

  /**
   * Returns the longest gap allowed before the given retry.
   *
   * @param retry 1 for the gap between the first and second attempt
   * @return nanoseconds
   */
  public long maxNanos(int retry) {
    long max =
        backoff.jitter() == Jitter.DECORRELATED
            ? backoff.cap().toNanos()
            : backoff.windowNanos(retry, 0);
    return max > Long.MAX_VALUE - toleranceNanos ? Long.MAX_VALUE : max + toleranceNanos;
  }

  /**
   * Checks that the backoff draws its waits uniformly between its bounds, as {@link #position(int,
   * long)} assumes.
   *
   * @throws IllegalArgumentException if the jitter is not full or equal: with none every gap is
   *     exact, with decorrelated each range depends on the draw before
   */
  void requireUniformJitter() {
    Jitter jitter = backoff.jitter();
    if (jitter != Jitter.FULL && jitter != Jitter.EQUAL) {
      throw new IllegalArgumentException(
          "judging jitter needs full or equal jitter, whose waits are uniform in their window, but"
              + " the backoff's jitter is "
              + jitter
              + (jitter == Jitter.NONE
                  ? ": every gap is exact, and spacedWithin checks it"
                  : ": each wait's range depends on the wait before"));
    }
  }

  /**
   * Returns where a gap falls between the backoff's own bounds for its retry, without the
   * tolerance: 0 at the lower bound, 1 at the window. Full and equal jitter draw uniformly between
   * the two, so the positions of many gaps average about 0.5.
   */
  double position(int retry, long gapNanos) {
    long floor = backoff.minNanos(retry, 0);
    return (double) (gapNanos - floor) / (backoff.windowNanos(retry, 0) - floor);
  }

  @Override
  public String toString() {
    return "Envelope[" + backoff + ", tolerance " + Duration.ofNanos(toleranceNanos) + "]";
  }
}
