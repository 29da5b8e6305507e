package dev.relent.http;

import dev.relent.http.HintHeaders.Name;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The unstructured dialect: {@code X-RateLimit-Remaining} with {@code -Limit} and {@code -Reset}
 * (GitHub, Twitter and most APIs before the IETF draft), and the same as {@code X-Rate-Limit-*}.
 * Counts are ASCII digits; the reset is delta seconds, possibly with a fraction, or an epoch in
 * seconds (from 1e9) or milliseconds (from 1e12), measured against the response's {@code Date}. No
 * string makes these methods throw.
 */
final class XRateLimitFields {
  /** The two spellings, in the order they are tried. */
  enum Family {
    X_RATELIMIT(
        "X-RateLimit-", Name.X_RATELIMIT_REMAINING, Name.X_RATELIMIT_RESET, Name.X_RATELIMIT_LIMIT),
    X_RATE_LIMIT(
        "X-Rate-Limit-",
        Name.X_RATE_LIMIT_REMAINING,
        Name.X_RATE_LIMIT_RESET,
        Name.X_RATE_LIMIT_LIMIT);

    final String prefix;
    final Name remaining;
    final Name reset;
    final Name limit;

    Family(String prefix, Name remaining, Name reset, Name limit) {
      this.prefix = prefix;
      this.remaining = remaining;
      this.reset = reset;
      this.limit = limit;
    }
  }

  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final long EPOCH_SECONDS_FROM = 1_000_000_000L;
  private static final long EPOCH_MILLIS_FROM = 1_000_000_000_000L;

  private XRateLimitFields() {}

  /** The family's limit, or null when its {@code Remaining} is absent or not a count. */
  static RateLimitStatus read(HintHeaders headers, Family family, Instant now) {
    String left = headers.get(family.remaining);
    long r = left == null ? -1 : integer(left);
    if (r < 0) {
      return null;
    }
    String reset = headers.get(family.reset);
    String limit = headers.get(family.limit);
    long waitNanos = reset == null ? -1 : resetWait(reset, now, headers.get(Name.DATE));
    long l = limit == null ? -1 : integer(limit);
    String source =
        family.prefix
            + "Remaining: "
            + left
            + (reset == null ? "" : ", " + family.prefix + "Reset: " + reset);
    return new RateLimitStatus(
        Optional.empty(),
        l < 0 ? OptionalLong.empty() : OptionalLong.of(l),
        OptionalLong.of(r),
        waitNanos < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(waitNanos)),
        Optional.empty(),
        Optional.empty(),
        RateLimitStatus.REQUESTS,
        source);
  }

  /** Whether the limit came from this dialect and its reset, read as zero, was a past epoch. */
  static boolean pastEpoch(RateLimitStatus limit, HintHeaders headers) {
    for (Family family : Family.values()) {
      if (limit.source().startsWith(family.prefix)) {
        String trimmed = HintHeaders.trim(headers.get(family.reset));
        int dot = trimmed.indexOf('.');
        return integer(dot < 0 ? trimmed : trimmed.substring(0, dot)) >= EPOCH_SECONDS_FROM;
      }
    }
    return false;
  }

  /**
   * Delta seconds, or an epoch in seconds (&ge; 1e9) or milliseconds (&ge; 1e12). -1 if invalid.
   */
  private static long resetWait(String value, Instant now, String date) {
    long nanos = decimalNanos(value);
    if (nanos < 0) {
      return -1;
    }
    String trimmed = HintHeaders.trim(value);
    int dot = trimmed.indexOf('.');
    long whole = integer(dot < 0 ? trimmed : trimmed.substring(0, dot));
    if (whole < EPOCH_SECONDS_FROM) {
      return nanos;
    }
    long epochNanosOfReset;
    if (whole >= EPOCH_MILLIS_FROM) {
      // Milliseconds since the epoch; fractions of a millisecond do not matter here.
      epochNanosOfReset = whole > Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : whole * 1_000_000L;
    } else {
      epochNanosOfReset = nanos;
    }
    Instant served = RetryAfter.parseHttpDate(date, now).orElse(now);
    // A Date names whole seconds: when this clock reads within that second, the two clocks agree
    // to the Date's resolution and this one is the finer base (a moving window's reset, a second
    // away, was otherwise counted up to a second long); else the Date cancels the skew.
    boolean agree = !now.isBefore(served) && now.isBefore(served.plusSeconds(1));
    return Math.max(0L, epochNanosOfReset - epochNanos(agree ? now : served));
  }

  private static long epochNanos(Instant instant) {
    long seconds = instant.getEpochSecond();
    if (seconds <= 0) {
      return 0;
    }
    if (seconds > Long.MAX_VALUE / NANOS_PER_SECOND - 1) {
      return Long.MAX_VALUE;
    }
    return seconds * NANOS_PER_SECOND + instant.getNano();
  }

  /** A non-negative integer of ASCII digits, saturating; -1 if invalid. */
  private static long integer(String value) {
    return digits(HintHeaders.trim(value));
  }

  /** {@code s}, 1 to 30 ASCII digits, as a number, saturating; -1 if invalid. */
  private static long digits(String s) {
    if (s.isEmpty() || s.length() > 30) {
      return -1;
    }
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      n = n > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : n * 10 + (c - '0');
    }
    return n;
  }

  /**
   * Non-negative decimal seconds ({@code 30}, {@code 1.5}) as nanoseconds, saturating; -1 if
   * invalid.
   */
  private static long decimalNanos(String value) {
    String s = HintHeaders.trim(value);
    int dot = s.indexOf('.');
    String whole = dot < 0 ? s : s.substring(0, dot);
    String fraction = dot < 0 ? "" : s.substring(dot + 1);
    long seconds = integer(whole);
    if (seconds < 0 || (dot >= 0 && digits(fraction) < 0)) {
      return -1;
    }
    // Nanoseconds are the first nine digits of the fraction, padded with zeros.
    long nanos = dot < 0 ? 0 : Long.parseLong((fraction + "000000000").substring(0, 9));
    if (seconds > (Long.MAX_VALUE - nanos) / NANOS_PER_SECOND) {
      return Long.MAX_VALUE;
    }
    return seconds * NANOS_PER_SECOND + nanos;
  }
}
