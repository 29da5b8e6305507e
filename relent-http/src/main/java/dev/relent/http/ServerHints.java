package dev.relent.http;

import dev.relent.RetryAfter;
import dev.relent.ServerHint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Reads what a response says about when to come back and turns it into a core {@link ServerHint}: a
 * minimum wait for this operation, a pause for every caller sharing the pacer, or an exhausted
 * quota that waiting will not fix.
 *
 * <p>Rules, in order ({@link #read(int, HeaderLookup, Instant)}):
 *
 * <ol>
 *   <li><b>Retry-After</b> on a status of 400 or more, read by {@link RetryAfter#parse(String,
 *       Instant, String)} (seconds or any HTTP-date; a date is measured against the response's own
 *       {@code Date} to cancel clock skew; a past date is a zero wait, and the backoff stays the
 *       floor). On a 429 it is a rate limit ({@link ServerHint#rateLimited}: the pacer pauses every
 *       caller); on any other status a plain {@link ServerHint#retryAfter}. A hostile value such as
 *       {@code 86400} on a 503 is passed on as it is: the executor then fails at once, saying how
 *       long the server asked for, instead of waiting a day.
 *   <li><b>Rate-limit headers</b>, on any status (a 200 announcing "0 left" slows the pacer before
 *       429s happen), the first family present:
 *       <ul>
 *         <li>{@code RateLimit: "default";r=0;t=30} (IETF httpapi draft, structured form; several
 *             items may be listed, the longest exhausted one counts) with {@code RateLimit-Policy:
 *             "default";q=100;w=60};
 *         <li>{@code RateLimit: limit=100, remaining=0, reset=30} (older draft, one field);
 *         <li>{@code RateLimit-Remaining} with {@code RateLimit-Reset} (older drafts: delta
 *             seconds) and {@code RateLimit-Policy: 100;w=60};
 *         <li>{@code X-RateLimit-Remaining} with {@code X-RateLimit-Reset}, also spelled {@code
 *             X-Rate-Limit-*}: the reset is delta seconds, or epoch seconds when it is at least
 *             10<sup>9</sup> (GitHub), or epoch milliseconds when at least 10<sup>12</sup>;
 *             fractions are allowed; an epoch is measured against the response's {@code Date}.
 *       </ul>
 *       Remaining 0 with a known reset gives {@link ServerHint#rateLimited} for the reset time.
 *       Remaining above 0 gives nothing (except on a 429, which is always a rate limit).
 *   <li>A 429 with neither gives {@code rateLimited(0)}: the backoff decides the wait.
 * </ol>
 *
 * <p><b>Quota detection.</b> A rate-limit hint (a 429's {@code Retry-After}, or an exhausted
 * rate-limit family) becomes {@link ServerHint#quotaExhausted} — the executor stops at once with a
 * {@code QuotaExhaustedException} saying when the quota resets — when its wait is longer than the
 * quota threshold (default <b>1 h</b>), or when the server names a long scope: an {@code
 * X-RateLimit-Scope} header, or a {@code RateLimit}/{@code RateLimit-Policy} name, containing one
 * of the quota words (default {@code day, daily, month, quota}), or a policy window {@code w} at
 * least as long as the threshold. A {@code Retry-After} on other statuses (a 503 for maintenance)
 * is never a quota. Bodies are never read.
 *
 * <p>Malformed values of any header are ignored, never an exception: no string makes {@link #read}
 * throw. Immutable and thread-safe.
 */
public final class ServerHints {
  private static final ServerHints DEFAULTS = builder().build();
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final long EPOCH_SECONDS_FROM = 1_000_000_000L;
  private static final long EPOCH_MILLIS_FROM = 1_000_000_000_000L;

  private final Duration quotaThreshold;
  private final long quotaThresholdNanos;
  private final List<String> quotaWords;

  private ServerHints(Builder b) {
    this.quotaThreshold = b.quotaThreshold;
    this.quotaThresholdNanos = saturatedNanos(b.quotaThreshold);
    this.quotaWords = List.copyOf(b.quotaWords);
  }

  /**
   * Returns the reader with the default settings: quota threshold 1 h, quota words {@code day,
   * daily, month, quota}.
   *
   * @return the shared default reader
   */
  public static ServerHints ofDefaults() {
    return DEFAULTS;
  }

  /**
   * Returns a builder with every setting at its default.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the wait beyond which a rate limit counts as an exhausted quota.
   *
   * @return the threshold
   */
  public Duration quotaThreshold() {
    return quotaThreshold;
  }

  /**
   * Reads a response's hint.
   *
   * @param status the status code
   * @param headers the response headers; null counts as none
   * @param now the local wall-clock time (from the executor's {@code Clock})
   * @return the hint, or null when the response carries none
   * @throws NullPointerException if {@code now} is null
   */
  public ServerHint read(int status, HeaderLookup headers, Instant now) {
    Objects.requireNonNull(now, "now cannot be null");
    String date = ResponseFacts.first(headers, "Date");
    boolean tooMany = status == 429;
    if (status >= 400) {
      String retryAfter = ResponseFacts.first(headers, "Retry-After");
      Optional<Duration> wait = RetryAfter.parse(retryAfter, now, date);
      if (wait.isPresent()) {
        String source = "Retry-After: " + retryAfter;
        if (!tooMany) {
          return ServerHint.retryAfter(wait.get(), source);
        }
        return limit(
            wait.get(), scopeWord(ResponseFacts.first(headers, "X-RateLimit-Scope")), source, now);
      }
    }
    Limit limit = rateLimit(headers, now, date);
    if (limit != null && (limit.remaining == 0 || tooMany) && limit.waitNanos >= 0) {
      return limit(Duration.ofNanos(limit.waitNanos), limit.quotaScope, limit.source, now);
    }
    if (tooMany) {
      return ServerHint.rateLimited(Duration.ZERO, "HTTP 429");
    }
    return null;
  }

  private ServerHint limit(Duration wait, boolean quotaScope, String source, Instant now) {
    if (quotaScope || wait.toNanos() > quotaThresholdNanos) {
      return ServerHint.quotaExhausted(wait, plus(now, wait), source);
    }
    return ServerHint.rateLimited(wait, source);
  }

  private static Instant plus(Instant now, Duration wait) {
    // A reset centuries away is no date anyone can act on.
    return wait.getSeconds() > 100L * 366 * 24 * 3600 ? null : now.plus(wait);
  }

  /** One rate-limit family, read: remaining, the wait until reset (-1 unknown), where from. */
  private static final class Limit {
    long remaining = -1;
    long waitNanos = -1;
    boolean quotaScope;
    String source;
  }

  private Limit rateLimit(HeaderLookup headers, Instant now, String date) {
    String scope = ResponseFacts.first(headers, "X-RateLimit-Scope");
    String structured = ResponseFacts.first(headers, "RateLimit");
    String policy = ResponseFacts.first(headers, "RateLimit-Policy");
    if (structured != null) {
      Limit l = structured(structured, policy);
      if (l != null) {
        l.source =
            "RateLimit: " + structured + (policy == null ? "" : ", RateLimit-Policy: " + policy);
        l.quotaScope |= scopeWord(scope);
        return l;
      }
    }
    String remaining = ResponseFacts.first(headers, "RateLimit-Remaining");
    if (remaining != null) {
      String reset = ResponseFacts.first(headers, "RateLimit-Reset");
      Limit l = new Limit();
      l.remaining = integer(remaining);
      l.waitNanos = reset == null ? -1 : decimalNanos(reset);
      l.quotaScope = scopeWord(scope) || policyWindowIsQuota(policy, null);
      l.source =
          "RateLimit-Remaining: "
              + remaining
              + (reset == null ? "" : ", RateLimit-Reset: " + reset);
      return l;
    }
    for (String prefix : new String[] {"X-RateLimit-", "X-Rate-Limit-"}) {
      String left = ResponseFacts.first(headers, prefix + "Remaining");
      if (left == null) {
        continue;
      }
      String reset = ResponseFacts.first(headers, prefix + "Reset");
      Limit l = new Limit();
      l.remaining = integer(left);
      l.waitNanos = reset == null ? -1 : resetWait(reset, now, date);
      l.quotaScope = scopeWord(scope);
      l.source =
          prefix + "Remaining: " + left + (reset == null ? "" : ", " + prefix + "Reset: " + reset);
      return l;
    }
    return null;
  }

  /**
   * The structured field: items {@code "name";r=0;t=30} separated by commas; or the older single
   * field {@code limit=100, remaining=0, reset=30}.
   */
  private Limit structured(String value, String policy) {
    List<String> items = split(value, ',');
    Limit best = null;
    Limit older = new Limit();
    boolean olderSeen = false;
    for (String item : items) {
      List<String> parts = split(item, ';');
      if (parts.isEmpty()) {
        continue;
      }
      String first = parts.get(0);
      if (first.startsWith("\"")) {
        String name = unquote(first);
        long r = -1;
        long t = -1;
        for (int i = 1; i < parts.size(); i++) {
          String p = parts.get(i);
          if (p.startsWith("r=")) {
            r = integer(p.substring(2));
          } else if (p.startsWith("t=")) {
            t = decimalNanos(p.substring(2));
          }
        }
        if (r < 0) {
          continue;
        }
        Limit l = new Limit();
        l.remaining = r;
        l.waitNanos = t;
        l.quotaScope = scopeWord(name) || policyWindowIsQuota(policy, name);
        // The exhausted item with the longest wait decides; otherwise the first item.
        if (best == null
            || (l.remaining == 0 && (best.remaining != 0 || l.waitNanos > best.waitNanos))) {
          best = l;
        }
      } else {
        for (String p : parts) {
          int eq = p.indexOf('=');
          if (eq <= 0) {
            continue;
          }
          String key = p.substring(0, eq).trim().toLowerCase(Locale.ROOT);
          String v = p.substring(eq + 1);
          if (key.equals("remaining")) {
            older.remaining = integer(v);
            olderSeen = true;
          } else if (key.equals("reset")) {
            older.waitNanos = decimalNanos(v);
          }
        }
      }
    }
    if (best != null) {
      return best;
    }
    if (olderSeen && older.remaining >= 0) {
      older.quotaScope = policyWindowIsQuota(policy, null);
      return older;
    }
    return null;
  }

  /** Whether the policy item named {@code name} (or any unnamed one) has a long window or name. */
  private boolean policyWindowIsQuota(String policy, String name) {
    if (policy == null) {
      return false;
    }
    for (String item : split(policy, ',')) {
      List<String> parts = split(item, ';');
      if (parts.isEmpty()) {
        continue;
      }
      String first = parts.get(0);
      boolean named = first.startsWith("\"");
      String policyName = named ? unquote(first) : null;
      if (name != null && named && !name.equals(policyName)) {
        continue;
      }
      if (named && scopeWord(policyName)) {
        return true;
      }
      for (int i = 1; i < parts.size(); i++) {
        String p = parts.get(i);
        if (p.startsWith("w=")) {
          long window = decimalNanos(p.substring(2));
          if (window >= 0 && window >= quotaThresholdNanos) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private boolean scopeWord(String value) {
    if (value == null) {
      return false;
    }
    String lower = value.toLowerCase(Locale.ROOT);
    for (String word : quotaWords) {
      if (lower.contains(word)) {
        return true;
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
    String trimmed = trim(value);
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
    Instant base = RetryAfter.parseHttpDate(date, now).orElse(now);
    return Math.max(0L, epochNanosOfReset - epochNanos(base));
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
    String s = trim(value);
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
    String s = trim(value);
    int dot = s.indexOf('.');
    String whole = dot < 0 ? s : s.substring(0, dot);
    String fraction = dot < 0 ? "" : s.substring(dot + 1);
    if (whole.isEmpty() || (dot >= 0 && fraction.isEmpty()) || fraction.length() > 30) {
      return -1;
    }
    long seconds = integer(whole);
    if (seconds < 0) {
      return -1;
    }
    long nanos = 0;
    for (int i = 0; i < fraction.length(); i++) {
      char c = fraction.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      if (i < 9) {
        nanos = nanos * 10 + (c - '0');
      }
    }
    for (int i = fraction.length(); i < 9; i++) {
      nanos *= 10;
    }
    if (seconds > (Long.MAX_VALUE - nanos) / NANOS_PER_SECOND) {
      return Long.MAX_VALUE;
    }
    return seconds * NANOS_PER_SECOND + nanos;
  }

  private static String trim(String value) {
    if (value == null) {
      return "";
    }
    int start = 0;
    int end = value.length();
    while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
      end--;
    }
    return value.substring(start, end);
  }

  private static String unquote(String token) {
    String s = token.trim();
    if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
      return s.substring(1, s.length() - 1);
    }
    return s.startsWith("\"") ? s.substring(1) : s;
  }

  /** Splits on a separator outside double quotes, trimming each piece and dropping empty ones. */
  private static List<String> split(String value, char separator) {
    List<String> out = new ArrayList<>();
    boolean quoted = false;
    int start = 0;
    // Hostile headers may be long; the sanitised value is at most 200 characters anyway.
    for (int i = 0; i <= value.length(); i++) {
      char c = i < value.length() ? value.charAt(i) : separator;
      if (c == '"') {
        quoted = !quoted;
      } else if (c == separator && (!quoted || i == value.length())) {
        String piece = trim(value.substring(start, i));
        if (!piece.isEmpty()) {
          out.add(piece);
        }
        start = i + 1;
      }
    }
    return out;
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  @Override
  public String toString() {
    return "ServerHints[quotaThreshold=" + quotaThreshold + ", quotaWords=" + quotaWords + "]";
  }

  /** Builds {@link ServerHints}. Mutable and not thread-safe. */
  public static final class Builder {
    private Duration quotaThreshold = Duration.ofHours(1);
    private final Set<String> quotaWords =
        new LinkedHashSet<>(List.of("day", "daily", "month", "quota"));

    Builder() {}

    /**
     * Sets the wait beyond which a rate limit counts as an exhausted quota. Default 1 h.
     *
     * @param threshold more than zero
     * @return this builder
     * @throws NullPointerException if {@code threshold} is null
     * @throws IllegalArgumentException if {@code threshold} is zero or negative
     */
    public Builder withQuotaThreshold(Duration threshold) {
      Objects.requireNonNull(threshold, "quotaThreshold cannot be null");
      if (threshold.isZero() || threshold.isNegative()) {
        throw new IllegalArgumentException(
            "quotaThreshold must be > 0: " + threshold.toMillis() + " ms");
      }
      this.quotaThreshold = threshold;
      return this;
    }

    /**
     * Replaces the words that mark a long-scoped limit in {@code X-RateLimit-Scope} or a policy
     * name. Default {@code day, daily, month, quota}; none disables name-based detection.
     *
     * @param words words, matched ignoring case as substrings
     * @return this builder
     * @throws NullPointerException if {@code words} or an element is null
     * @throws IllegalArgumentException if a word is blank
     */
    public Builder withQuotaWords(String... words) {
      Objects.requireNonNull(words, "words cannot be null");
      Set<String> copy = new LinkedHashSet<>();
      for (String word : words) {
        Objects.requireNonNull(word, "word cannot be null");
        if (word.isBlank()) {
          throw new IllegalArgumentException("quota word must not be blank: \"" + word + "\"");
        }
        copy.add(word.trim().toLowerCase(Locale.ROOT));
      }
      quotaWords.clear();
      quotaWords.addAll(copy);
      return this;
    }

    /**
     * Builds the reader.
     *
     * @return a new immutable reader
     */
    public ServerHints build() {
      return new ServerHints(this);
    }
  }
}
