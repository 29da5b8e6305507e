package dev.relent.http;

import dev.relent.RetryAfter;
import dev.relent.ServerHint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
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
 * <p>Immutable and thread-safe. Every family, each rule and the malformed input: docs/http.md,
 * section "Server hints".
 */
public final class ServerHints {
  /**
   * The longest {@code RateLimit} or {@code RateLimit-Policy} field read, in characters, all its
   * lines together: {@value}. A longer field is ignored.
   */
  public static final int MAX_FIELD_LENGTH = 8192;

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
    String date = ResponseFacts.first(headers, "Date");
    boolean tooMany = status == 429;
    String scope = ResponseFacts.first(headers, "X-RateLimit-Scope");
    List<RateLimitStatus> limits = statuses(headers, now, date);
    if (doubts != null && !limits.isEmpty()) {
      doubt(limits, headers, doubts);
    }
    RateLimitStatus tightest = tightest(limits);
    if (status >= 400) {
      String retryAfter = ResponseFacts.first(headers, "Retry-After");
      Optional<Duration> wait = RetryAfter.parse(retryAfter, now, date);
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
      List<RateLimitStatus> limits, HeaderLookup headers, BiConsumer<Doubt, String> doubts) {
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
      if (l.reset().isPresent() && l.reset().get().isZero() && pastEpoch(l, headers)) {
        doubts.accept(
            Doubt.RESET_PAST, "a reset already past (" + l.source() + "): read as a reset now");
      }
    }
  }

  /** Whether an {@code X-RateLimit-Reset} read as zero was an epoch: one already past. */
  private static boolean pastEpoch(RateLimitStatus l, HeaderLookup headers) {
    for (String prefix : new String[] {"X-RateLimit-", "X-Rate-Limit-"}) {
      if (l.source().startsWith(prefix)) {
        String reset = ResponseFacts.first(headers, prefix + "Reset");
        String trimmed = reset == null ? "" : trim(reset);
        int dot = trimmed.indexOf('.');
        return integer(dot < 0 ? trimmed : trimmed.substring(0, dot)) >= EPOCH_SECONDS_FROM;
      }
    }
    return false;
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
    return statuses(headers, now, ResponseFacts.first(headers, "Date"));
  }

  private List<RateLimitStatus> statuses(HeaderLookup headers, Instant now, String date) {
    if (fromCache(headers)) {
      return List.of();
    }
    String rateLimit = field(headers, "RateLimit");
    String policyField = field(headers, "RateLimit-Policy");
    List<Policy> policies = policyField == null ? null : policies(policyField);
    String policySource =
        policies == null ? "" : "RateLimit-Policy: " + ResponseFacts.sanitize(policyField);
    if (policies == null) {
      policies = List.of();
    }
    if (rateLimit != null) {
      String source =
          "RateLimit: "
              + ResponseFacts.sanitize(rateLimit)
              + (policySource.isEmpty() ? "" : ", " + policySource);
      List<RateLimitStatus> current = currentDraft(rateLimit, policies, source);
      if (current != null) {
        return current;
      }
      RateLimitStatus older = olderDictionary(rateLimit, policies, source);
      if (older != null) {
        return List.of(older);
      }
    }
    RateLimitStatus separate = separateFields(headers, policies);
    if (separate != null) {
      return List.of(separate);
    }
    for (String prefix : new String[] {"X-RateLimit-", "X-Rate-Limit-"}) {
      RateLimitStatus x = xRateLimit(headers, prefix, now, date);
      if (x != null) {
        return List.of(x);
      }
    }
    List<RateLimitStatus> out = new ArrayList<>();
    for (Policy p : policies) {
      out.add(status(p.name(), p.quota(), null, null, null, p, policySource));
    }
    return List.copyOf(out);
  }

  /**
   * Whether the response was served from a cache: its {@code Age} is a positive delta-seconds. The
   * limits it states are then how things stood when it was stored, not now, and are ignored. The
   * {@code Date} is not used to guess an age: the two clocks may differ.
   */
  private static boolean fromCache(HeaderLookup headers) {
    String age = trim(ResponseFacts.first(headers, "Age"));
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

  /** The field as a structured-field List; null when it is malformed or empty (then ignored). */
  private static List<StructuredFields.Member> nonEmptyList(String value) {
    try {
      List<StructuredFields.Member> members = StructuredFields.parseList(value);
      return members.isEmpty() ? null : members;
    } catch (StructuredFields.MalformedFieldException e) {
      return null;
    }
  }

  /** {@code RateLimit: "name";r=0;t=30, ...}: every item a String with {@code r}; else null. */
  private static List<RateLimitStatus> currentDraft(
      String value, List<Policy> policies, String source) {
    List<StructuredFields.Member> members = nonEmptyList(value);
    if (members == null) {
      return null;
    }
    List<RateLimitStatus> out = new ArrayList<>();
    for (StructuredFields.Member m : members) {
      if (!(m instanceof StructuredFields.Item)
          || !(((StructuredFields.Item) m).value() instanceof String)) {
        return null;
      }
      String name = (String) ((StructuredFields.Item) m).value();
      Map<String, Object> params = m.parameters();
      Long r = count(params.get("r"));
      Object t = params.get("t");
      Long reset = count(t);
      Object pk = params.get("pk");
      if (r == null || (t != null && reset == null)) {
        return null;
      }
      if (pk != null && !(pk instanceof StructuredFields.ByteSequence)) {
        return null;
      }
      Policy policy = null;
      for (Policy p : policies) {
        if (name.equals(p.name())) {
          policy = p;
          break;
        }
      }
      out.add(
          status(
              name,
              policy == null ? null : policy.quota(),
              r,
              reset == null ? null : Duration.ofSeconds(reset),
              (StructuredFields.ByteSequence) pk,
              policy,
              source));
    }
    return List.copyOf(out);
  }

  /**
   * {@code RateLimit: limit=100, remaining=0, reset=30}, the older drafts' Dictionary; else null.
   */
  private static RateLimitStatus olderDictionary(
      String value, List<Policy> policies, String source) {
    Map<String, StructuredFields.Member> members;
    try {
      members = StructuredFields.parseDictionary(value);
    } catch (StructuredFields.MalformedFieldException e) {
      return null;
    }
    StructuredFields.Member remaining = members.get("remaining");
    StructuredFields.Member limit = members.get("limit");
    StructuredFields.Member reset = members.get("reset");
    Long r = count(remaining);
    Long l = count(limit);
    Long t = count(reset);
    if (r == null || (limit != null && l == null) || (reset != null && t == null)) {
      return null;
    }
    return olderForm(l, r, t, policies, source);
  }

  /** {@code RateLimit-Remaining} with {@code RateLimit-Limit} and {@code RateLimit-Reset}. */
  private static RateLimitStatus separateFields(HeaderLookup headers, List<Policy> policies) {
    String remaining = field(headers, "RateLimit-Remaining");
    Long r = remaining == null ? null : integerItem(remaining);
    if (r == null) {
      return null;
    }
    String limit = field(headers, "RateLimit-Limit");
    String reset = field(headers, "RateLimit-Reset");
    Long l = limit == null ? null : integerItem(limit);
    Long t = reset == null ? null : integerItem(reset);
    String source =
        "RateLimit-Remaining: "
            + ResponseFacts.sanitize(remaining)
            + (reset == null ? "" : ", RateLimit-Reset: " + ResponseFacts.sanitize(reset));
    return olderForm(l, r, t, policies, source);
  }

  /**
   * A limit of the older drafts, with the older policy that matches it ({@link #unnamedPolicy}).
   */
  private static RateLimitStatus olderForm(
      Long limit, long remaining, Long resetSeconds, List<Policy> policies, String source) {
    Policy policy = unnamedPolicy(policies, limit);
    return status(
        null,
        limit != null ? limit : policy == null ? null : policy.quota(),
        remaining,
        resetSeconds == null ? null : Duration.ofSeconds(resetSeconds),
        null,
        policy,
        source);
  }

  /** {@code X-RateLimit-Remaining} with {@code -Limit} and {@code -Reset}: not structured. */
  private static RateLimitStatus xRateLimit(
      HeaderLookup headers, String prefix, Instant now, String date) {
    String left = ResponseFacts.first(headers, prefix + "Remaining");
    long r = left == null ? -1 : integer(left);
    if (r < 0) {
      return null;
    }
    String reset = ResponseFacts.first(headers, prefix + "Reset");
    String limit = ResponseFacts.first(headers, prefix + "Limit");
    long waitNanos = reset == null ? -1 : resetWait(reset, now, date);
    long l = limit == null ? -1 : integer(limit);
    String source =
        prefix + "Remaining: " + left + (reset == null ? "" : ", " + prefix + "Reset: " + reset);
    return status(
        null,
        l < 0 ? null : l,
        r,
        waitNanos < 0 ? null : Duration.ofNanos(waitNanos),
        null,
        null,
        source);
  }

  private static RateLimitStatus status(
      String name,
      Long limit,
      Long remaining,
      Duration reset,
      StructuredFields.ByteSequence pk,
      Policy policy,
      String source) {
    if (pk == null && policy != null) {
      pk = policy.partitionKey();
    }
    return new RateLimitStatus(
        Optional.ofNullable(name),
        limit == null ? OptionalLong.empty() : OptionalLong.of(limit),
        remaining == null ? OptionalLong.empty() : OptionalLong.of(remaining),
        Optional.ofNullable(reset),
        Optional.ofNullable(policy == null ? null : policy.window()),
        Optional.ofNullable(pk == null ? null : pk.base64()),
        policy == null ? RateLimitStatus.REQUESTS : policy.unit(),
        source);
  }

  /** One quota policy of {@code RateLimit-Policy}; {@code name} null in the older form. */
  private record Policy(
      String name,
      long quota,
      Duration window,
      String unit,
      StructuredFields.ByteSequence partitionKey) {}

  /**
   * {@code RateLimit-Policy}: a List of {@code "name";q=100;w=60} (current draft) or {@code
   * 100;w=60} (older drafts); null when malformed or empty (then the whole field is ignored).
   */
  private static List<Policy> policies(String value) {
    List<StructuredFields.Member> members = nonEmptyList(value);
    if (members == null) {
      return null;
    }
    List<Policy> out = new ArrayList<>();
    for (StructuredFields.Member m : members) {
      if (!(m instanceof StructuredFields.Item)) {
        return null;
      }
      Object v = ((StructuredFields.Item) m).value();
      Map<String, Object> params = m.parameters();
      String name = v instanceof String ? (String) v : null;
      Long quota = name != null ? count(params.get("q")) : count(v);
      Object w = params.get("w");
      Long window = count(w);
      Object qu = params.get("qu");
      Object pk = params.get("pk");
      if (quota == null
          || (w != null && (window == null || window == 0))
          || (qu != null && !(qu instanceof String))
          || (pk != null && !(pk instanceof StructuredFields.ByteSequence))) {
        return null;
      }
      out.add(
          new Policy(
              name,
              quota,
              window == null ? null : Duration.ofSeconds(window),
              qu == null ? RateLimitStatus.REQUESTS : (String) qu,
              (StructuredFields.ByteSequence) pk));
    }
    return out;
  }

  /** The older form's policy: the one whose quota is the limit, else the first. */
  private static Policy unnamedPolicy(List<Policy> policies, Long limit) {
    Policy first = null;
    for (Policy p : policies) {
      if (p.name() == null) {
        if (limit != null && p.quota() == limit) {
          return p;
        }
        first = first == null ? p : first;
      }
    }
    return first;
  }

  /** A non-negative Integer, bare or as an Item's value; null otherwise. */
  private static Long count(Object value) {
    Object v =
        value instanceof StructuredFields.Item ? ((StructuredFields.Item) value).value() : value;
    return v instanceof Long && (Long) v >= 0 ? (Long) v : null;
  }

  /** A field whose value is a non-negative Integer Item ({@code RateLimit-Remaining: 0}). */
  private static Long integerItem(String value) {
    try {
      return count(StructuredFields.parseItem(value));
    } catch (StructuredFields.MalformedFieldException e) {
      return null;
    }
  }

  /**
   * Every line of a structured field joined with {@code ", "}, unsanitised; null when absent, when
   * the lookup fails, or when longer than {@link #MAX_FIELD_LENGTH} (ignored, never cut).
   */
  private static String field(HeaderLookup headers, String name) {
    if (headers == null) {
      return null;
    }
    List<String> lines;
    try {
      lines = headers.all(name);
    } catch (RuntimeException e) {
      return null; // a broken header view counts as no header
    }
    if (lines == null || lines.isEmpty()) {
      return null;
    }
    List<String> kept = new ArrayList<>(lines.size());
    long length = 0;
    for (String line : lines) {
      if (line == null) {
        continue;
      }
      length += line.length() + (kept.isEmpty() ? 0 : 2);
      if (length > MAX_FIELD_LENGTH) {
        return null;
      }
      kept.add(line);
    }
    return kept.isEmpty() ? null : StructuredFields.join(kept);
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
    return digits(trim(value));
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
    String s = trim(value);
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
