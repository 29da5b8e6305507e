package dev.relent.http;

import dev.relent.ServerHint;
import dev.relent.http.HintHeaders.Name;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Reads what a response says about when to come back and turns it into a core {@link ServerHint}: a
 * minimum wait for this operation, a pause for every caller sharing the pacer, or an exhausted
 * quota that waiting will not fix.
 *
 * <p>Rules, in order ({@link #read(int, HeaderLookup, Instant)}):
 *
 * <ol>
 *   <li><b>Retry-After</b> on a status of 400 or more ({@link RetryAfter#parse(String, Instant,
 *       String)}): on a 429 a rate limit ({@link ServerHint#rateLimited}), on any other status a
 *       plain {@link ServerHint#retryAfter}, passed on as it is, however long.
 *   <li><b>Rate-limit headers</b>, on any status, the first family present and well formed ({@link
 *       #rateLimits}): {@code RateLimit} with {@code RateLimit-Policy} (IETF draft {@code
 *       draft-ietf-httpapi-ratelimit-headers}, RFC 9651 structured fields), its older forms, and
 *       {@code X-RateLimit-*}. Remaining 0 with a reset ahead gives {@link ServerHint#rateLimited}
 *       for the reset; remaining above 0 gives {@link ServerHint#quota}, no wait.
 *   <li>A 429 with neither gives {@code rateLimited(0)}: the backoff decides the wait.
 * </ol>
 *
 * <p>Every hint also carries the tightest stated limit ({@link ServerHint#withQuota}) and its
 * policy ({@link ServerHint#withPolicy}). A rate-limit hint becomes {@link
 * ServerHint#quotaExhausted} when its wait is longer than the quota threshold (default <b>1 h</b>)
 * or the server names a long scope (default quota words {@code day, daily, month, quota}). A
 * response with a positive {@code Age} states no limit. Bodies are never read. A malformed
 * structured field, or one longer than {@value #MAX_FIELD_LENGTH} characters, is ignored as a
 * whole; no string makes {@link #read} or {@link #rateLimits} throw.
 *
 * <p>This class holds the precedence; {@code RateLimitFields} (the IETF forms) and {@code
 * XRateLimitFields} (the {@code X-} forms) read the dialects, each header of a response read once.
 * Immutable and thread-safe. Every family, each rule and the malformed input: docs/http.md, section
 * "Server hints".
 */
public final class ServerHints {
  /**
   * The longest {@code RateLimit} or {@code RateLimit-Policy} field read, in characters, all its
   * lines together: {@value}. A longer field is ignored.
   */
  public static final int MAX_FIELD_LENGTH = 8192;

  private static final ServerHints DEFAULTS = builder().build();

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
    return read(status, headers, now, null);
  }

  /**
   * Reads a response's hint, as {@link #read(int, HeaderLookup, Instant)} does, and tells {@code
   * doubts} about each stated limit that cannot be true ({@link Doubt}), with a sentence safe to
   * log: what the headers said and what is done about it. The hint is the same either way: every
   * such limit is already bounded where it is used.
   *
   * @param status the status code
   * @param headers the response headers; null counts as none
   * @param now the local wall-clock time (from the executor's {@code Clock})
   * @param doubts told each doubt, on the calling thread; null to be told nothing
   * @return the hint, or null when the response carries none
   * @throws NullPointerException if {@code now} is null
   */
  public ServerHint read(
      int status, HeaderLookup headers, Instant now, BiConsumer<Doubt, String> doubts) {
    Objects.requireNonNull(now, "now cannot be null");
    HintHeaders response = new HintHeaders(headers);
    boolean tooMany = status == 429;
    String scope = response.get(Name.SCOPE);
    List<RateLimitStatus> limits = statuses(response, now);
    if (doubts != null && !limits.isEmpty()) {
      doubt(limits, response, doubts);
    }
    RateLimitStatus tightest = tightest(limits);
    if (status >= 400) {
      String retryAfter = response.get(Name.RETRY_AFTER);
      Optional<Duration> wait = RetryAfter.parse(retryAfter, now, response.get(Name.DATE));
      if (wait.isPresent()) {
        String source = "Retry-After: " + retryAfter;
        if (!tooMany) {
          return withQuota(ServerHint.retryAfter(wait.get(), source), tightest);
        }
        return withQuota(limit(wait.get(), scopeWord(scope), source, now), tightest);
      }
    }
    RateLimitStatus limit = decisive(limits, tooMany);
    if (limit != null && (tooMany || !limit.reset().get().isZero())) {
      boolean quota = scopeWord(scope) || longScope(limit);
      return withQuota(limit(limit.reset().get(), quota, limit.source(), now), tightest);
    }
    if (tooMany) {
      return withQuota(ServerHint.rateLimited(Duration.ZERO, "HTTP 429"), tightest);
    }
    if (tightest != null) {
      // Requests remain: no wait, but an adaptive pacer fits them in before the reset.
      return withPolicy(
          ServerHint.quota(
              tightest.remaining().getAsLong(), tightest.reset().get(), tightest.source()),
          tightest);
    }
    return null;
  }

  /**
   * The limit that allows the fewest requests per second from now (the remaining before its reset
   * and one at it, over the time to the reset), among those stating both with a reset still ahead;
   * null when none does.
   */
  private static RateLimitStatus tightest(List<RateLimitStatus> limits) {
    RateLimitStatus best = null;
    double bestRate = Double.POSITIVE_INFINITY;
    for (RateLimitStatus l : limits) {
      if (l.remaining().isEmpty() || l.reset().isEmpty() || l.reset().get().isZero()) {
        continue;
      }
      Duration reset = l.reset().get();
      double rate = (l.remaining().getAsLong() + 1) / (reset.getSeconds() + reset.getNano() / 1e9);
      if (rate < bestRate) {
        best = l;
        bestRate = rate;
      }
    }
    return best;
  }

  private static ServerHint withQuota(ServerHint hint, RateLimitStatus limit) {
    return limit == null
        ? hint
        : withPolicy(hint.withQuota(limit.remaining().getAsLong(), limit.reset().get()), limit);
  }

  /**
   * Adds the limit's policy, its quota per window, when it counts requests: an adaptive pacer
   * compares it with its own starts to tell another caller on the account.
   */
  private static ServerHint withPolicy(ServerHint hint, RateLimitStatus limit) {
    if (!RateLimitStatus.REQUESTS.equals(limit.unit())
        || limit.limit().isEmpty()
        || limit.limit().getAsLong() <= 0) {
      return hint;
    }
    long quota = limit.limit().getAsLong();
    Optional<Duration> window = limit.window().filter(w -> !w.isZero());
    return window.isPresent() ? hint.withPolicy(quota, window.get()) : hint.withPolicy(quota);
  }

  /**
   * The limit that decides the wait: the exhausted one with the longest reset; on a 429 with none
   * exhausted, the first with a reset. Null when none applies.
   */
  private static RateLimitStatus decisive(List<RateLimitStatus> limits, boolean tooMany) {
    RateLimitStatus best = null;
    for (RateLimitStatus l : limits) {
      if (l.exhausted()
          && l.reset().isPresent()
          && (best == null || l.reset().get().compareTo(best.reset().get()) > 0)) {
        best = l;
      }
    }
    if (best == null && tooMany) {
      for (RateLimitStatus l : limits) {
        if (l.reset().isPresent()) {
          return l;
        }
      }
    }
    return best;
  }

  /** Whether the limit's policy names a long scope or has a window of at least the threshold. */
  private boolean longScope(RateLimitStatus limit) {
    return (limit.policy().isPresent() && scopeWord(limit.policy().get()))
        || (limit.window().isPresent()
            && saturatedNanos(limit.window().get()) >= quotaThresholdNanos);
  }

  private ServerHint limit(Duration wait, boolean quotaScope, String source, Instant now) {
    if (quotaScope || saturatedNanos(wait) > quotaThresholdNanos) {
      return ServerHint.quotaExhausted(wait, plus(now, wait), source);
    }
    return ServerHint.rateLimited(wait, source);
  }

  private static Instant plus(Instant now, Duration wait) {
    // A reset centuries away is no date anyone can act on.
    return wait.getSeconds() > 100L * 366 * 24 * 3600 ? null : now.plus(wait);
  }

  /**
   * A stated limit that cannot be true. None of them changes a hint: a limit is bounded where it is
   * used, and these say so.
   */
  public enum Doubt {
    /**
     * More remain than the limit allows. The quota it implies can only slow an adaptive pacer,
     * never speed it: the slower of the quota and what the pacer learned governs, within its
     * ceiling.
     */
    REMAINING_ABOVE_LIMIT,
    /** An epoch reset already past: read as a reset now, which paces and pauses nothing. */
    RESET_PAST,
    /**
     * A reset more than a year away: a pause for it is capped at the longest server wait the policy
     * allows, and an exhausted quota gives no reset date.
     */
    RESET_BEYOND_A_YEAR
  }

  private static final long YEAR_SECONDS = 366L * 24 * 3600;

  private static void doubt(
      List<RateLimitStatus> limits, HintHeaders headers, BiConsumer<Doubt, String> doubts) {
    for (RateLimitStatus l : limits) {
      if (l.limit().isPresent()
          && l.remaining().isPresent()
          && l.remaining().getAsLong() > l.limit().getAsLong()) {
        doubts.accept(
            Doubt.REMAINING_ABOVE_LIMIT,
            l.remaining().getAsLong()
                + " remaining of a limit of "
                + l.limit().getAsLong()
                + " ("
                + l.source()
                + "): the pacer is no faster for it");
      }
      if (l.reset().isPresent() && l.reset().get().getSeconds() > YEAR_SECONDS) {
        doubts.accept(
            Doubt.RESET_BEYOND_A_YEAR,
            "a reset "
                + l.reset().get().getSeconds()
                + " s away ("
                + l.source()
                + "): a pause is capped at the longest server wait allowed");
      }
      if (l.reset().isPresent()
          && l.reset().get().isZero()
          && XRateLimitFields.pastEpoch(l, headers)) {
        doubts.accept(
            Doubt.RESET_PAST, "a reset already past (" + l.source() + "): read as a reset now");
      }
    }
  }

  /**
   * Reads every rate limit a response states, from the first of these families that is present and
   * well formed: {@code RateLimit} as the current draft's List (one status per item, joined with
   * its {@code RateLimit-Policy} item by name); {@code RateLimit} as the older Dictionary {@code
   * limit=100, remaining=0, reset=30}; {@code RateLimit-Remaining} with {@code RateLimit-Limit} and
   * {@code RateLimit-Reset}; {@code X-RateLimit-*}; {@code X-Rate-Limit-*}; and last {@code
   * RateLimit-Policy} alone (one status per policy, with no remaining). A malformed field, or one
   * longer than {@value #MAX_FIELD_LENGTH} characters, counts as absent; a response with a positive
   * {@code Age} (from a cache) states none. This is what {@link #read} decides from, for a caller
   * that paces by what the server says (remaining quota over the time to reset) before any 429
   * happens.
   *
   * @param headers the response headers; null counts as none
   * @param now the local wall-clock time, against which an epoch reset is measured when the
   *     response has no {@code Date}
   * @return the limits, in the order the server listed them; empty when it states none
   * @throws NullPointerException if {@code now} is null
   */
  public List<RateLimitStatus> rateLimits(HeaderLookup headers, Instant now) {
    Objects.requireNonNull(now, "now cannot be null");
    return statuses(new HintHeaders(headers), now);
  }

  /** The families in the order of precedence: the first present and well formed states them. */
  private static List<RateLimitStatus> statuses(HintHeaders headers, Instant now) {
    if (fromCache(headers)) {
      return List.of();
    }
    RateLimitFields ietf = new RateLimitFields(headers);
    List<RateLimitStatus> stated = ietf.read();
    if (stated != null) {
      return stated;
    }
    for (XRateLimitFields.Family family : XRateLimitFields.Family.values()) {
      RateLimitStatus x = XRateLimitFields.read(headers, family, now);
      if (x != null) {
        return List.of(x);
      }
    }
    return ietf.policiesAlone();
  }

  /**
   * Whether the response was served from a cache: its {@code Age} is a positive delta-seconds. The
   * limits it states are then how things stood when it was stored, not now, and are ignored. The
   * {@code Date} is not used to guess an age: the two clocks may differ.
   */
  private static boolean fromCache(HintHeaders headers) {
    String age = HintHeaders.trim(headers.get(Name.AGE));
    boolean positive = false;
    for (int i = 0; i < age.length(); i++) {
      char c = age.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
      positive |= c != '0';
    }
    return positive;
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
